import Foundation
import HTTPTypes
import Hummingbird
import NearbyKit

/// `GET /tiles/{z}/{x}/{y}.mvt`: a Mapbox Vector Tile of the places that pass the request's filters
/// (`TileQuery`: `/v1/places`' parser) and of the region boundaries (`RegionsLayer`, made once per tile
/// while the server runs). docs/tiles.md.
struct TilesAPI: Sendable {
    let engine: LiveEngine
    let options: ServerOptions
    let regions: RegionsSource
    /// The hierarchies the `places` layer reads up to the clusters' `maxZoom` (`/v1/clusters`' own).
    let clusters: ClustersAPI
    /// The answers of coarse tiles (below `smallFromZoom`) as sent, by generation, tile, query and
    /// encoding: such a tile reads every place of a large box and is the same until an import, so a
    /// repeat costs neither the encoding nor the gzip.
    let coarseTiles = TileBytesCache(budget: 32 << 20)

    /// Tiles from this zoom on run at once when a lane is free, as small pages do (their boxes hold
    /// few places); coarser tiles wait in the long line, off the event loops.
    static let smallFromZoom = 12

    /// Changes when the tiles' contents change for the same cache and query (part of every ETag).
    static let version = "2"

    static let cacheControl = "public, max-age=60"

    func tile(_ request: Request, z rawZ: String, x rawX: String, y rawY: String) async throws -> Response {
        let z = try Self.integer(rawZ, "z", in: 0...TileID.maxZoom)
        let n = 1 << z
        let x = try Self.integer(rawX, "x", in: 0...(n - 1))
        let y = try Self.integer(rawY, "y", in: 0...(n - 1))
        let tile = TileID(z: z, x: x, y: y)
        let pairs = try PlacesAPI.pairs(request)
        let query: TileQuery
        do { query = try TileQuery(pairs, areas: RegionAreas.shared) } catch { throw APIError(error) }

        let snapshot = engine.current
        let etag = "\"" + Self.etag(generation: snapshot.generation, query: query.canonical) + "\""
        var headers: HTTPFields = [:]
        headers[.eTag] = etag
        headers[.cacheControl] = Self.cacheControl
        headers[.vary] = "Accept-Encoding"
        headers[.xCacheGeneration] = String(snapshot.generation)
        if let match = request.headers[.ifNoneMatch], Self.matches(match, etag) {
            return Response(status: .notModified, headers: headers)
        }
        let layer = try await regions.loadedLayer()
        let gzip = Self.acceptsGzip(request.headers[.acceptEncoding])
        headers[.contentType] = VectorTile.mediaType
        if gzip { headers[.contentEncoding] = "gzip" }
        let key = "\(snapshot.generation) \(tile) \(query.canonical)\(gzip ? " gzip" : "")"
        var body: [UInt8]
        if z < Self.smallFromZoom, let known = coarseTiles.bytes(key) {
            body = known
        } else {
            let points: [TilePoint]
            if z <= ClusterOptions().maxZoom {
                // Clusters of every match (kept per generation for every place and each content type).
                let hierarchy = try await clusters.hierarchy(query.clusterRequest, snapshot)
                points = try await ClustersAPI.offload {
                    try query.clusterPoints(for: tile, clusters: hierarchy) { try snapshot.places(ids: $0) }
                }
            } else {
                points = try await snapshot.withLane(small: z >= Self.smallFromZoom, timeout: options.requestTimeout) {
                    engine, fetch in
                    try query.points(for: tile, run: { try engine.run($0, records: false) }, fetch: fetch)
                }
            }
            body = layer.encoded(tile) + VectorTile.encode([PlacesLayer.layer(points, tile: tile)])
            if gzip { body = try Gzip.compress(body) }
            if z < Self.smallFromZoom { coarseTiles.keep(key, body) }
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A path segment as an integer in `range`, or a 400 naming it.
    static func integer(_ text: String, _ name: String, in range: ClosedRange<Int>) throws -> Int {
        guard text.utf8.count <= 9, !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let v = Int(text), range.contains(v)
        else {
            throw APIError(
                .badRequest, parameter: name,
                "\(RequestError.quoted(text)) is not a whole number in \(range.lowerBound)…\(range.upperBound)")
        }
        return v
    }

    /// `generation-version-hash`: a tile's content is a function of the cache generation, the tile
    /// encoder's version and the query (the URL's path names the tile).
    static func etag(generation: Int64, query: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a 64
        for byte in query.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return "g\(generation)-t\(version)-" + String(hash, radix: 16)
    }

    /// `If-None-Match`: `*` or a list holding the tag (weak tags compare as their strong form).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { part in
            var t = part.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("W/") { t.removeFirst(2) }
            return t == "*" || t == etag
        }
    }

    /// `Accept-Encoding` names gzip (or `*`) without `q=0`.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        for part in header.split(separator: ",") {
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = fields.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else { continue }
            let q = fields.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return q > 0
        }
        return false
    }
}

/// The region boundaries for the tiles: loaded with the region index on the first tile, once per
/// process (the index is `RegionAreas.shared`'s, and a layer's simplified zooms and tiles never change).
final class RegionsSource: @unchecked Sendable {
    static let shared = RegionsSource()

    private let lock = NSLock()
    private var loaded: RegionsLayer?

    /// `layer()`, loaded on a dispatch queue the first time: the region index takes a few hundred
    /// milliseconds (seconds in a debug build), which on an event loop would stall every connection
    /// it serves (a map page asks for its tiles and its clusters at once).
    func loadedLayer() async throws -> RegionsLayer {
        if let loaded = lock.withLock({ loaded }) { return loaded }
        return try await ClustersAPI.offload { try self.layer() }
    }

    func layer() throws -> RegionsLayer {
        lock.lock()
        defer { lock.unlock() }
        if let loaded { return loaded }
        let index: RegionIndex
        do { index = try RegionAreas.shared.index() } catch {
            throw APIError(.serviceUnavailable, "the region index cannot be loaded: \(error)")
        }
        let layer = RegionsLayer(index: index)
        loaded = layer
        return layer
    }
}

/// Encoded tiles by key, up to `budget` bytes, the oldest dropped first.
final class TileBytesCache: @unchecked Sendable {
    private let budget: Int
    private let lock = NSLock()
    private var entries: [String: [UInt8]] = [:]
    private var order: [String] = []
    private var orderStart = 0
    private var total = 0

    init(budget: Int) { self.budget = budget }

    func bytes(_ key: String) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        return entries[key]
    }

    func keep(_ key: String, _ bytes: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        guard entries[key] == nil else { return }
        entries[key] = bytes
        order.append(key)
        total += bytes.count + key.utf8.count + 64
        while total > budget, orderStart < order.count {
            let old = order[orderStart]
            orderStart += 1
            total -= (entries.removeValue(forKey: old)?.count ?? 0) + old.utf8.count + 64
        }
        if orderStart > 1024 {
            order.removeFirst(orderStart)
            orderStart = 0
        }
    }
}
