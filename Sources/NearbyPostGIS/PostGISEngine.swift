import NearbyCore
import NearbyStore

/// Answers queries from a PostgreSQL/PostGIS database (`nearby query --engine postgis --pg URL`),
/// exactly as `MemoryEngine` does, with the same cursors.
///
/// Three plans, by what SQL can answer exactly (`PostGISFilter` turns a filter into column tests
/// on the keys `MemoryEngine` compares):
/// - no shape, an order without distance: all in SQL (`keysetPage`): filter, ORDER BY, LIMIT and a
///   keyset condition from the cursor's row, an index walk of the order's index
///   (`007_order_indexes.sql`) that reads about a page of rows; the total is a count over the same
///   indexes, or the maintained row count when nothing filters, and none with `--total none`;
/// - ordered by distance alone: the filter and a prefilter that surely holds the circle in SQL
///   (the SQLite engine's widened boxes, `SQLiteEngine.searchBoxes`, on the GiST index with `&&`;
///   beyond 100 km also `ST_DWithin` on PostGIS's sphere with the same widened angle), the ids and
///   points back, exact distances here under the query's model, then the page's rows by id;
/// - anything else (keyword, region, code families, pet, a projected model, orders mixing distance
///   with other keys, personal conditions and sort keys): the candidates narrowed by the tests SQL has,
///   then `MemoryEngine` in scan mode. A personal query's data is the one attached to it
///   (`PlaceQuery.personalData`), else the user's rows of the personal tables (`PostGISPersonal.swift`),
///   read once for the query; `PostGISFilter` narrows to the user's items when a condition needs one.
/// `PlaceQuery.explain` gets PostgreSQL's plan of a keyset page, and the candidates read by the others.
/// k nearest searches growing circles until one holds k matches, as `SQLiteEngine` does, from a
/// first circle sized by a KNN search (`<->`) of the GiST index.
public final class PostGISEngine: QueryEngine {
    public let store: PostGISStore
    public let cursorKey: PageCursor.Key

    public init(store: PostGISStore) throws {
        self.store = store
        cursorKey = try store.cursorKey()
    }

    /// The engine over the database at `url` (libpq's URL or key=value form), read-only: what
    /// `--engine postgis --pg URL` opens.
    public static func open(url: String) throws -> PostGISEngine {
        try PostGISEngine(store: PostGISStore(url: url, readOnly: true))
    }

    /// PostGIS's sphere for geography with use_spheroid = false: the mean radius of WGS84,
    /// (2a + b) / 3 (liblwgeom `spheroid_init`).
    static let postgisSphereRadius = 6_371_008.771_415

    public func run(_ q: PlaceQuery) throws -> QueryAnswer {
        if let problem = q.problem { throw problem }
        var q = q
        // A personal query answers with the data it was given (the caller writes its output fields from
        // the same data), else with the user's data read from the personal tables now.
        if q.usesPersonalData && q.personalData == nil {
            q.personalData = PersonalDataRef(try store.personalData(user: q.personal.user))
        }
        let filter =
            q.usesPersonalData
            ? PostGISFilter(q.filter, personal: q.personal, data: q.personalData?.data) : PostGISFilter(q.filter)
        switch Self.plan(q, filter) {
        case .keyset: return try keysetPage(q, filter, Self.distance(q))
        case .distance: if let a = try distancePage(q, filter, Self.distance(q)!) { return a }
        case .scan: break
        }
        return try scan(q, filter)
    }

    /// The three plans of the type's documentation.
    enum Plan { case keyset, distance, scan }

    static func plan(_ q: PlaceQuery, _ filter: PostGISFilter) -> Plan {
        // Personal conditions and sort keys are `MemoryEngine`'s, on candidates SQL narrowed.
        if q.usesPersonalData { return .scan }
        let measured = distance(q) != nil
        guard filter.isExact && (q.center == nil || measured) else { return .scan }
        if q.shape == .all && !q.effectiveOrder.usesDistance { return .keyset }
        return measured && q.effectiveOrder.keys == [SortKey(.distance)] ? .distance : .scan
    }

    /// Distance in metres from `q`'s centre to (lat, lon) under its model, as `MemoryEngine` measures
    /// it; nil without a centre, and for a projected model (PROJ on every row, and rows it cannot
    /// place drop out of answers: left to `MemoryEngine`).
    static func distance(_ q: PlaceQuery) -> ((_ lat: Double, _ lon: Double) -> Double)? {
        guard let c = q.center else { return nil }
        switch q.distance {
        case .haversine:
            let m = HaversineMetric(lat: c.lat, lon: c.lon)
            return { m.distance(x: $1, y: $0) }
        case .geodesic:
            let m = GeodesicMetric(lat: c.lat, lon: c.lon)
            return { m.distance(x: $1, y: $0) }
        case .projected:
            return nil
        }
    }

    /// The decoded cursor of `q`, refused as `MemoryEngine` refuses it when malformed.
    private func cursor(of q: PlaceQuery) throws -> PageCursor? {
        try q.cursor.map { text in
            guard let c = PageCursor(decoding: text, key: cursorKey) else { throw RequestError.malformedCursor }
            return c
        }
    }

    /// A query with no shape and no distance in its order: the page in SQL (`PostGISStore.keysetPage`).
    private func keysetPage(_ q: PlaceQuery, _ filter: PostGISFilter, _ distance: ((Double, Double) -> Double)?) throws
        -> QueryAnswer
    {
        let cursor = try cursor(of: q)
        var prefilter = PostGISStore.Prefilter(tests: filter.tests)
        if let box = q.filter.bbox { prefilter.boxes = SQLiteEngine.split(box) }
        let offset = cursor == nil ? (q.page - 1) * q.limit : 0
        let page = try store.keysetPage(
            prefilter, order: q.effectiveOrder, after: cursor?.id, limit: q.limit, offset: offset,
            counting: q.countsTotal)
        if let cursor,
            cursor.fingerprint != PageCursor.fingerprint(of: q, generation: page.generation) || !page.cursorFound
        {
            throw RequestError.staleCursor
        }
        var places = page.places
        let more = q.limit > 0 && places.count > q.limit
        if more { places.removeLast() }
        let distances = places.map { p in distance?(p.lat, p.lon) }
        let number = cursor.map { $0.page + 1 } ?? q.page
        let next =
            more
            ? QueryAnswer.NextPage(
                query: q, generation: page.generation, key: cursorKey, page: number,
                distance: (distances.last ?? nil) ?? 0, id: places.last!.id) : nil
        var explanation: QueryExplanation?
        if q.explain {
            let e = try store.explainKeysetPage(
                prefilter, order: q.effectiveOrder, after: cursor?.id, limit: q.limit, offset: offset,
                counting: q.countsTotal)
            explanation = QueryExplanation(
                plan: "postgis keyset page in SQL: " + e.plan.joined(separator: " | "), rowsTouched: e.rowsRead)
        }
        return QueryAnswer(
            total: page.total, rows: PlaceRows(places: places), distances: distances, page: number, next: next,
            explanation: explanation)
    }

    /// A query ordered by distance alone: candidates' ids and points from SQL (whole rows when the
    /// page is every match), ranked here by exact distance then id, the page's rows then fetched by id.
    /// Nil when imports kept committing between the two statements (the caller scans instead).
    private func distancePage(_ q: PlaceQuery, _ filter: PostGISFilter, _ distance: (Double, Double) -> Double) throws
        -> QueryAnswer?
    {
        let cursor = try cursor(of: q)
        let conditions = PostGISStore.Prefilter(tests: filter.tests)
        let full = q.limit == 0
        for _ in 0..<3 {
            var ranked: RankedPoints
            switch q.shape {
            case .all:
                var p = conditions
                if let box = q.filter.bbox { p.boxes = SQLiteEngine.split(box) }
                ranked = RankedPoints(try store.points(p, full: full), distance, within: .infinity)
            case .radius(let r):
                ranked = RankedPoints(
                    try store.points(Self.prefilter(around: q.center!, radius: r, conditions), full: full),
                    distance, within: r)
            case .knn(let k, let maxDistance):
                ranked = try growingCircles(k, maxDistance, around: q.center!) { radius in
                    let r = RankedPoints(
                        try store.points(Self.prefilter(around: q.center!, radius: radius, conditions), full: full),
                        distance, within: radius, first: k)
                    return (r.order.count, r)
                }
            }
            let generation = ranked.points.generation
            // Page: skip `offset` rows of the order, keep `limit` (0 = all), or resume after the cursor's row.
            var start = 0
            var offset = (q.page - 1) * q.limit
            var number = q.page
            if let cursor {
                guard cursor.fingerprint == PageCursor.fingerprint(of: q, generation: generation),
                    ranked.points.ids.contains(cursor.id)
                else { throw RequestError.staleCursor }
                start = ranked.firstAfter(distance: cursor.distance, id: cursor.id)
                offset = 0
                number = cursor.page + 1
            }
            let remaining = ranked.order.count - start
            let end = q.limit == 0 ? remaining : min(remaining, offset + q.limit)
            let rows = offset < end ? Array(ranked.order[(start + offset)..<(start + end)]) : []
            var places: [Place]
            if full {
                places = rows.map { ranked.points.places[$0] }
            } else {
                let ids = rows.map { ranked.points.ids[$0] }
                let fetched = try store.places(ids: ids)
                let byID = Dictionary(fetched.places.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
                places = ids.compactMap { byID[$0] }
                guard fetched.generation == generation, places.count == ids.count else { continue }
            }
            let distances = rows.map { Optional(ranked.distances[$0]) }
            var next: QueryAnswer.NextPage?
            if q.limit > 0, let last = rows.last, remaining > offset + rows.count {
                next = QueryAnswer.NextPage(
                    query: q, generation: generation, key: cursorKey, page: number,
                    distance: ranked.distances[last], id: ranked.points.ids[last])
            }
            let explanation =
                q.explain
                ? QueryExplanation(
                    plan: "postgis distance: candidates by the GiST index (&& on the circle's boxes"
                        + (q.filter.isEmpty ? "" : ", the filter in SQL")
                        + "), exact distances and order here", rowsTouched: ranked.points.ids.count) : nil
            return QueryAnswer(
                total: q.countsTotal ? ranked.order.count : nil, rows: PlaceRows(places: places), distances: distances,
                page: number, next: next, explanation: explanation)
        }
        return nil
    }

    /// Any other query: the candidates narrowed by the filter's SQL tests and the shape's prefilter,
    /// then `MemoryEngine` in scan mode, which checks every condition.
    private func scan(_ q: PlaceQuery, _ filter: PostGISFilter) throws -> QueryAnswer {
        let conditions = PostGISStore.Prefilter(tests: filter.tests)
        var candidates = 0
        func engine(_ p: PostGISStore.Prefilter) throws -> MemoryEngine {
            let c = try store.points(p, full: true)
            candidates = c.places.count
            return MemoryEngine(places: c.places, generation: c.generation, cursorKey: cursorKey, indexed: false)
        }
        var answer = try scanAnswer(q, conditions, engine)
        if q.explain {
            let inner = answer.explanation.map { "; then \($0.plan)" } ?? ""
            answer.explanation = QueryExplanation(
                plan: "postgis scan: \(candidates) candidates by the filter's SQL tests and the shape's boxes\(inner)",
                rowsTouched: candidates + (answer.explanation?.rowsTouched ?? 0))
        }
        return answer
    }

    /// `scan`'s answer on the candidates `engine` reads for a prefilter.
    private func scanAnswer(
        _ q: PlaceQuery, _ conditions: PostGISStore.Prefilter, _ engine: (PostGISStore.Prefilter) throws -> MemoryEngine
    ) throws -> QueryAnswer {
        switch q.shape {
        case .all:
            var p = conditions
            if let box = q.filter.bbox ?? q.filter.region?.box { p.boxes = SQLiteEngine.split(box) }
            return try engine(p).run(q)
        case .radius(let r):
            return try engine(Self.prefilter(around: q.center!, radius: r, conditions)).run(q)
        case .knn(let k, let maxDistance):
            // The circle is found for the first page (a cursor's row may lie beyond a smaller circle that
            // already holds k matches of another order), then the query runs on its candidates.
            // Its neighbours are counted, total or not: they decide whether to widen.
            var first = q
            first.cursor = nil
            first.countsTotal = true
            var (e, a, radius) = try growingCircles(k, maxDistance, around: q.center!) { radius in
                let e = try engine(Self.prefilter(around: q.center!, radius: radius, conditions))
                let a = try e.run(first, searchRadius: radius)
                return (a.total!, (e, a, radius))
            }
            if !q.countsTotal { a.total = nil }
            return q.cursor == nil ? a : try e.run(q, searchRadius: radius)
        }
    }

    /// `search` on circles around `c` growing from `knnRadius` until one holds k matches (`search`
    /// says how many it found), reaches `maxDistance` or half the earth: every place within a circle is
    /// a candidate, so k matches found there are the k nearest.
    private func growingCircles<T>(
        _ k: Int, _ maxDistance: Double?, around c: Coordinate,
        _ search: (Double) throws -> (found: Int, result: T)
    ) throws -> T {
        var radius = min(maxDistance ?? .infinity, try knnRadius(k, around: c))
        while true {
            let (found, result) = try search(radius)
            if found >= k || radius >= (maxDistance ?? .infinity) || radius > SQLiteEngine.halfCircumference {
                return result
            }
            radius = min(maxDistance ?? .infinity, radius * 4)
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
    static func prefilter(around c: Coordinate, radius: Double, _ conditions: PostGISStore.Prefilter)
        -> PostGISStore.Prefilter
    {
        var p = conditions
        p.boxes = SQLiteEngine.searchBoxes(around: c, radius: radius)
        guard radius > boxOnlyRadius else { return p }
        let b = p.boxes[0]
        var angle: Double?
        if b.maxLat < 90 { angle = b.maxLat - c.lat } else if b.minLat > -90 { angle = c.lat - b.minLat }
        p.within = angle.map { (center: c, metres: $0 * .pi / 180 * postgisSphereRadius * 1.000_001 + 1) }
        return p
    }
}

/// Fetched candidates within a distance of the centre, in `MemoryEngine`'s order for a query ordered
/// by distance: distance, then id (`PlaceTable.idPrecedes`).
struct RankedPoints {
    let points: PostGISStore.Points
    /// Each candidate's distance, by its index in `points`.
    let distances: [Double]
    /// Indices of the candidates within the distance, in order (the first `first` of them).
    let order: [Int]

    init(
        _ points: PostGISStore.Points, _ distance: (Double, Double) -> Double, within radius: Double, first: Int = .max
    ) {
        self.points = points
        let distances = points.ids.indices.map { distance(points.lats[$0], points.lons[$0]) }
        let order = distances.indices.filter { distances[$0] <= radius }.sorted { a, b in
            distances[a] < distances[b]
                || (distances[a] == distances[b] && PlaceTable.idPrecedes(points.ids[a], points.ids[b]))
        }
        self.distances = distances
        self.order = Array(order.prefix(first))
    }

    /// The position in `order` of the first candidate after (distance, id).
    func firstAfter(distance d: Double, id: String) -> Int {
        var lo = 0
        var hi = order.count
        while lo < hi {
            let mid = (lo + hi) / 2
            let i = order[mid]
            let after = distances[i] > d || (distances[i] == d && PlaceTable.idPrecedes(id, points.ids[i]))
            if after { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}
