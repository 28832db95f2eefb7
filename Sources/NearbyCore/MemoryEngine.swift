import Foundation

/// Answers queries from places held in memory: a `PlaceTable` (rows in id order) and a packed
/// R-tree over lon/lat, plus one planar tree per projected CRS, built on first use and kept.
///
/// Plan of a query (see ARCHITECTURE.md):
/// - radius, no filter, limited, ordered by distance only: the total comes from `count` (whole
///   subtrees inside the circle are counted from their sizes) and the page from best-first `nearest`;
/// - other radius queries visit the circle's points once, filtering and counting, then select the
///   top `page × limit` rows with a bounded heap (`RowOrder.top`), never sorting every match;
/// - k nearest: best-first `nearest` with the filter as its predicate, then order and page;
/// - no shape: candidates from the bbox filter through the tree, or every row.
/// With `indexed: false` no tree is built and candidates come from a scan (the SQLite engine runs
/// its candidate rows this way, so both engines share every line of filtering, ordering and paging).
public final class MemoryEngine: QueryEngine, @unchecked Sendable {
    public let table: PlaceTable
    /// The cache generation the places were read at; part of every cursor's fingerprint.
    public let generation: Int64
    private let tree: PackedRTree?
    private let lock = NSLock()
    private var planar: [String: PlanarSpace] = [:]

    /// Projected coordinates of every row for one CRS, and their tree.
    private struct PlanarSpace {
        let projection: Projection
        let xs: [Double], ys: [Double]
        let tree: PackedRTree?
    }

    public init(places: [Place], generation: Int64 = 0, indexed: Bool = true) {
        let table = PlaceTable(places)
        self.table = table
        self.generation = generation
        tree = indexed ? PackedRTree(xs: table.places.map(\.lon), ys: table.places.map(\.lat)) : nil
    }

    public func run(_ q: PlaceQuery) throws -> QueryAnswer {
        if let problem = q.problem { throw QueryError(problem) }
        guard let c = q.center else {
            return try execute(q, space: Space<HaversineMetric>?.none)
        }
        switch q.distance {
        case .haversine:
            return try execute(q, space: Space(metric: HaversineMetric(lat: c.lat, lon: c.lon), tree: tree, xy: nil))
        case .geodesic:
            return try execute(q, space: Space(metric: GeodesicMetric(lat: c.lat, lon: c.lon), tree: tree, xy: nil))
        case .projected(let crs):
            let p = try planarSpace(crs.resolved(lat: c.lat, lon: c.lon))
            let centre = p.projection.forward(lats: [c.lat], lons: [c.lon])
            let metric = PlanarMetric(x: centre.xs[0], y: centre.ys[0])
            return try execute(q, space: Space(metric: metric, tree: p.tree, xy: (p.xs, p.ys)))
        }
    }

    private func planarSpace(_ crs: String) throws -> PlanarSpace {
        lock.lock(); defer { lock.unlock() }
        if let p = planar[crs] { return p }
        let projection = try Projection(crs: crs)
        let (xs, ys) = projection.forward(lats: table.places.map(\.lat), lons: table.places.map(\.lon))
        let p = PlanarSpace(projection: projection, xs: xs, ys: ys,
                            tree: tree == nil ? nil : PackedRTree(xs: xs, ys: ys))
        planar[crs] = p
        return p
    }

    /// A metric with the tree and coordinates it measures (nil `xy`: the rows' lon/lat).
    private struct Space<M: SpatialMetric> {
        let metric: M
        let tree: PackedRTree?
        let xy: (xs: [Double], ys: [Double])?

        func distance(_ row: Int, _ table: PlaceTable) -> Double {
            if let xy { return metric.distance(x: xy.xs[row], y: xy.ys[row]) }
            return metric.distance(x: table.places[row].lon, y: table.places[row].lat)
        }

        /// Every row within `radius` with its distance: through the tree, or by a scan.
        func within(_ radius: Double, _ table: PlaceTable, _ visit: (Int, Double) -> Void) {
            if let tree { tree.within(metric, radius: radius, visit); return }
            for row in 0..<table.count {
                let d = distance(row, table)
                if d <= radius { visit(row, d) }
            }
        }
    }

    private func execute<M: SpatialMetric>(_ q: PlaceQuery, space: Space<M>?) throws -> QueryAnswer {
        let order = RowOrder(q.effectiveOrder, table: table)
        let filter = RowFilter(q.filter, table: table)
        let fingerprint = PageCursor.fingerprint(of: q, generation: generation)
        let after = try q.cursor.map { try resume(from: $0, fingerprint: fingerprint) }
        // Best-first search gives rows in (distance, id) order: usable as is for a first page run.
        let bestFirst = after == nil && q.limit > 0 && order.isDistanceOnly && filter.passAll
        var total = 0
        var rows: [Row] = []
        var sorted = false

        switch q.shape {
        case .knn(let k, let maxDistance):
            rows = nearest(space!, k: k, maxDistance: maxDistance ?? .infinity, filter: filter, order: order)
            total = rows.count
            sorted = true
        case .radius(let r):
            if bestFirst, let tree = space!.tree {
                total = tree.count(space!.metric, radius: r)
                rows = tree.nearest(space!.metric, k: q.page * q.limit, maxDistance: r)
                    .map { Row(item: $0.item, dist: $0.distance) }
                sorted = true
            } else {
                space!.within(r, table) { i, d in if filter(i) { rows.append(Row(item: i, dist: d)) } }
                total = rows.count
            }
        case .all:
            if bestFirst, let space, let tree = space.tree {
                total = table.count
                rows = tree.nearest(space.metric, k: q.page * q.limit).map { Row(item: $0.item, dist: $0.distance) }
                sorted = true
            } else {
                let measure = order.usesDistance ? space : nil
                func add(_ i: Int) {
                    if filter(i) { rows.append(Row(item: i, dist: measure?.distance(i, table) ?? 0)) }
                }
                if let box = q.filter.bbox, let tree {
                    tree.searchLonLat(minLon: box.minLon, minLat: box.minLat, maxLon: box.maxLon, maxLat: box.maxLat, add)
                } else {
                    for i in 0..<table.count { add(i) }
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
        let end = q.limit == 0 ? rows.count : min(rows.count, offset + q.limit)
        if !sorted { rows = order.top(end, of: rows) }
        var pageRows = offset < end ? Array(rows[offset..<end]) : []
        if let space, !order.usesDistance, q.shape == .all {
            for n in pageRows.indices { pageRows[n].dist = space.distance(pageRows[n].item, table) }
        }

        var next: String?
        if q.limit > 0, let last = pageRows.last, remaining > offset + pageRows.count {
            next = PageCursor(fingerprint: fingerprint, page: page, distance: last.dist,
                              id: table.places[last.item].id).encoded
        }
        return QueryAnswer(
            total: total, places: pageRows.map { table.places[$0.item] },
            distances: pageRows.map { space == nil ? nil : $0.dist }, page: page, nextCursor: next)
    }

    /// The k nearest rows passing the filter, in (distance, id) order, then in the query's order.
    private func nearest<M: SpatialMetric>(_ space: Space<M>, k: Int, maxDistance: Double,
                                           filter: RowFilter, order: RowOrder) -> [Row] {
        let found: [Row]
        if let tree = space.tree {
            found = tree.nearest(space.metric, k: k, maxDistance: maxDistance,
                                 where: filter.passAll ? nil : { filter($0) })
                .map { Row(item: $0.item, dist: $0.distance) }
        } else {
            var all: [Row] = []
            space.within(maxDistance, table) { i, d in if filter(i) { all.append(Row(item: i, dist: d)) } }
            found = RowOrder(SortOrder([SortKey(.distance)]), table: table).top(k, of: all)
        }
        return order.isDistanceOnly ? found : found.sorted(by: order.less)
    }

    /// The row a cursor points after, refusing cursors of another query or cache generation.
    private func resume(from text: String, fingerprint: UInt64) throws -> (row: Row, page: Int) {
        guard let c = PageCursor(decoding: text) else { throw QueryError("malformed cursor") }
        guard c.fingerprint == fingerprint, let row = table.row(ofId: c.id) else {
            throw QueryError("the cursor belongs to another query or the cache changed since; start again from page 1")
        }
        return (Row(item: row, dist: c.distance), c.page)
    }
}
