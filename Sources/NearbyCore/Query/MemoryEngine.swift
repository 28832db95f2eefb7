import Foundation

/// Answers queries from places held in memory: a `PlaceTable` (rows in id order, or in tree order
/// when mapped from a snapshot; ties always by `idRank`) and a packed R-tree over lon/lat, plus one planar tree per projected CRS, built on first use and kept.
///
/// Plan of a query (see ARCHITECTURE.md):
/// - radius, no filter, ordered by distance only (`circlePage`, most queries): the total comes from
///   `count` (whole subtrees inside the circle are counted from their sizes); the page from the
///   matches that walk measured when the answer is small or has no limit (`firstMatches`), else from
///   best-first `nearest`;
/// - the same with a filter on categories only: the same, on each category's tree (`CategoryTrees`);
/// - other radius queries visit the circle's points once, filtering and counting, then select the
///   top `page × limit` rows with a bounded heap (`RowOrder.top`), never sorting every match;
/// - k nearest: best-first `nearest` with the filter as its predicate, then order and page;
/// - no shape: a walk of a stored order, the category runs of a date or a keyword's title postings
///   when `QueryPlanner` finds one cheaper, else candidates from the bbox filter through the tree, or
///   every row.
/// `PlaceQuery.explain` reports which (`QueryExplanation`).
/// With `indexed: false` no tree is built and candidates come from a scan (the SQLite engine runs
/// its candidate rows this way, so both engines share every line of filtering, ordering and paging).
public final class MemoryEngine: QueryEngine, @unchecked Sendable {
    public let table: PlaceTable
    /// The cache generation the places were read at; part of every cursor's fingerprint.
    public let generation: Int64
    private let tree: PackedRTree?
    private let lock = NSLock()
    private var planar: [Int: PlanarSpace] = [:]
    private let categoryTrees = CategoryTrees()

    /// Projected coordinates of every row for one CRS, and the tree over the rows PROJ could project
    /// (`treeRows` maps its items back to rows when some could not; those are in no answer).
    private struct PlanarSpace {
        let projection: Projection
        let xs: [Double], ys: [Double]
        let tree: PackedRTree?
        let treeRows: [Int32]?
    }

    /// Signs and checks this engine's cursors (`PlaceCache.cursorKey()` for a cache's places).
    public let cursorKey: PageCursor.Key

    public init(places: [Place], generation: Int64 = 0, cursorKey: PageCursor.Key = .unkeyed, indexed: Bool = true) {
        let table = PlaceTable(places)
        self.table = table
        self.generation = generation
        self.cursorKey = cursorKey
        tree = indexed ? PackedRTree(xs: table.lons(), ys: table.lats(), cosines: true) : nil
    }

    /// An engine over a table and a lon/lat tree made elsewhere: mapped from an index snapshot.
    init(table: PlaceTable, tree: PackedRTree, generation: Int64, cursorKey: PageCursor.Key) {
        self.table = table
        self.tree = tree
        self.generation = generation
        self.cursorKey = cursorKey
    }

    /// Bytes of the index and of the columns queries touch (not of the `Place` records, which only
    /// output reads): the lon/lat tree, the filter and sort columns, and whatever lazy parts (title
    /// ranks, planar trees) queries have built so far.
    public var byteCount: Int {
        lock.lock()
        defer { lock.unlock() }
        let planarBytes = planar.values.reduce(0) { sum, p in
            sum + (p.tree?.byteCount ?? 0) + (p.xs.capacity + p.ys.capacity) * 8 + (p.treeRows?.capacity ?? 0) * 4
        }
        return (tree?.byteCount ?? 0) + table.byteCount + planarBytes + categoryTrees.byteCount
    }

    public func run(_ q: PlaceQuery) throws -> QueryAnswer { try run(q, searchRadius: .infinity) }

    public func run(_ q: PlaceQuery, records: Bool) throws -> QueryAnswer {
        try run(q, plan: .cheapest, records: records)
    }

    /// `run`, with k nearest searched only within `searchRadius` metres (its cursor stays the one of
    /// `q`): for an engine that feeds this one the candidates of growing circles (`SQLiteEngine`).
    public func run(_ q: PlaceQuery, searchRadius: Double) throws -> QueryAnswer {
        try run(q, searchRadius: searchRadius, plan: .cheapest)
    }

    /// `run` with the plan of a query over every place chosen by `plan` (tests force each one). A mapped
    /// table that met a damaged block while answering throws `IndexSnapshot.Problem.damaged` instead,
    /// whatever the answer or error was (`PlaceTable.checkIntact`).
    func run(_ q: PlaceQuery, searchRadius: Double = .infinity, plan: PlanChoice, records: Bool = true) throws
        -> QueryAnswer
    {
        guard table.verifier != nil else {
            return try answer(q, searchRadius: searchRadius, plan: plan, records: records)
        }
        do {
            let a = try answer(q, searchRadius: searchRadius, plan: plan, records: records)
            try table.checkIntact()
            return a
        } catch {
            try table.checkIntact()
            throw error
        }
    }

    private func answer(_ q: PlaceQuery, searchRadius: Double, plan: PlanChoice, records: Bool) throws -> QueryAnswer {
        if let problem = q.problem { throw problem }
        guard let c = q.center else {
            return try execute(
                q, space: Space<HaversineMetric>?.none, searchRadius: searchRadius, plan: plan, records: records)
        }
        // Most queries: a circle with no filter, in plain distance order (`circlePage`).
        let plainCircle =
            tree != nil && q.cursor == nil && !q.explain && q.isByDistanceOnly && q.filter.isEmpty
            && !q.personal.filters
        switch q.distance {
        case .haversine:
            let metric = HaversineMetric(lat: c.lat, lon: c.lon)
            if plainCircle, case .radius(let r) = q.shape {
                return try circlePage(q, metric, radius: r, records: records)
            }
            let space = Space(metric: metric, tree: tree, xy: nil)
            return try execute(q, space: space, searchRadius: searchRadius, plan: plan, records: records)
        case .geodesic:
            let metric = GeodesicMetric(lat: c.lat, lon: c.lon)
            if plainCircle, case .radius(let r) = q.shape {
                return try circlePage(q, metric, radius: r, records: records)
            }
            let space = Space(metric: metric, tree: tree, xy: nil)
            return try execute(q, space: space, searchRadius: searchRadius, plan: plan, records: records)
        case .projected(let crs):
            let p = try planarSpace(crs.epsgCode(lat: c.lat, lon: c.lon))
            let centre = p.projection.forward(lat: c.lat, lon: c.lon)
            guard centre.x.isFinite && centre.y.isFinite else {
                throw RequestError(
                    parameter: "distance", reason: "cannot project the centre (\(c.lat), \(c.lon)) into \(crs)")
            }
            let metric = PlanarMetric(x: centre.x, y: centre.y)
            let space = Space(metric: metric, tree: p.tree, treeRows: p.treeRows, xy: (p.xs, p.ys))
            return try execute(q, space: space, searchRadius: searchRadius, plan: plan, records: records)
        }
    }

    private func planarSpace(_ epsg: Int) throws -> PlanarSpace {
        lock.lock()
        defer { lock.unlock() }
        if let p = planar[epsg] { return p }
        let projection = try Projection(epsg: epsg)
        let (xs, ys) = projection.forward(lats: table.lats(), lons: table.lons())
        var treeRows: [Int32]?
        var tree: PackedRTree?
        if self.tree != nil {
            let finite = xs.indices.filter { xs[$0].isFinite && ys[$0].isFinite }
            let ranks = table.idRankList
            if finite.count == xs.count {
                tree = PackedRTree(xs: xs, ys: ys, ranks: ranks)
            } else {
                treeRows = finite.map { Int32($0) }
                tree = PackedRTree(
                    xs: finite.map { xs[$0] }, ys: finite.map { ys[$0] }, ranks: ranks.map { r in finite.map { r[$0] } }
                )
            }
        }
        let p = PlanarSpace(projection: projection, xs: xs, ys: ys, tree: tree, treeRows: treeRows)
        planar[epsg] = p
        return p
    }

    /// A metric with the tree and coordinates it measures (nil `xy`: the rows' lon/lat).
    /// Distances are infinite for rows the projection could not place, so no finite radius finds them.
    private struct Space<M: SpatialMetric> {
        let metric: M
        let tree: PackedRTree?
        var treeRows: [Int32]? = nil
        let xy: (xs: [Double], ys: [Double])?

        func distance(_ row: Int, _ table: PlaceTable) -> Double {
            if let xy {
                let d = metric.distance(x: xy.xs[row], y: xy.ys[row])
                return d.isNaN ? .infinity : d
            }
            return metric.distance(x: table.lon(row), y: table.lat(row))
        }

        @inline(__always)
        func row(_ item: Int32) -> Int { treeRows.map { Int($0[Int(item)]) } ?? Int(item) }

        /// Every row within `radius` accepted by `include`, with its distance: through the tree, or by a
        /// scan. `include` is asked before the distance is computed.
        func within(
            _ radius: Double, _ table: PlaceTable, where include: (Int) -> Bool = { _ in true },
            _ visit: (Int, Double) -> Void
        ) {
            if let tree {
                tree.within(metric, radius: radius, where: { include(row($0)) }) { visit(row($0), $1) }
                return
            }
            for row in 0..<table.count where include(row) {
                let d = distance(row, table)
                if d <= radius { visit(row, d) }
            }
        }

        /// The k nearest rows within `maxDistance` accepted by `include`, by (distance, id rank): best-first
        /// through the tree, or a scan and a bounded heap.
        func nearest(_ k: Int, maxDistance: Double, _ table: PlaceTable, include: (Int) -> Bool) -> [Row] {
            if let tree {
                return tree.nearest(metric, k: k, maxDistance: maxDistance, where: { include(row($0)) })
                    .map { Row(item: row($0.item), dist: $0.distance) }
            }
            var all: [Row] = []
            within(maxDistance, table, where: include) { i, d in all.append(Row(item: i, dist: d)) }
            RowOrder(PlaceOrder([SortKey(.distance)]), table: table).selectTop(k, in: &all)
            return all
        }
    }

    private func execute<M: SpatialMetric>(
        _ q: PlaceQuery, space: Space<M>?, searchRadius: Double, plan: PlanChoice,
        records: Bool
    ) throws -> QueryAnswer {
        // The user's data on this table's rows, read once for the query (public queries: none).
        var personal: PersonalRows?
        if q.usesPersonalData {
            guard let data = q.personalData?.data else {
                throw PersonalDataUnavailable(
                    "personal parameters need the user's data, which this request was not given")
            }
            personal = data.rows(q.personal, keyword: q.filter.keyword, table: table)
        }
        let order = RowOrder(q.effectiveOrder, table: table, personal: personal)
        // Compiled only by the plans that test rows one by one: a page from the category trees needs
        // none, and its sets and arrays would be a microsecond of such a request.
        lazy var filter = RowFilter(q.filter, table: table, personal: q.personal.filters ? personal : nil)
        let after = try q.cursor.map {
            try resume(from: $0, fingerprint: PageCursor.fingerprint(of: q, generation: generation))
        }
        // Best-first search gives rows in (distance, id rank) order: usable as is for a first page run.
        let bestFirst = after == nil && q.limit > 0 && order.isDistanceOnly && q.filter.isEmpty && !q.personal.filters
        var total = 0
        var rows: [Row] = []
        var sorted = false
        // Rows the plan already skipped of the page's offset (an order walk returns the page alone).
        var skipped = 0
        var explanation = QueryExplanation(plan: "", rowsTouched: 0)

        switch q.shape {
        case .knn(let k, let maxDistance):
            rows = nearest(
                space!, k: k, maxDistance: min(maxDistance ?? .infinity, searchRadius), filter: filter, order: order)
            total = rows.count
            sorted = true
            if q.explain {
                explanation = QueryExplanation(
                    plan: "spatial index first: \(k) nearest, best-first", rowsTouched: rows.count)
            }
        case .radius(let r):
            if bestFirst, let s = space, s.tree != nil {
                (total, sorted) = firstPage(s, radius: r, q, into: &rows)
                if q.explain { explanation = Self.firstPageExplanation("the tree", rows.count) }
            } else if let s = space, let parts = categoryPageTrees(s, q, order) {
                for part in parts {
                    let (count, bestFirstPage) = firstPage(part, radius: r, q, into: &rows)
                    total += count
                    if bestFirstPage { sorted = parts.count == 1 }
                }
                if q.explain {
                    explanation = Self.firstPageExplanation(
                        "the trees of categories \(q.filter.categories!.sorted())", rows.count)
                }
            } else if after == nil, let s = space, let items = personal,
                let led = personalOrderPage(s, radius: r, q, items)
            {
                (rows, total, sorted) = (led.rows, led.total, true)
                if q.explain {
                    explanation = QueryExplanation(
                        plan: "personal order first: the user's places by \(q.effectiveOrder.keys[0]), each value's "
                            + "latitude band of the circle until the page is full; the total "
                            + (items.passing == nil ? "from the tree" : "from the items' latitude band"),
                        rowsTouched: led.touched)
                }
            } else if let s = space, s.xy == nil, let items = personal, items.passing != nil {
                // Only the places the user has an item for can pass: those of the circle's latitude band
                // (the metric's search box), not every point of the circle.
                let box = s.metric.searchBox(radius: r)
                let band = box.map { $0.minY...$0.maxY }
                var touched = 0
                if q.filter.isEmpty && items.readsOnlyItemConditions {
                    // Every passing item passes the query: no filter to compile or test, and the
                    // coordinates come from the items' own arrays rather than the table's columns.
                    let window = Window(box)
                    let circle = s.metric.circle(radius: r, searchBox: box)
                    items.forEachPassing(latitudes: band) { row, lon, lat in
                        touched += 1
                        guard window.contains(lon, lat) else { return }
                        let d = circle.distance(x: lon, y: lat)
                        if d <= r { rows.append(Row(item: row, dist: d)) }
                    }
                } else {
                    for i in items.passing(latitudes: band) {
                        touched += 1
                        guard filter(i) else { continue }
                        let d = s.distance(i, table)
                        if d <= r { rows.append(Row(item: i, dist: d)) }
                    }
                }
                total = rows.count
                explanation = QueryExplanation(
                    plan: "personal items first: the user's places in the circle's latitude band, filtered, sorted",
                    rowsTouched: touched)
            } else {
                var touched = 0
                space!.within(
                    r, table,
                    where: {
                        touched += 1
                        return filter($0)
                    }
                ) { i, d in
                    if rows.capacity == 0 { rows.reserveCapacity(32) }  // one allocation for a small answer
                    rows.append(Row(item: i, dist: d))
                }
                total = rows.count
                explanation = QueryExplanation(
                    plan: "spatial index first: every point of the circle, filtered", rowsTouched: touched)
            }
        case .all:
            if bestFirst, let space, let tree = space.tree {
                total = tree.count
                rows = space.nearest(q.page * q.limit, maxDistance: .infinity, table) { _ in true }
                sorted = true
                explanation = QueryExplanation(plan: "spatial index first: best-first nearest", rowsTouched: rows.count)
            } else if after == nil, space?.xy == nil, personal?.passing == nil,
                let walked = QueryPlanner(table: table, query: q, filter: filter, order: order).walk(plan)
            {
                rows = walked.rows
                total = walked.total
                sorted = walked.sorted
                skipped = walked.sorted ? (q.page - 1) * q.limit : 0
                explanation = walked.explanation
            } else {
                // Distances are needed to sort, or to drop rows a projection cannot place; else only for the page.
                let measure = order.usesDistance || space?.xy != nil ? space : nil
                func add(_ i: Int) {
                    guard filter(i) else { return }
                    let d = measure?.distance(i, table) ?? 0
                    if d.isFinite { rows.append(Row(item: i, dist: d)) }
                }
                if let items = personal?.passing {
                    // Only the places the user has an item for can pass: those rows, not every row.
                    for row in items { add(row) }
                    explanation = QueryExplanation(
                        plan: "personal items first: the user's \(items.count) places, filtered, sorted",
                        rowsTouched: items.count)
                } else if let box = q.filter.bbox ?? q.filter.region?.box, let tree {
                    var touched = 0
                    tree.searchLonLat(minLon: box.minLon, minLat: box.minLat, maxLon: box.maxLon, maxLat: box.maxLat) {
                        touched += 1
                        add(Int($0))
                    }
                    explanation = QueryExplanation(
                        plan: "spatial index first: box search, filtered, sorted", rowsTouched: touched)
                } else {
                    for i in 0..<table.count { add(i) }
                    explanation = QueryExplanation(
                        plan: "column scan: every row filtered, matches sorted", rowsTouched: table.count)
                }
                total = rows.count
            }
        }

        // Page: skip `offset` rows of the order, keep `limit` (0 = all).
        var offset = (q.page - 1) * q.limit
        var page = q.page
        if let after {
            rows.removeAll { !order.less(after.row, $0) }
            offset = 0
            page = after.page + 1
        }
        let remaining = after == nil ? total : rows.count
        let start = offset - skipped
        let end = q.limit == 0 ? rows.count : min(rows.count, start + q.limit)
        if !sorted { order.selectTop(end, in: &rows) }
        // The page is `rows` itself, cut to it in place: its rows and distances are the answer's.
        let pageRange = start < end ? start..<end : 0..<0
        if pageRange.upperBound < rows.count { rows.removeSubrange(pageRange.upperBound...) }
        if pageRange.lowerBound > 0 { rows.removeSubrange(..<pageRange.lowerBound) }
        // Rows that were not measured for the order are measured for the page.
        if space != nil && !order.usesDistance && q.shape == .all {
            for n in rows.indices { rows[n].dist = space!.distance(rows[n].item, table) }
        }

        var next: QueryAnswer.NextPage?
        if q.limit > 0, let last = rows.last, remaining > offset + rows.count {
            next = QueryAnswer.NextPage(
                query: q, generation: generation, key: cursorKey, page: page,
                distance: last.dist, id: table.id(last.item))
        }
        // The total is left out when not asked for, whichever plan ran, so the answer does not depend on the plan.
        let answerRows = try table.answerRows(Self.pageBuffer(rows), records: records)
        return QueryAnswer(
            total: q.countsTotal ? total : nil, rows: answerRows, measured: space != nil,
            page: page, next: next, explanation: q.explain ? explanation : nil)
    }

    /// A page of a circle on the lon/lat tree with no filter, no cursor, in plain distance order: the plan
    /// `execute` takes for it (first page from the counting walk when the matches are few, else
    /// best-first; every match when there is no limit), without the general set-up of an order, a
    /// filter, a space and a plan, which would be most of a small query's time. Same answer as `execute`.
    private func circlePage<M: SpatialMetric>(_ q: PlaceQuery, _ metric: M, radius r: Double, records: Bool) throws
        -> QueryAnswer
    {
        let tree = tree!
        let limit = q.limit
        let offset = (q.page - 1) * q.limit
        var rows: [Row] = []
        // The first matches go to the stack: a small answer (most) is sorted there and its page copied
        // out in one allocation of its size, with no growth or uniqueness check per match. More spill
        // into `rows` and are selected from there.
        let (total, complete, pageReady) = withUnsafeTemporaryAllocation(of: Row.self, capacity: Self.stackRows) {
            stack in
            var n = 0
            let (total, complete) = tree.firstMatches(
                metric, radius: r, budget: limit == 0 ? .max : 4 * q.page * limit + 64
            ) { item, d in
                let row = Row(item: Int(item), dist: d)
                if n < stack.count {
                    stack[n] = row
                    n += 1
                } else {
                    if rows.isEmpty {
                        rows.reserveCapacity(4 * stack.count)
                        rows += stack
                    }
                    rows.append(row)
                }
            }
            guard complete && rows.isEmpty else { return (total, complete, false) }
            let matches = UnsafeMutableBufferPointer(rebasing: stack[..<n])
            guard limit == 0 || offset + limit >= n else {
                rows = Array(matches)
                return (total, complete, false)
            }
            // The page is every match from `offset` on.
            RowOrder.insertionSortByDistance(matches, table: table)
            if offset < n { rows = Self.sized(matches[offset...]) }
            return (total, complete, true)
        }
        if !pageReady {
            if complete {
                let end = limit == 0 ? rows.count : min(rows.count, offset + limit)
                RowOrder.selectTopByDistance(end, in: &rows, table: table)
            } else {
                rows = tree.nearest(metric, k: offset + limit, maxDistance: r).map {
                    Row(item: Int($0.item), dist: $0.distance)
                }
            }
            // The page is the matches' buffer cut to it: its rows and distances are the answer's.
            if offset > 0 { rows.removeSubrange(..<min(offset, rows.count)) }
        }
        var next: QueryAnswer.NextPage?
        if limit > 0, let last = rows.last, total > offset + rows.count {
            next = QueryAnswer.NextPage(
                query: q, generation: generation, key: cursorKey, page: q.page,
                distance: last.dist, id: table.id(last.item))
        }
        let answerRows = try table.answerRows(Self.pageBuffer(rows), records: records)
        return QueryAnswer(
            total: q.countsTotal ? total : nil, rows: answerRows, measured: true, page: q.page, next: next)
    }

    /// Matches a circle's page collects on the stack before any allocation: 1 KiB, the most the standard
    /// library's `withUnsafeTemporaryAllocation` places on the stack without asking the runtime.
    private static let stackRows = 64

    /// The page's rows as its answer keeps them: the search's buffer itself, unless most of that would
    /// sit unused for as long as the answer lives (a page of 30 of 20,000 filtered matches).
    private static func pageBuffer(_ rows: [Row]) -> [Row] {
        rows.capacity > 4 * rows.count + 64 ? sized(rows) : rows
    }

    /// `rows` in an array of exactly their count (`Array(_:)` of a slice goes through its generic path).
    private static func sized<C: Collection<Row>>(_ rows: C) -> [Row] {
        [Row](unsafeUninitializedCapacity: rows.count) { out, n in n = out.initialize(fromContentsOf: rows) }
    }

    /// Adds to `rows` the matches of `part` within `r` when they are few (the counting walk measured
    /// them), else the first `page × limit` of them best-first (`bestFirst` true, in order). The rows
    /// are reserved at the first match: one allocation for a small answer, not one per doubling.
    private func firstPage<M: SpatialMetric>(
        _ part: Space<M>, radius r: Double, _ q: PlaceQuery,
        into rows: inout [Row]
    ) -> (total: Int, bestFirst: Bool) {
        let mark = rows.count
        let (total, complete) = part.tree!.firstMatches(part.metric, radius: r, budget: 4 * q.page * q.limit + 64) {
            item, d in
            if rows.capacity == 0 { rows.reserveCapacity(32) }
            rows.append(Row(item: part.row(item), dist: d))
        }
        guard !complete else { return (total, false) }
        rows.removeSubrange(mark...)
        rows += part.nearest(q.page * q.limit, maxDistance: r, table) { _ in true }
        return (total, true)
    }

    /// The first pages of a circle in an order led by a personal key, descending (`--sort -rating,distance`),
    /// read from the user's items rather than from every point of the circle. The places with a value
    /// come first, by value, so the pages are the circle's items taken a run of equal values at a time
    /// (`ValueRuns`: each run's latitude band, the search box, then the distance), until the runs read
    /// hold `page × limit` rows; each run is then ordered by the rest of the order. The total is counted
    /// apart: the passing items of the circle's latitude band when the conditions keep only items, else
    /// the circle's points from the tree's subtree sizes. Nil when that would not be the answer: a
    /// projected metric, a condition it does not read (`--not-visited`, a keyword in memos, a place
    /// filter without an item condition), no limit, or too few items in the circle to fill the pages
    /// while other places match.
    private func personalOrderPage<M: SpatialMetric>(
        _ s: Space<M>, radius r: Double, _ q: PlaceQuery, _ items: PersonalRows
    ) -> (rows: [Row], total: Int, touched: Int)? {
        let keys = q.effectiveOrder.keys
        guard s.xy == nil, q.limit > 0, let first = keys.first, first.field.isPersonal, first.descending,
            items.readsOnlyItemConditions
        else { return nil }
        let restricted = items.passing != nil
        guard restricted || (q.filter.isEmpty && s.tree != nil) else { return nil }
        // Personal conditions are the items' own (`passing`, `ValueRuns.passes`): the filter tests the rest.
        let filter = RowFilter(q.filter, table: table)
        let box = s.metric.searchBox(radius: r)
        let window = Window(box)
        let latitudes = box.map { $0.minY...$0.maxY }
        let circle = s.metric.circle(radius: r, searchBox: box)
        var total = 0
        var touched = 0
        if restricted {
            items.forEachPassing(latitudes: latitudes) { row, lon, lat in
                touched += 1
                if window.contains(lon, lat) && circle.distance(x: lon, y: lat) <= r && filter(row) { total += 1 }
            }
        } else {
            total = s.tree!.count(s.metric, radius: r)
        }
        let need = q.page * q.limit
        let runs = items.runs(first.field, table: table)
        var rows: [Row] = []
        var ends: [Int] = []
        var run = 0
        while run < runs.count && rows.count < need {
            for j in runs.band(run, latitudes) where runs.passes[j] {
                touched += 1
                let (lon, lat) = (runs.lons[j], runs.lats[j])
                guard window.contains(lon, lat) else { continue }
                let d = circle.distance(x: lon, y: lat)
                guard d <= r, filter(runs.rows[j]) else { continue }
                rows.append(Row(item: runs.rows[j], dist: d))
            }
            ends.append(rows.count)
            run += 1
        }
        // Rows without a value follow every row with one: the runs must fill the pages, or hold every match.
        guard rows.count >= need || rows.count == total else { return nil }
        let rest = RowOrder(PlaceOrder(Array(keys.dropFirst())), table: table, personal: items)
        var page: [Row] = []
        page.reserveCapacity(min(need, rows.count))
        var start = 0
        for end in ends where page.count < need {
            var part = Array(rows[start..<end])
            rest.selectTop(min(part.count, need - page.count), in: &part)
            page += part
            start = end
        }
        return (page, total, touched)
    }

    private static func firstPageExplanation(_ trees: String, _ rows: Int) -> QueryExplanation {
        QueryExplanation(
            plan: "spatial index first: \(trees), circle counted from subtree sizes, page best-first", rowsTouched: rows
        )
    }

    /// The category trees whose matches within a circle are exactly the answer's, for a first page in
    /// plain distance order filtered by categories only (on lon/lat), when their trees are built
    /// (`CategoryTrees`: from a category's second query on); nil when the circle's points must be
    /// visited and filtered.
    private func categoryPageTrees<M: SpatialMetric>(_ s: Space<M>, _ q: PlaceQuery, _ order: RowOrder) -> [Space<M>]? {
        guard s.tree != nil, let categories = q.filter.categories, q.limit > 0 else { return nil }
        var rest = q.filter
        rest.categories = nil
        guard rest.isEmpty, !q.personal.filters, s.xy == nil, q.cursor == nil, order.isDistanceOnly else { return nil }
        let statistics = table.tableStatistics()
        var spaces: [Space<M>] = []
        for c in Set(categories.map { Int32(truncatingIfNeeded: $0) }).sorted()
        where statistics.categoryCounts[c, default: 0] > 0 {
            guard let t = categoryTrees.tree(of: c, in: table) else { return nil }
            spaces.append(Space(metric: s.metric, tree: t, xy: nil))
        }
        return spaces
    }

    /// The k nearest rows passing the filter, in (distance, id) order, then in the query's order.
    private func nearest<M: SpatialMetric>(
        _ space: Space<M>, k: Int, maxDistance: Double,
        filter: RowFilter, order: RowOrder
    ) -> [Row] {
        let found = space.nearest(k, maxDistance: maxDistance, table) { filter($0) }
        return order.isDistanceOnly ? found : found.sorted(by: order.less)
    }

    /// The row a cursor points after, refusing cursors of another query or cache generation.
    private func resume(from text: String, fingerprint: UInt64) throws -> (row: Row, page: Int) {
        guard let c = PageCursor(decoding: text, key: cursorKey) else { throw RequestError.malformedCursor }
        guard c.fingerprint == fingerprint, let row = table.row(ofId: c.id) else { throw RequestError.staleCursor }
        return (Row(item: row, dist: c.distance), c.page)
    }
}
