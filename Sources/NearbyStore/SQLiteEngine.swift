import Foundation
import NearbyCore

/// Answers queries straight from the cache's R*Tree, without loading the cache into memory
/// (`nearby query --engine sqlite`): for one-shot queries on huge caches, and as the measured baseline.
///
/// The R*Tree only narrows: it returns the places in a box that surely holds the query's circle
/// (widened, see `searchBoxes`); those candidates then go through `MemoryEngine` in scan mode, so the
/// exact distance, filters, order, paging and cursors are the very code the in-memory engine runs, and
/// both engines give identical answers. k nearest without a maximum distance searches growing circles
/// until one holds k matches.
public final class SQLiteEngine: QueryEngine {
    public let cache: PlaceCache
    /// Signs and checks cursors: pass `cache.cursorKey()`, as the `MemoryEngine` over the same cache
    /// gets, so both engines' cursors stay interchangeable.
    public let cursorKey: PageCursor.Key

    public init(cache: PlaceCache, cursorKey: PageCursor.Key = .unkeyed) {
        self.cache = cache
        self.cursorKey = cursorKey
    }

    public func run(_ q: PlaceQuery) throws -> QueryAnswer {
        if let problem = q.problem { throw problem }
        let generation = try cache.generation()
        func answer(within radius: Double?) throws -> QueryAnswer {
            let places: [Place]
            if let radius, let c = q.center {
                places = try candidates(in: Self.searchBoxes(around: c, radius: radius))
            } else if let box = q.filter.bbox ?? q.filter.region?.box {
                places = try candidates(in: Self.split(box))
            } else {
                places = try cache.allPlaces()
            }
            return try MemoryEngine(places: places, generation: generation, cursorKey: cursorKey, indexed: false).run(q)
        }
        switch q.shape {
        case .all: return try answer(within: nil)
        case .radius(let r): return try answer(within: r)
        case .knn(let k, let maxDistance):
            // Every place within `radius` is a candidate, so k matches found there are the k nearest.
            var radius = min(maxDistance ?? .infinity, 2000)
            while true {
                let a = try MemoryEngine(
                    places: try candidates(in: Self.searchBoxes(around: q.center!, radius: radius)),
                    generation: generation, cursorKey: cursorKey, indexed: false
                ).run(q, searchRadius: radius)
                if a.total >= k || radius >= (maxDistance ?? .infinity) || radius > Self.halfCircumference {
                    return a
                }
                radius = min(maxDistance ?? .infinity, radius * 4)
            }
        }
    }

    private func candidates(in boxes: [GeoBox]) throws -> [Place] {
        if boxes.count == 1 {
            let b = boxes[0]
            return try cache.candidates(minLon: b.minLon, minLat: b.minLat, maxLon: b.maxLon, maxLat: b.maxLat)
        }
        var seen = Set<String>()
        return try boxes.flatMap {
            try cache.candidates(minLon: $0.minLon, minLat: $0.minLat, maxLon: $0.maxLon, maxLat: $0.maxLat)
        }.filter { seen.insert($0.id).inserted }
    }

    /// Longer than any distance on the Earth under every model (half the equator is 20,037,508 m).
    public static let halfCircumference = 20_100_000.0

    /// Boxes (none crossing the antimeridian) that hold every point within `radius` metres of `c`
    /// under every distance model.
    ///
    /// The circle is taken on a sphere of the smallest radius of curvature of WGS84 (the meridional
    /// radius at the equator, 6,335,439 m), its radius widened by 2 %: geodesic distances are never
    /// shorter than that sphere's, and projected distances are at most 2 % short of true ones for
    /// projections whose scale factor stays ≥ 0.98 (UTM and Korea 2000 have ≥ 0.9996). The extent of
    /// a spherical cap: latitude ±angle, longitude ±asin(sin(angle) / cos(lat)), the whole circle of
    /// longitudes when the cap reaches a pole.
    public static func searchBoxes(around c: Coordinate, radius: Double) -> [GeoBox] {
        let angle = radius * 1.02 / 6_335_439 + 1e-9
        let deg = 180 / Double.pi
        guard angle < .pi else { return [GeoBox(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90)] }
        let minLat = c.lat - angle * deg, maxLat = c.lat + angle * deg
        let s = sin(angle) / cos(c.lat / deg)
        guard minLat > -90, maxLat < 90, angle < .pi / 2, s < 1 else {
            return [GeoBox(minLon: -180, minLat: max(-90, minLat), maxLon: 180, maxLat: min(90, maxLat))]
        }
        let dLon = asin(s) * deg
        return split(GeoBox(minLon: c.lon - dLon, minLat: minLat, maxLon: c.lon + dLon, maxLat: maxLat))
    }

    /// A box as boxes within −180…180: longitudes beyond are wrapped, an antimeridian box is cut in two.
    public static func split(_ b: GeoBox) -> [GeoBox] {
        var minLon = b.minLon, maxLon = b.maxLon
        if minLon < -180 { minLon += 360 }
        if maxLon > 180 { maxLon -= 360 }
        if minLon <= maxLon && b.minLon <= b.maxLon && b.minLon >= -180 && b.maxLon <= 180 { return [b] }
        return [GeoBox(minLon: minLon, minLat: b.minLat, maxLon: 180, maxLat: b.maxLat),
                GeoBox(minLon: -180, minLat: b.minLat, maxLon: maxLon, maxLat: b.maxLat)]
    }
}
