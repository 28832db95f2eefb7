/// A property value of a vector tile feature.
public enum TileValue: Sendable, Hashable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
}

/// A feature's geometry in tile pixels (integers, `extent` a side; may reach into the buffer).
public enum TileGeometry: Sendable, Equatable {
    case point(SIMD2<Int32>)
    /// Rings, each exterior ring followed by its holes; rings are open (the first point is not
    /// repeated) and wound as the specification asks: exterior rings with a positive surveyor's area
    /// in tile coordinates (y down: clockwise on screen), holes negative. `TileClip.polygon` makes them.
    case polygon([[SIMD2<Int32>]])
}

/// One feature of a layer: an optional numeric id, properties in order, a geometry.
public struct TileFeature: Sendable, Equatable {
    public var id: UInt64?
    public var properties: [(key: String, value: TileValue)]
    public var geometry: TileGeometry

    public init(id: UInt64? = nil, properties: [(key: String, value: TileValue)], geometry: TileGeometry) {
        self.id = id
        self.properties = properties
        self.geometry = geometry
    }

    public static func == (a: TileFeature, b: TileFeature) -> Bool {
        a.id == b.id && a.geometry == b.geometry && a.properties.count == b.properties.count
            && zip(a.properties, b.properties).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

/// A named layer of features.
public struct TileLayer: Sendable {
    public var name: String
    public var features: [TileFeature]
    public var extent: Int

    public init(name: String, features: [TileFeature], extent: Int = VectorTile.defaultExtent) {
        self.name = name
        self.features = features
        self.extent = extent
    }
}

/// The Mapbox Vector Tile 2.1 encoder (github.com/mapbox/vector-tile-spec): a `Tile` message of
/// layers, each with its deduplicated `keys` and `values` tables and features whose `tags` index
/// them; geometry as command integers (MoveTo, LineTo, ClosePath) with zigzag-encoded deltas from the
/// previous point, the cursor carried across the parts of a feature.
public enum VectorTile {
    public static let defaultExtent = 4096
    public static let mediaType = "application/vnd.mapbox-vector-tile"

    /// The tile's bytes (uncompressed); empty layers are left out, so a tile of nothing is zero bytes.
    public static func encode(_ layers: [TileLayer]) -> [UInt8] {
        var tile = ProtobufWriter()
        for layer in layers where !layer.features.isEmpty { tile.bytesField(3, encode(layer)) }
        return tile.bytes
    }

    static func encode(_ layer: TileLayer) -> [UInt8] {
        var keys: [String] = []
        var keyIndex: [String: UInt32] = [:]
        var values: [TileValue] = []
        var valueIndex: [TileValue: UInt32] = [:]
        var out = ProtobufWriter()
        out.varintField(15, 2)  // version
        out.stringField(1, layer.name)
        for feature in layer.features {
            var tags: [UInt32] = []
            tags.reserveCapacity(feature.properties.count * 2)
            for (key, value) in feature.properties {
                let k: UInt32
                if let known = keyIndex[key] {
                    k = known
                } else {
                    k = UInt32(keys.count)
                    keyIndex[key] = k
                    keys.append(key)
                }
                let v: UInt32
                if let known = valueIndex[value] {
                    v = known
                } else {
                    v = UInt32(values.count)
                    valueIndex[value] = v
                    values.append(value)
                }
                tags += [k, v]
            }
            var f = ProtobufWriter()
            if let id = feature.id { f.varintField(1, id) }
            f.packedField(2, tags)
            let (type, commands) = geometry(feature.geometry)
            f.varintField(3, type)
            f.packedField(4, commands)
            out.bytesField(2, f.bytes)
        }
        for key in keys { out.stringField(3, key) }
        for value in values {
            var v = ProtobufWriter()
            switch value {
            case .string(let s): v.stringField(1, s)
            case .double(let d): v.doubleField(3, d)
            case .int(let i) where i >= 0: v.varintField(5, UInt64(i))  // uint_value
            case .int(let i): v.varintField(6, ProtobufWriter.zigzag(i))  // sint_value
            case .bool(let b): v.varintField(7, b ? 1 : 0)
            }
            out.bytesField(4, v.bytes)
        }
        out.varintField(5, UInt64(layer.extent))
        return out.bytes
    }

    @inline(__always) static func command(_ id: UInt32, count: Int) -> UInt32 { id & 0x7 | UInt32(count) << 3 }

    /// The geometry type (1 point, 3 polygon) and its command integers.
    static func geometry(_ geometry: TileGeometry) -> (UInt64, [UInt32]) {
        var cursor = SIMD2<Int32>(0, 0)
        var out: [UInt32] = []
        func delta(_ p: SIMD2<Int32>) {
            out.append(ProtobufWriter.zigzag32(p.x &- cursor.x))
            out.append(ProtobufWriter.zigzag32(p.y &- cursor.y))
            cursor = p
        }
        switch geometry {
        case .point(let p):
            out.append(command(1, count: 1))
            delta(p)
            return (1, out)
        case .polygon(let rings):
            for ring in rings where ring.count >= 3 {
                out.append(command(1, count: 1))
                delta(ring[0])
                out.append(command(2, count: ring.count - 1))
                for p in ring.dropFirst() { delta(p) }
                out.append(command(7, count: 1))
            }
            return (3, out)
        }
    }
}
