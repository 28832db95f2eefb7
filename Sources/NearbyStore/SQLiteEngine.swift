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

    /// Projections by EPSG code, made on first use (building one reads PROJ's database).
    private var projections: [Int: Projection] = [:]
    private let lock = NSLock()

    public func run(_ q: PlaceQuery) throws -> QueryAnswer {
        if let problem = q.problem { throw problem }
        let generation = try cache.generation()
        func answer(within radius: Double?) throws -> QueryAnswer {
            let places: [Place]
            if let radius, let c = q.center {
                places = try candidates(in: searchBoxes(around: c, radius: radius, q.distance))
            } else if let box = q.filter.bbox ?? q.filter.region?.box {
                places = try candidates(in: Self.split(box))
            } else {
                places = try cache.places(of: .ko)
            }
            return try MemoryEngine(places: places, generation: generation, cursorKey: cursorKey, indexed: false).run(q)
        }
        switch q.shape {
        case .all: return try answer(within: nil)
        case .radius(let r): return try answer(within: r)
        case .knn(let k, let maxDistance):
            // Every place within `radius` is a candidate, so k matches found there are the k nearest.
            // A cursor's row must be a candidate too (the engine resumes after it): start at its distance.
            let after = q.cursor.flatMap { PageCursor(decoding: $0, key: cursorKey)?.distance } ?? 0
            var radius = min(maxDistance ?? .infinity, max(2000, after.isFinite ? after : 0))
            // The neighbours found decide whether to widen, so they are counted even when not asked for.
            var counted = q
            counted.countsTotal = true
            while true {
                var a = try MemoryEngine(
                    places: try candidates(in: searchBoxes(around: q.center!, radius: radius, q.distance)),
                    generation: generation, cursorKey: cursorKey, indexed: false
                ).run(counted, searchRadius: radius)
                if a.total! >= k || radius >= (maxDistance ?? .infinity) || radius > Self.halfCircumference {
                    if !q.countsTotal {
                        // The answer is the query's: its next page must not count what it did not ask for.
                        a.total = nil
                        a.next?.query.countsTotal = false
                    }
                    return a
                }
                radius = min(maxDistance ?? .infinity, radius * 4)
            }
        }
    }

    /// `run`; without `records`, the rows keep only their ids and distances (`PlaceRows.keepingOnlyIDs`),
    /// not the candidates' records: a large page written slowly (the server streams it, fetching its
    /// records by id a chunk at a time) then holds some 20 bytes a row, not the candidates it came from.
    public func run(_ q: PlaceQuery, records: Bool) throws -> QueryAnswer {
        var answer = try run(q)
        if !records { answer.rows = answer.rows.keepingOnlyIDs() }
        return answer
    }

    /// The Korean places in the boxes (a language's places are answered apart: `TourLanguage`).
    private func candidates(in boxes: [GeoBox]) throws -> [Place] {
        if boxes.count == 1 {
            let b = boxes[0]
            return try cache.candidates(minLon: b.minLon, minLat: b.minLat, maxLon: b.maxLon, maxLat: b.maxLat)
                .filter { TourLanguage.isKorean(id: $0.id) }
        }
        var seen = Set<String>()
        return try boxes.flatMap {
            try cache.candidates(minLon: $0.minLon, minLat: $0.minLat, maxLon: $0.maxLon, maxLat: $0.maxLat)
        }.filter { TourLanguage.isKorean(id: $0.id) && seen.insert($0.id).inserted }
    }

    /// Longer than any distance on the Earth under every model (half the equator is 20,037,508 m).
    public static let halfCircumference = 20_100_000.0

    /// Boxes holding every point within `radius` metres of `c` under `model`.
    ///
    /// Haversine and geodesic distances are ground distances: `searchBoxes(around:radius:)`. A projected
    /// distance is measured in the plane, where a path is `k` times its length on the ellipsoid, `k`
    /// varying with place and direction; its smallest value at a point is the semi-minor axis of
    /// Tissot's indicatrix (`Projection.minimumScale`, from PROJ's `proj_factors`), which falls well
    /// below 1 away from a projection's centre (0.79 for EPSG:3035 at Seoul, 0.97 for EPSG:3413 at the
    /// pole). Claim: if `k ≥ k₀` everywhere in the ground cap of radius `R = r / k₀` around `c`, every
    /// point P within `r` of `c` in the plane lies in that cap. Proof: the straight segment from c to P
    /// in the plane is the image of a path from c to P on the ellipsoid; were P outside the cap, the
    /// path would cross the cap's edge at some Q, its part from c to Q being at least R long on the
    /// ground (the geodesic is the shortest path) and so at least `k₀ R = r` long in the plane, leaving
    /// nothing of the segment (length ≤ r) to go on beyond Q. (The segment must lie in the projection's
    /// image; a point it cannot reach is at infinite distance in the engines anyway.)
    /// `k₀` is found by fixed point: the minimum of `minimumScale` over a 9 × 9 grid on the cap's box
    /// (centre and corners included), the cap regrown until that minimum stops falling; the 2 % margin
    /// of `searchBoxes(around:radius:)` covers the scale's dip between grid points (the scale is smooth
    /// and the grid step at most an eighth of the box). Where PROJ cannot give a scale, or the cap
    /// would reach a quarter of the way round the Earth, every place is a candidate: slower, never wrong.
    func searchBoxes(around c: Coordinate, radius: Double, _ model: DistanceModel) throws -> [GeoBox] {
        guard case .projected(let crs) = model, radius > 0 else { return Self.searchBoxes(around: c, radius: radius) }
        let world = [GeoBox(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90)]
        let projection = try projection(crs.epsgCode(lat: c.lat, lon: c.lon))
        guard var k0 = projection.minimumScale(lat: c.lat, lon: c.lon) else { return world }
        for _ in 0..<16 {
            let ground = radius / k0
            guard ground < Self.halfCircumference / 2 else { return world }
            var k = k0
            for box in Self.searchBoxes(around: c, radius: ground) {
                for i in 0...8 {
                    for j in 0...8 {
                        let lat = box.minLat + (box.maxLat - box.minLat) * Double(i) / 8
                        let lon = box.minLon + (box.maxLon - box.minLon) * Double(j) / 8
                        guard let s = projection.minimumScale(lat: lat, lon: lon) else { return world }
                        k = min(k, s)
                    }
                }
            }
            if k >= k0 { return Self.searchBoxes(around: c, radius: ground) }
            k0 = k
        }
        return world
    }

    private func projection(_ epsg: Int) throws -> Projection {
        lock.lock()
        defer { lock.unlock() }
        if let p = projections[epsg] { return p }
        let p = try Projection(epsg: epsg)
        projections[epsg] = p
        return p
    }

    /// Boxes (none crossing the antimeridian) that hold every point within `radius` metres of `c`
    /// on the ground (haversine or geodesic distance; projected ones go through the method above).
    ///
    /// The circle is taken on a sphere of the smallest radius of curvature of WGS84 (the meridional
    /// radius at the equator, 6,335,439 m), its radius widened by 2 %: geodesic distances are never
    /// shorter than that sphere's (the 2 % is the margin of the projected case). The extent of
    /// a spherical cap: latitude ±angle, longitude ±asin(sin(angle) / cos(lat)), the whole circle of
    /// longitudes when the cap reaches a pole.
    public static func searchBoxes(around c: Coordinate, radius: Double) -> [GeoBox] {
        let angle = radius * 1.02 / 6_335_439 + 1e-9
        let deg = 180 / Double.pi
        guard angle < .pi else { return [GeoBox(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90)] }
        let minLat = c.lat - angle * deg
        let maxLat = c.lat + angle * deg
        let s = sin(angle) / cos(c.lat / deg)
        guard minLat > -90, maxLat < 90, angle < .pi / 2, s < 1 else {
            return [GeoBox(minLon: -180, minLat: max(-90, minLat), maxLon: 180, maxLat: min(90, maxLat))]
        }
        let dLon = asin(s) * deg
        return split(GeoBox(minLon: c.lon - dLon, minLat: minLat, maxLon: c.lon + dLon, maxLat: maxLat))
    }

    /// A box as boxes within −180…180: longitudes beyond are wrapped, an antimeridian box is cut in two.
    public static func split(_ b: GeoBox) -> [GeoBox] {
        var minLon = b.minLon
        var maxLon = b.maxLon
        if minLon < -180 { minLon += 360 }
        if maxLon > 180 { maxLon -= 360 }
        if minLon <= maxLon && b.minLon <= b.maxLon && b.minLon >= -180 && b.maxLon <= 180 { return [b] }
        return [
            GeoBox(minLon: minLon, minLat: b.minLat, maxLon: 180, maxLat: b.maxLat),
            GeoBox(minLon: -180, minLat: b.minLat, maxLon: maxLon, maxLat: b.maxLat),
        ]
    }
}
