import NearbyCore
import NearbyStore

/// Answers queries from a PostgreSQL/PostGIS database (`nearby query --engine postgis --pg URL`),
/// exactly as `MemoryEngine` does.
///
/// Exact by construction: PostGIS only narrows. A radius query sends the SQLite engine's widened
/// boxes (`SQLiteEngine.searchBoxes`: they hold every true answer under every distance model) to the
/// GiST index with `&&` (for large radii `ST_DWithin` on PostGIS's sphere with the same widened angle
/// also drops the box's corners); a bbox query sends its box; the filter's plain column tests go
/// along (`conditions(of:)`). The candidates then go through `MemoryEngine` in scan mode, so
/// distances, every filter, order, paging and cursors are the very code the other engines run (a
/// filter added to Core works here unchanged), and cursors are interchangeable with theirs over the
/// same places and generation. k nearest searches growing circles until one holds k matches,
/// as `SQLiteEngine` does, from a first circle sized by a KNN search (`<->`) of the GiST index.
///
/// A limited query with no filter but a box and an order by distance reads nothing of a place but
/// its id and point: then only those are fetched for the candidates, and the page's full rows by id in a
/// second statement (both statements read the generation; if an import committed between them,
/// the query runs again).
public final class PostGISEngine: QueryEngine {
    public let store: PostGISStore
    public let cursorKey: PageCursor.Key

    public init(store: PostGISStore) throws {
        self.store = store
        cursorKey = try store.cursorKey()
    }

    /// PostGIS's sphere for geography with use_spheroid = false: the mean radius of WGS84,
    /// (2a + b) / 3 (liblwgeom `spheroid_init`).
    static let postgisSphereRadius = 6_371_008.771_415

    public func run(_ q: PlaceQuery) throws -> QueryAnswer {
        if let problem = q.problem { throw problem }
        // Unlimited pages hold every match: one statement with full rows beats fetching them again by id.
        guard Self.needsOnlyPoints(q), q.limit > 0 else { return try answer(q, light: false).answer }
        for _ in 0..<3 {
            let (a, generation) = try answer(q, light: true)
            let ids = a.rows.map(\.id)
            if ids.isEmpty { return a }
            let page = try store.places(ids: ids)
            let byID = Dictionary(page.places.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let rows = ids.compactMap { byID[$0] }
            guard page.generation == generation, rows.count == ids.count else { continue }
            return QueryAnswer(total: a.total, rows: PlaceRows(places: rows), distances: a.distances, page: a.page, next: a.next)
        }
        return try answer(q, light: false).answer
    }

    /// Whether `q`'s answer depends on nothing of a place but its id and point (Core's `isEmpty`
    /// decides what a filter is, so a filter added there is never missed here).
    static func needsOnlyPoints(_ q: PlaceQuery) -> Bool {
        var f = q.filter
        f.bbox = nil
        return f.isEmpty && q.effectiveOrder.keys.allSatisfy { $0.field == .distance }
    }

    /// The answer from the candidates of `q`'s shape, with the generation they were read at.
    private func answer(_ q: PlaceQuery, light: Bool) throws -> (answer: QueryAnswer, generation: Int64) {
        let conditions = Self.conditions(of: q.filter)
        func run(_ prefilter: PostGISStore.Prefilter) throws -> (QueryAnswer, Int64) {
            let c = try store.candidates(prefilter, light: light)
            let a = try MemoryEngine(places: c.places, generation: c.generation, cursorKey: cursorKey, indexed: false).run(q)
            return (a, c.generation)
        }
        switch q.shape {
        case .all:
            var prefilter = conditions
            if let box = q.filter.bbox ?? q.filter.region?.box { prefilter.boxes = SQLiteEngine.split(box) }
            return try run(prefilter)
        case .radius(let r):
            return try run(Self.prefilter(around: q.center!, radius: r, conditions))
        case .knn(let k, let maxDistance):
            // Every place within `radius` is a candidate, so k matches found there are the k nearest. The
            // circle is found for the first page (a cursor's row may lie beyond a smaller circle that
            // already holds k matches of another order), then the query runs on its candidates.
            var first = q
            first.cursor = nil
            var radius = min(maxDistance ?? .infinity, try knnRadius(k, around: q.center!))
            while true {
                let c = try store.candidates(Self.prefilter(around: q.center!, radius: radius, conditions), light: light)
                let engine = MemoryEngine(places: c.places, generation: c.generation, cursorKey: cursorKey, indexed: false)
                let a = try engine.run(first, searchRadius: radius)
                if a.total >= k || radius >= (maxDistance ?? .infinity) || radius > SQLiteEngine.halfCircumference {
                    return (q.cursor == nil ? a : try engine.run(q, searchRadius: radius), c.generation)
                }
                radius = min(maxDistance ?? .infinity, radius * 4)
            }
        }
    }

    /// The first search circle of a k-nearest query: one just holding the k places nearest `c` by `<->`
    /// on the GiST index (their farthest on the ground, plus a millionth and a metre), so that most
    /// queries without a filter need one circle; every place when there are fewer than k. Only a
    /// first guess: the circles grow until one holds k matches under the query's own model and filter.
    func knnRadius(_ k: Int, around c: Coordinate) throws -> Double {
        let points = try store.nearestPoints(k, to: c)
        guard points.count == k else { return .infinity }
        let metric = HaversineMetric(lat: c.lat, lon: c.lon)
        return points.map { metric.distance(x: $0.lon, y: $0.lat) }.max()! * 1.000_001 + 1
    }

    /// Radii up to this many metres are prefiltered by their boxes alone: `&&` on the GiST index costs
    /// less than `ST_DWithin` on a geography made from each row's geometry, and the box's corners add
    /// about a third more candidates at most; beyond, the circle also drops the corners, which then
    /// hold many places (BENCHMARKS.md, "PostGIS engine").
    static let boxOnlyRadius = 100_000.0

    /// The boxes around `c` and, beyond `boxOnlyRadius` and unless they reach a pole, the circle on
    /// PostGIS's sphere whose angle is their half height: the spherical cap they were made from, so it
    /// too holds every true answer (widened by a millionth and a metre against rounding in PostGIS).
    static func prefilter(around c: Coordinate, radius: Double, _ conditions: PostGISStore.Prefilter) -> PostGISStore.Prefilter {
        var p = conditions
        p.boxes = SQLiteEngine.searchBoxes(around: c, radius: radius)
        guard radius > boxOnlyRadius else { return p }
        let b = p.boxes[0]
        var angle: Double?
        if b.maxLat < 90 { angle = b.maxLat - c.lat } else if b.minLat > -90 { angle = c.lat - b.minLat }
        p.within = angle.map { (center: c, metres: $0 * .pi / 180 * postgisSphereRadius * 1.000_001 + 1) }
        return p
    }

    /// The conditions of `f` that are plain tests of a row's columns, as SQL narrows by them. The
    /// others (keyword, dates, code families, region) are left to `MemoryEngine`, which checks all.
    static func conditions(of f: PlaceFilter) -> PostGISStore.Prefilter {
        var p = PostGISStore.Prefilter()
        p.categories = f.categories
        p.areacodes = f.areacodes
        p.sigungucodes = f.sigungucodes
        p.accessMask = Accessibility.mask(f.accessibility) ?? 0
        p.withImage = f.withImage
        return p
    }
}
