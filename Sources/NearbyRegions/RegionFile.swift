import Foundation
import NearbyCore

/// The boundary file `data/kr_regions.bin`, written by scripts/fetch_regions.py (provenance, licence
/// and simplification: data/README.md).
///
/// Format (little-endian; `varint` is LEB128 unsigned, `zigzag` a varint of (n << 1) ^ (n >> 63)):
///
///     "NBRG"  u32 version (1)
///     varint scale                      units per degree of the integer coordinates (1,000,000)
///     varint stringCount, then per string: varint byteCount, UTF-8 bytes  (string 0 is "")
///     layer × 2: towns (읍면동), then villages (리)
///       varint arcCount
///       per arc: varint pointCount, then pointCount × (zigzag dLon, zigzag dLat); the deltas run on
///                from the previous point of the layer, starting at (0, 0)
///       varint regionCount
///       per region: varint code (its decimal digits), varint codeLength (8 or 10),
///                   4 × varint string index (시도, 시군구, 읍면동, 리 names as the source has them,
///                   cleaned; "" where the level does not apply),
///                   varint polygonCount, per polygon: varint ringCount (shell first, then holes),
///                   per ring: varint refCount, refCount × zigzag arc reference (r ≥ 0: arc r as
///                   stored; r < 0: arc ~r reversed)
///
/// Arcs are shared by the regions on both sides, so a shared edge exists once and neighbours cannot
/// drift apart. Shells are counter-clockwise, holes clockwise; a ring's arcs join end to start.
struct RegionFile {
    struct Layer {
        /// Arc vertices, (lon, lat) in units of 1/scale degree, arc after arc.
        var points: [SIMD2<Int32>] = []
        /// Arc i is points[arcStart[i] ..< arcStart[i + 1]].
        var arcStart: [Int32] = [0]
        var regions: [SourceRegion] = []
        /// Arc references, region after region, ring after ring; region r's are
        /// refs[regionRefStart[r] ..< regionRefStart[r + 1]].
        var refs: [Int32] = []
        var regionRefStart: [Int32] = [0]
        /// Ring j is refs[ringStart[j] ..< ringStart[j + 1]]; polygon p is rings polygonStart[p] ..<
        /// polygonStart[p + 1] (shell first); region r is polygons regionPolygonStart[r] ..< [r + 1].
        var ringStart: [Int32] = [0]
        var polygonStart: [Int32] = [0]
        var regionPolygonStart: [Int32] = [0]

        /// Region r's polygons → rings → arc references.
        func polygons(region r: Int) -> [[ArraySlice<Int32>]] {
            (Int(regionPolygonStart[r])..<Int(regionPolygonStart[r + 1])).map { p in
                (Int(polygonStart[p])..<Int(polygonStart[p + 1])).map { j in
                    refs[Int(ringStart[j])..<Int(ringStart[j + 1])]
                }
            }
        }
    }

    struct SourceRegion {
        var code: String
        /// 시도, 시군구, 읍면동, 리.
        var names: [String]
    }

    struct FormatError: NearbyError {
        var path: String
        var message: String
        /// `.damaged` for a file that fails its checks, `.io` for one that cannot be read.
        var kind: ErrorKind = .damaged
        var description: String { "\(path): not a region boundary file (\(message))" }
    }

    var scale: Double
    var towns: Layer
    var villages: Layer

    init(contentsOf path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FormatError(path: path, message: "cannot read the file", kind: .io)
        }
        do {
            var reader = ByteReader(data)
            guard try reader.bytes(4) == Array("NBRG".utf8) else { throw ByteReader.Failure("no NBRG magic") }
            let version = try reader.u32()
            guard version == 1 else { throw ByteReader.Failure("version \(version), expected 1") }
            scale = Double(try reader.varint())
            let stringCount = try reader.varint()
            var strings: [String] = []
            strings.reserveCapacity(stringCount)
            for _ in 0..<stringCount {
                strings.append(String(decoding: try reader.bytes(try reader.varint()), as: UTF8.self))
            }
            // Every point takes at least 2 bytes and every reference 1: capacities that never
            // need to grow (pages never written cost no memory).
            towns = try Self.layer(&reader, strings: strings, capacity: data.count)
            villages = try Self.layer(&reader, strings: strings, capacity: data.count)
            guard reader.atEnd else { throw ByteReader.Failure("bytes left after the village layer") }
        } catch let failure as ByteReader.Failure {
            throw FormatError(path: path, message: failure.message)
        }
    }

    private static func layer(_ reader: inout ByteReader, strings: [String], capacity: Int) throws -> Layer {
        var layer = Layer()
        let arcCount = try reader.varint()
        layer.arcStart.reserveCapacity(arcCount + 1)
        layer.points.reserveCapacity(capacity / 4)
        layer.refs.reserveCapacity(capacity / 8)
        var x: Int64 = 0
        var y: Int64 = 0
        for _ in 0..<arcCount {
            let count = try reader.varint()
            guard count >= 2 else { throw ByteReader.Failure("an arc with \(count) points") }
            for _ in 0..<count {
                x += try reader.zigzag()
                y += try reader.zigzag()
                guard abs(x) < Int64(Int32.max), abs(y) < Int64(Int32.max) else {
                    throw ByteReader.Failure("coordinate out of range")
                }
                layer.points.append(SIMD2(Int32(x), Int32(y)))
            }
            layer.arcStart.append(Int32(layer.points.count))
        }
        let regionCount = try reader.varint()
        layer.regions.reserveCapacity(regionCount)
        for _ in 0..<regionCount {
            let number = try reader.varint()
            let length = try reader.varint()
            var code = String(number)
            guard code.count <= length, length <= 10 else {
                throw ByteReader.Failure("code \(number) longer than \(length)")
            }
            code = String(repeating: "0", count: length - code.count) + code
            let names = try (0..<4).map { _ in
                let index = try reader.varint()
                guard index < strings.count else { throw ByteReader.Failure("string index \(index) out of range") }
                return strings[index]
            }
            for _ in 0..<(try reader.varint()) {
                for _ in 0..<(try reader.varint()) {
                    for _ in 0..<(try reader.varint()) {
                        let r = try reader.zigzag()
                        guard (r >= 0 ? r : ~r) < arcCount else {
                            throw ByteReader.Failure("arc reference \(r) out of range")
                        }
                        layer.refs.append(Int32(r))
                    }
                    layer.ringStart.append(Int32(layer.refs.count))
                }
                layer.polygonStart.append(Int32(layer.ringStart.count - 1))
            }
            layer.regionPolygonStart.append(Int32(layer.polygonStart.count - 1))
            layer.regionRefStart.append(Int32(layer.refs.count))
            layer.regions.append(SourceRegion(code: code, names: names))
        }
        return layer
    }
}

/// Reads the file's integers; every read checks the bounds.
private struct ByteReader {
    struct Failure: NearbyError {
        var message: String
        init(_ message: String) { self.message = message }
        var description: String { message }
        var kind: ErrorKind { .damaged }
    }

    private let bytes: [UInt8]
    private var offset = 0

    init(_ data: Data) { bytes = [UInt8](data) }

    var atEnd: Bool { offset == bytes.count }

    mutating func bytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0, offset + count <= bytes.count else { throw Failure("truncated") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func u32() throws -> UInt32 {
        let b = try bytes(4)
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }

    @inline(__always) mutating func varint() throws -> Int {
        if offset + 1 < bytes.count {
            let b0 = bytes[offset]
            if b0 < 0x80 {
                offset += 1
                return Int(b0)
            }
            let b1 = bytes[offset + 1]
            if b1 < 0x80 {
                offset += 2
                return Int(b0 & 0x7F) | Int(b1) << 7
            }
        }
        return try longVarint()
    }

    private mutating func longVarint() throws -> Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count else { throw Failure("truncated") }
            let byte = bytes[offset]
            offset += 1
            guard shift < 63 else { throw Failure("varint too long") }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { break }
            shift += 7
        }
        guard value <= UInt64(Int.max) else { throw Failure("varint too large") }
        return Int(value)
    }

    @inline(__always) mutating func zigzag() throws -> Int64 {
        let raw = UInt64(try varint())
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }
}
