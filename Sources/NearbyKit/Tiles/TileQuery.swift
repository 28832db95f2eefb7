import Foundation
import NearbyCore
import NearbyTiles

/// What a vector tile's `places` layer shows: the places of the tile's box that pass a query's
/// filters, read through the one request parser (`QueryParameters`) as `/v1/places` reads them.
///
/// A tile takes the filters (and a circle: `lat`, `lon`, `radius`, `distance`); `bbox` keeps only the
/// places in that box as well. What orders or pages a list (`knn`, `sort`, `arrange`, `limit`, `page`,
/// `cursor`, `total`, `explain`) is refused, naming the parameter, and so is a personal condition.
public struct TileQuery: Sendable, Hashable {
    /// The parsed query, every match (limit 0), no box of its own.
    public let base: PlaceQuery
    /// The `bbox` the request gave, tested on each place of the tile (it may cross the antimeridian).
    public let box: GeoBox?
    /// The request's parameters in canonical form (`QueryParameters.render`): part of a tile's ETag.
    public let canonical: String

    /// Parameters that order or page a list, which a tile is not.
    public static let refused: Set<String> = ["knn", "sort", "arrange", "limit", "page", "cursor", "total", "explain"]

    public init(_ pairs: [(name: String, value: String)], areas: (any AreaResolver)? = nil) throws(RequestError) {
        for (name, _) in pairs {
            let known = QueryParameters.parameter(named: name)?.name ?? name
            if Self.refused.contains(known) {
                throw RequestError(
                    parameter: known,
                    reason: "a tile takes filters only (not knn, sort, arrange, limit, page, cursor, total, explain)")
            }
        }
        var query = try QueryParameters.parse(pairs, areas: areas)
        if query.usesPersonalData {
            // A tile is public and kept per cache generation, which a user's writes do not change.
            let personal = pairs.first { (try? QueryParameters.parse([$0]))?.usesPersonalData == true }
            throw RequestError(
                parameter: personal?.name,
                reason: "tiles show public places only; a user's places are on /v1/clusters and /v1/places")
        }
        if query.language != .ko {
            throw RequestError(parameter: "lang", reason: "tiles show the Korean places only; use /v1/places")
        }
        query.limit = 0
        query.countsTotal = false
        box = query.filter.bbox
        query.filter.bbox = nil
        base = query
        canonical =
            QueryParameters.render(query).map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            + (box.map { "&bbox=\($0.minLon),\($0.minLat),\($0.maxLon),\($0.maxLat)" } ?? "")
    }

    /// The query for one tile: its box as the `bbox` filter, every match in id order.
    public func query(for tile: TileID) -> PlaceQuery {
        var q = base
        let b = tile.bounds
        q.filter.bbox = GeoBox(minLon: b.west, minLat: b.south, maxLon: b.east, maxLat: b.north)
        return q
    }

    /// The tile's `places` points: the places of its box that pass the filters (and `box`), one a place
    /// with `count` 1, or thinned (`PlacesLayer.thin`) when there are more than `PlacesLayer.maxFeatures`.
    /// `run` answers a query without records; `fetch` gives the places of some ids, in their order,
    /// from the same generation. Properties: `id`, `title`, `category` (TourAPI's contenttypeid),
    /// `count`.
    public func points(
        for tile: TileID, run: (PlaceQuery) throws -> QueryAnswer, fetch: ([String]) throws -> [Place]
    ) throws -> [TilePoint] {
        let answer = try run(query(for: tile))
        let rows = answer.rows
        var keptRows: [Int] = []
        var positions: [SIMD2<Double>] = []
        keptRows.reserveCapacity(rows.count)
        positions.reserveCapacity(rows.count)
        for i in rows.indices {
            let c = rows.coordinate(at: i)
            if let box, !box.contains(lat: c.lat, lon: c.lon) { continue }
            keptRows.append(i)
            positions.append(SIMD2(c.lon, c.lat))
        }
        let chosen = PlacesLayer.thin(positions, tile: tile)
        let places: [Place]
        if rows.hasRecords {
            places = chosen.map { rows[keptRows[$0.index]] }
        } else {
            // The chosen rows' ids only (a low-zoom tile's answer has every place of its box).
            var slot = [Int32](repeating: -1, count: rows.count)
            for (k, c) in chosen.enumerated() { slot[keptRows[c.index]] = Int32(k) }
            var ids = [String](repeating: "", count: chosen.count)
            rows.forEachID { i, id in
                if slot[i] >= 0 { ids[Int(slot[i])] = String(decoding: id, as: UTF8.self) }
            }
            places = try fetch(ids)
            guard places.count == ids.count, zip(places, ids).allSatisfy({ $0.id == $1 }) else {
                throw RequestError(
                    parameter: nil, reason: "the cache changed while answering; run the query again", isStale: true)
            }
        }
        return zip(places, chosen).map { place, c in Self.point(place, count: c.count) }
    }

    /// The request as clusters read it: the same places (`box` a filter), supercluster's default options.
    public var clusterRequest: ClusterRequest {
        var q = base
        q.filter.bbox = box
        return ClusterRequest(query: q)
    }

    /// The tile's `places` points at a zoom that clusters (up to the hierarchy's `maxZoom`): the entries
    /// of `clusters` in the tile's box (as `/v1/clusters?bbox=` gives them), a cluster as one point with
    /// `cluster: true`, `cluster_id`, `count` (its places) and `point_count_abbreviated`, a place alone as
    /// `points(for:run:fetch:)` gives it. `fetch` gives the places of some ids from the same generation.
    public func clusterPoints(
        for tile: TileID, clusters: PlaceClusters, fetch: ([String]) throws -> [Place]
    ) throws -> [TilePoint] {
        let b = tile.bounds
        let items = clusters.index.clusters(
            minLon: b.west, minLat: b.south, maxLon: b.east, maxLat: b.north, zoom: tile.z)
        let places = try clusters.rows(of: items).withRecords(fetch)
        var next = 0
        return items.map { item in
            guard item.isCluster else {
                defer { next += 1 }
                return Self.point(places[next], count: 1)
            }
            return TilePoint(
                lon: item.lon, lat: item.lat,
                properties: [
                    ("cluster", .bool(true)), ("cluster_id", .int(Int64(item.id))),
                    ("count", .int(Int64(item.count))),
                    ("point_count_abbreviated", .string(item.abbreviatedCount)),
                ])
        }
    }

    /// A place as a point of the `places` layer, standing for `count` places.
    static func point(_ place: Place, count: Int) -> TilePoint {
        TilePoint(
            lon: place.lon, lat: place.lat, id: PlacesLayer.featureID(place.id),
            properties: [
                ("id", .string(place.id)), ("title", .string(place.title)),
                ("category", .int(Int64(place.category))), ("count", .int(Int64(count))),
            ])
    }

    /// A whole tile: the `regions` layer (when given) under the `places` layer; empty bytes when neither
    /// holds anything.
    public static func tile(_ tile: TileID, points: [TilePoint], regions: RegionsLayer?) -> [UInt8] {
        (regions?.encoded(tile) ?? []) + VectorTile.encode([PlacesLayer.layer(points, tile: tile)])
    }
}
