/// A point to draw in a tile's `places` layer: a place, or (from a clustering step) a group of places,
/// with the properties its feature carries.
public struct TilePoint: Sendable {
    public var lon: Double
    public var lat: Double
    /// The feature's numeric id (a place id made of decimal digits), or nil.
    public var id: UInt64?
    public var properties: [(key: String, value: TileValue)]

    public init(lon: Double, lat: Double, id: UInt64? = nil, properties: [(key: String, value: TileValue)]) {
        self.lon = lon
        self.lat = lat
        self.id = id
        self.properties = properties
    }
}

/// The `places` layer: one point feature per `TilePoint`. Places come from the engine, one feature a
/// place (`count` 1) up to `maxFeatures`; a tile whose box holds more is thinned (`thin`). A
/// clustering step hands its clusters in as `TilePoint`s too (`count` = the points it holds).
public enum PlacesLayer {
    public static let name = "places"

    /// Place features a tile holds at most.
    public static let maxFeatures = 4_096

    /// Cells a side of the thinning grid: `maxFeatures` cells of 64 × 64 tile pixels at extent 4096
    /// (4 screen pixels of a 256-pixel tile).
    public static let thinningGrid = 64

    /// The layer of `points` in `tile`: each at its pixel (rounded) in the tile's own space. Points are
    /// taken as they come (the caller picks those of the tile's box).
    public static func layer(_ points: [TilePoint], tile: TileID, extent: Int = VectorTile.defaultExtent) -> TileLayer {
        let projection = TileProjection(tile: tile, extent: extent)
        let features = points.map { point in
            let p = projection.pixel(lon: point.lon, lat: point.lat)
            return TileFeature(
                id: point.id, properties: point.properties,
                geometry: .point(SIMD2(Int32(p.x.rounded()), Int32(p.y.rounded()))))
        }
        return TileLayer(name: name, features: features, extent: extent)
    }

    /// Which of a tile's places to draw, and how many places each stands for: all of them (each for
    /// 1) when there are at most `maxFeatures`; otherwise the first place, in the given order, of each
    /// cell of a `thinningGrid` × `thinningGrid` grid over the tile, standing for every place of its cell.
    /// `positions` are (lon, lat) of the places in the tile's box.
    public static func thin(_ positions: [SIMD2<Double>], tile: TileID) -> [(index: Int, count: Int)] {
        guard positions.count > maxFeatures else { return positions.indices.map { ($0, 1) } }
        let projection = TileProjection(tile: tile, extent: thinningGrid)
        var firstInCell = [Int32](repeating: -1, count: thinningGrid * thinningGrid)
        var counts = [Int32](repeating: 0, count: thinningGrid * thinningGrid)
        var order: [Int] = []
        for (i, position) in positions.enumerated() {
            let p = projection.pixel(lon: position.x, lat: position.y)
            let cx = min(thinningGrid - 1, max(0, Int(p.x.rounded(.down))))
            let cy = min(thinningGrid - 1, max(0, Int(p.y.rounded(.down))))
            let cell = cy * thinningGrid + cx
            if firstInCell[cell] < 0 {
                firstInCell[cell] = Int32(i)
                order.append(cell)
            }
            counts[cell] += 1
        }
        return order.map { (Int(firstInCell[$0]), Int(counts[$0])) }
    }

    /// A place's feature id: its id when it is a decimal number that fits 64 bits, else nil.
    public static func featureID(_ id: String) -> UInt64? {
        guard !id.isEmpty, id.utf8.count <= 20, id.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt64(id)
    }
}
