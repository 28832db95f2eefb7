/// A small Mapbox Vector Tile 2.1 decoder for the tests, written from the specification apart from
/// the encoder: layers, keys and values, features with their tags and geometry commands.
public struct DecodedTile: Equatable {
    public enum Value: Equatable, CustomStringConvertible {
        case string(String)
        case int(Int64)
        case uint(UInt64)
        case double(Double)
        case float(Float)
        case bool(Bool)

        public var description: String {
            switch self {
            case .string(let s): s
            case .int(let i): String(i)
            case .uint(let u): String(u)
            case .double(let d): String(d)
            case .float(let f): String(f)
            case .bool(let b): String(b)
            }
        }
    }

    public struct Feature: Equatable {
        public var id: UInt64?
        public var type: Int
        public var properties: [String: Value]
        /// The geometry's parts: a point's one point; a polygon's rings (open, as encoded).
        public var parts: [[SIMD2<Int32>]]
    }

    public struct Layer: Equatable {
        public var name: String
        public var version: Int
        public var extent: Int
        public var features: [Feature]
    }

    public var layers: [Layer]

    public struct Malformed: Error, CustomStringConvertible {
        public var description: String
    }

    public func layer(_ name: String) -> Layer? { layers.first { $0.name == name } }

    public init(_ bytes: [UInt8]) throws {
        var r = Reader(bytes: bytes[...])
        layers = []
        while !r.atEnd {
            let (field, type) = try r.tag()
            if field == 3 && type == 2 {
                layers.append(try Self.layer(try r.lengthDelimited()))
            } else {
                try r.skip(type)
            }
        }
    }

    private static func layer(_ bytes: ArraySlice<UInt8>) throws -> Layer {
        var r = Reader(bytes: bytes)
        var name = ""
        var version = 1
        var extent = 4096
        var keys: [String] = []
        var values: [Value] = []
        var raw: [ArraySlice<UInt8>] = []
        while !r.atEnd {
            let (field, type) = try r.tag()
            switch (field, type) {
            case (15, 0): version = Int(try r.varint())
            case (1, 2): name = String(decoding: try r.lengthDelimited(), as: UTF8.self)
            case (2, 2): raw.append(try r.lengthDelimited())
            case (3, 2): keys.append(String(decoding: try r.lengthDelimited(), as: UTF8.self))
            case (4, 2): values.append(try value(try r.lengthDelimited()))
            case (5, 0): extent = Int(try r.varint())
            default: try r.skip(type)
            }
        }
        let features = try raw.map { try feature($0, keys: keys, values: values) }
        return Layer(name: name, version: version, extent: extent, features: features)
    }

    private static func value(_ bytes: ArraySlice<UInt8>) throws -> Value {
        var r = Reader(bytes: bytes)
        var out: Value?
        while !r.atEnd {
            let (field, type) = try r.tag()
            switch (field, type) {
            case (1, 2): out = .string(String(decoding: try r.lengthDelimited(), as: UTF8.self))
            case (2, 5): out = .float(Float(bitPattern: UInt32(truncatingIfNeeded: try r.fixed(4))))
            case (3, 1): out = .double(Double(bitPattern: try r.fixed(8)))
            case (4, 0): out = .int(Int64(bitPattern: try r.varint()))
            case (5, 0): out = .uint(try r.varint())
            case (6, 0):
                let z = try r.varint()
                out = .int(Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1))
            case (7, 0): out = .bool(try r.varint() != 0)
            default: try r.skip(type)
            }
        }
        guard let out else { throw Malformed(description: "a value without a value") }
        return out
    }

    private static func feature(_ bytes: ArraySlice<UInt8>, keys: [String], values: [Value]) throws -> Feature {
        var r = Reader(bytes: bytes)
        var id: UInt64?
        var type = 0
        var tags: [UInt64] = []
        var geometry: [UInt64] = []
        while !r.atEnd {
            let (field, wire) = try r.tag()
            switch (field, wire) {
            case (1, 0): id = try r.varint()
            case (2, 2): tags = try r.packed()
            case (3, 0): type = Int(try r.varint())
            case (4, 2): geometry = try r.packed()
            default: try r.skip(wire)
            }
        }
        guard tags.count % 2 == 0 else { throw Malformed(description: "odd tags") }
        var properties: [String: Value] = [:]
        for i in stride(from: 0, to: tags.count, by: 2) {
            guard Int(tags[i]) < keys.count, Int(tags[i + 1]) < values.count else {
                throw Malformed(description: "a tag out of range")
            }
            properties[keys[Int(tags[i])]] = values[Int(tags[i + 1])]
        }
        // Commands: MoveTo starts a part, LineTo extends it, ClosePath ends a ring.
        var parts: [[SIMD2<Int32>]] = []
        var cursor = SIMD2<Int32>(0, 0)
        var i = 0
        while i < geometry.count {
            let command = geometry[i] & 7
            let count = Int(geometry[i] >> 3)
            i += 1
            switch command {
            case 1, 2:
                guard i + 2 * count <= geometry.count else { throw Malformed(description: "truncated geometry") }
                for k in 0..<count {
                    let dx = Self.unzigzag(geometry[i + 2 * k])
                    let dy = Self.unzigzag(geometry[i + 2 * k + 1])
                    cursor &+= SIMD2(dx, dy)
                    if command == 1 {
                        parts.append([cursor])
                    } else {
                        guard !parts.isEmpty else { throw Malformed(description: "LineTo before MoveTo") }
                        parts[parts.count - 1].append(cursor)
                    }
                }
                i += 2 * count
            case 7: guard count == 1 else { throw Malformed(description: "ClosePath count \(count)") }
            default: throw Malformed(description: "command \(command)")
            }
        }
        return Feature(id: id, type: type, properties: properties, parts: parts)
    }

    static func unzigzag(_ z: UInt64) -> Int32 {
        Int32(truncatingIfNeeded: Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1))
    }

    /// Twice a ring's signed area in tile coordinates (the specification's surveyor's formula).
    public static func doubleArea(_ ring: [SIMD2<Int32>]) -> Int64 {
        var sum: Int64 = 0
        for i in ring.indices {
            let a = ring[i]
            let b = ring[(i + 1) % ring.count]
            sum += Int64(a.x) * Int64(b.y) - Int64(b.x) * Int64(a.y)
        }
        return sum
    }

    private struct Reader {
        var bytes: ArraySlice<UInt8>
        var atEnd: Bool { bytes.isEmpty }

        mutating func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let b = bytes.first {
                bytes = bytes.dropFirst()
                guard shift < 64 else { throw Malformed(description: "varint too long") }
                value |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return value }
                shift += 7
            }
            throw Malformed(description: "truncated varint")
        }

        mutating func tag() throws -> (UInt64, UInt64) {
            let t = try varint()
            return (t >> 3, t & 7)
        }

        mutating func lengthDelimited() throws -> ArraySlice<UInt8> {
            let n = Int(try varint())
            guard n <= bytes.count else { throw Malformed(description: "truncated field") }
            defer { bytes = bytes.dropFirst(n) }
            return bytes.prefix(n)
        }

        mutating func fixed(_ n: Int) throws -> UInt64 {
            guard n <= bytes.count else { throw Malformed(description: "truncated fixed") }
            var v: UInt64 = 0
            for (k, b) in bytes.prefix(n).enumerated() { v |= UInt64(b) << UInt64(8 * k) }
            bytes = bytes.dropFirst(n)
            return v
        }

        mutating func packed() throws -> [UInt64] {
            var inner = Reader(bytes: try lengthDelimited())
            var out: [UInt64] = []
            while !inner.atEnd { out.append(try inner.varint()) }
            return out
        }

        mutating func skip(_ type: UInt64) throws {
            switch type {
            case 0: _ = try varint()
            case 1: _ = try fixed(8)
            case 2: _ = try lengthDelimited()
            case 5: _ = try fixed(4)
            default: throw Malformed(description: "wire type \(type)")
            }
        }
    }
}
