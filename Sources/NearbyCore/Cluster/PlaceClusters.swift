import Foundation

/// A request for clusters: the places (a `PlaceQuery` read by the one request parser, asked for every
/// match), the hierarchy's options, and what to read from it: a zoom and a viewport, or a cluster's
/// children or leaves.
///
/// Its own parameters: `zoom`, `bbox` (the viewport, minLon,minLat,maxLon,maxLat: not a filter, so a
/// cluster's id and members do not depend on it), `radius-px`, `extent`, `min-points`, `max-zoom`,
/// and for leaves `limit` (0: all) and `offset`. Every other parameter is `nearby query`'s, through
/// `QueryParameters.parse`; those about pages and order (`sort`, `arrange`, `page`, `cursor`, `total`,
/// `explain`) are refused, as clusters have neither.
public struct ClusterRequest: Sendable, Hashable {
    /// Every match of the filters, in no particular order (the hierarchy takes them in id order).
    public var query: PlaceQuery
    public var options: ClusterOptions
    public var zoom: Int?
    public var bbox: ClusterBox
    public var limit: Int
    public var offset: Int

    /// The parameters this request reads itself, with their help.
    public static let parameters: [(name: String, help: String)] = [
        ("zoom", "Zoom level (0…\(ClusterOptions.zoomLimit + 1); levels above max-zoom + 1 read max-zoom + 1)."),
        (
            "bbox",
            "The viewport minLon,minLat,maxLon,maxLat (minLon > maxLon crosses the antimeridian; default: the world). Not a filter."
        ),
        ("radius-px", "Cluster radius in pixels (default 40)."),
        ("extent", "Tile extent in pixels the radius is measured in (default 512)."),
        ("min-points", "Points a cluster needs at least (default 2)."),
        ("max-zoom", "Highest zoom that clusters (default 16, at most \(ClusterOptions.zoomLimit))."),
        ("limit", "Leaves: points at most (default 10; 0: all)."),
        ("offset", "Leaves: points skipped first (default 0)."),
    ]

    /// `nearby query`'s parameters that clusters refuse (they have no pages and no order).
    static let refused: Set<String> = ["sort", "arrange", "page", "cursor", "total", "explain"]

    public init(query: PlaceQuery = PlaceQuery(), options: ClusterOptions = ClusterOptions()) {
        self.query = query
        self.options = options
        zoom = nil
        bbox = .world
        limit = 10
        offset = 0
        Self.everyMatch(&self.query)
    }

    /// Parses `(name, value)` pairs: this request's own names, and every other one through
    /// `QueryParameters.parse` (`areas` resolves `region`). Errors name the parameter.
    public static func parse(_ pairs: [(name: String, value: String)], areas: (any AreaResolver)? = nil)
        throws(RequestError) -> ClusterRequest
    {
        var own: [String: String] = [:]
        var rest: [(name: String, value: String)] = []
        let ownNames = Set(parameters.map(\.name))
        for (name, value) in pairs {
            if ownNames.contains(name) {
                guard own.updateValue(value, forKey: name) == nil else {
                    throw RequestError(parameter: name, reason: "given twice")
                }
            } else if refused.contains(QueryParameters.parameter(named: name)?.name ?? name) {
                throw RequestError(parameter: name, reason: "clusters have no pages or order")
            } else {
                rest.append((name, value))
            }
        }
        var request = ClusterRequest(query: try QueryParameters.parse(rest, areas: areas))
        if request.query.language != .ko {
            throw RequestError(parameter: "lang", reason: "clusters hold the Korean places only; use /v1/places")
        }
        func integer(_ name: String, _ range: ClosedRange<Int>) throws(RequestError) -> Int? {
            guard let text = own[name] else { return nil }
            guard let v = DecimalNumber.integer(text) else {
                throw RequestError(parameter: name, reason: "\(RequestError.quoted(text)) is not an integer")
            }
            guard range.contains(v) else {
                throw RequestError(parameter: name, reason: "\(v) is outside \(range.lowerBound)…\(range.upperBound)")
            }
            return v
        }
        func number(_ name: String) throws(RequestError) -> Double? {
            guard let text = own[name] else { return nil }
            guard let v = DecimalNumber.double(text) else {
                throw RequestError(parameter: name, reason: "\(RequestError.quoted(text)) is not a finite number")
            }
            return v
        }
        request.zoom = try integer("zoom", 0...ClusterOptions.zoomLimit + 1)
        if let v = try number("radius-px") { request.options.radius = v }
        if let v = try number("extent") { request.options.extent = v }
        if let v = try integer("min-points", 1...Int(Int32.max)) { request.options.minPoints = v }
        if let v = try integer("max-zoom", 0...ClusterOptions.zoomLimit) { request.options.maxZoom = v }
        if let v = try integer("limit", 0...Int(Int32.max)) { request.limit = v }
        if let v = try integer("offset", 0...Int(Int32.max)) { request.offset = v }
        if let problem = request.options.problem { throw problem }
        if let text = own["bbox"] { request.bbox = try ClusterBox.parse(text) }
        return request
    }

    /// A query asks for every match, counted by no one, on one page.
    static func everyMatch(_ q: inout PlaceQuery) {
        q.limit = 0
        q.page = 1
        q.cursor = nil
        q.explain = false
        q.countsTotal = false
        q.order = PlaceOrder([])
    }

    /// The filter a table answers the request's matches from without a query (`PlaceTable.rowsInIdOrder`):
    /// the request's own, when it asks nothing else (no circle, shape or personal condition, the
    /// Korean places); nil otherwise.
    public var tableMatch: PlaceFilter? {
        guard query.center == nil && query.shape == .all && !query.usesPersonalData && query.language == .ko
        else { return nil }
        return query.filter
    }

    /// Hierarchies worth keeping (the server keeps them per generation, `ClusterFile` on disk): every
    /// place, or one content type, with the default options, and no personal condition.
    public var isKept: Bool {
        var filter = query.filter
        let categories = filter.categories
        filter.categories = nil
        return options == ClusterOptions() && query.center == nil && query.shape == .all && filter == PlaceFilter()
            && (categories?.count ?? 1) == 1 && !query.usesPersonalData
    }

    /// What makes two requests' hierarchies the same (with the cache generation): the filters and
    /// the options, not the zoom, viewport or page of leaves.
    public var hierarchyKey: String {
        let filter = QueryParameters.render(query).map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let o = options
        return "\(filter)|\(o.radius)|\(o.extent)|\(o.minPoints)|\(o.minZoom)|\(o.maxZoom)|\(o.nodeSize)"
    }
}

/// A viewport in degrees (`minLon > maxLon` crosses the antimeridian).
public struct ClusterBox: Sendable, Hashable {
    public var minLon, minLat, maxLon, maxLat: Double
    public init(minLon: Double, minLat: Double, maxLon: Double, maxLat: Double) {
        self.minLon = minLon
        self.minLat = minLat
        self.maxLon = maxLon
        self.maxLat = maxLat
    }
    public static let world = ClusterBox(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90)

    /// `minLon,minLat,maxLon,maxLat`: four numbers, latitudes within ±90, the south one first.
    public static func parse(_ text: String, parameter: String = "bbox") throws(RequestError) -> ClusterBox {
        let parts = text.unicodeScalars.split(separator: ",", omittingEmptySubsequences: false).map { String($0) }
        let values = parts.compactMap { DecimalNumber.double($0) }
        guard parts.count == 4, values.count == 4 else {
            throw RequestError(
                parameter: parameter, reason: "\(RequestError.quoted(text)) is not minLon,minLat,maxLon,maxLat")
        }
        guard (-90...90).contains(values[1]), (-90...90).contains(values[3]), values[1] <= values[3] else {
            throw RequestError(
                parameter: parameter, reason: "latitudes must be within -90…90 with the south one first")
        }
        return ClusterBox(minLon: values[0], minLat: values[1], maxLon: values[2], maxLat: values[3])
    }
}

/// The cluster hierarchy of a query's matches: point `i` of `index` is the `i`-th match in id order,
/// so a cluster id holds for the same filters, options and cache generation.
public final class PlaceClusters: Sendable {
    public let index: ClusterIndex
    /// Where each point's row is.
    private let points: Points

    enum Points: Sendable {
        /// The matched rows, in id order (with or without their records, as the engine answered).
        case rows(PlaceRows)
        /// Rows of a table: point `i` is row `rows?[i]`, or without them (every place) the row of id rank `i`.
        case table(PlaceTable, rows: [UInt32]?)
    }

    /// Points of the hierarchy: the matches.
    public var count: Int {
        switch points {
        case .rows(let rows): rows.count
        case .table(let table, let rows): rows?.count ?? table.count
        }
    }

    /// The hierarchy of an answer's rows (of every match: `ClusterRequest.query`), which must have
    /// their coordinates (`PlaceRows.hasCoordinates`). With `kept`, the one kept in that file when it
    /// matches these rows' count, the options and the file's stamp and key, else one built and kept
    /// there (`ClusterFile.index`; `report` hears why a file was not used or written).
    public init(
        rows answerRows: PlaceRows, options: ClusterOptions = ClusterOptions(), kept: ClusterFile.Location? = nil,
        report: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        precondition(answerRows.hasCoordinates, "rows with their coordinates")
        let rows = answerRows.inIdOrder()
        points = .rows(rows)
        let build: @Sendable () -> ClusterIndex = {
            let (lons, lats) = rows.coordinates()
            return ClusterIndex(lons: lons, lats: lats, options: options)
        }
        if let kept {
            index = ClusterFile.index(at: kept, options: options, pointCount: rows.count, report: report, build: build)
        } else {
            index = build()
        }
    }

    /// The hierarchy of the places of `table` a request's filter passes, for a request that asks
    /// nothing else (`ClusterRequest.tableMatch`), without a query: every place is the table's rows in
    /// id order (`IDRW` of a snapshot, used in place), one content type's its run of the stored
    /// category order, and any other filter's one pass over the table (`PlaceTable.rowsInIdOrder`), so
    /// no answer is built or sorted. Kept in a file as `init(rows:options:kept:report:)` says; read
    /// from one, the hierarchy reads no row but those of the places it writes. Nil for another
    /// request or a table whose id order is damaged; throws when the table is damaged
    /// (`PlaceTable.checkIntact`).
    public init?(
        table: PlaceTable, request: ClusterRequest, kept: ClusterFile.Location? = nil,
        report: @escaping @Sendable (String) -> Void = { _ in }
    ) throws {
        guard let filter = request.tableMatch, table.hasCoordinates else { return nil }
        let rows: [UInt32]?
        if filter.isEmpty {
            rows = nil
        } else {
            guard let matched = table.rowsInIdOrder(passing: filter) else { return nil }
            rows = matched
        }
        try table.checkIntact()
        points = .table(table, rows: rows)
        let n = rows?.count ?? table.count
        let options = request.options
        let build: @Sendable () -> ClusterIndex = {
            var lons = [Double](repeating: .nan, count: n)
            var lats = [Double](repeating: .nan, count: n)
            // A row out of the table (a damaged id order the checksums missed) is a point left out.
            for i in 0..<n {
                let row = rows.map { Int($0[i]) } ?? table.row(atIdRank: i)
                guard row < table.count else { continue }
                lons[i] = table.lon(row)
                lats[i] = table.lat(row)
            }
            return ClusterIndex(lons: lons, lats: lats, options: options)
        }
        if let kept {
            index = ClusterFile.index(at: kept, options: options, pointCount: n, report: report, build: build)
        } else {
            index = build()
        }
    }

    /// The hierarchy of `request`'s places on `engine`: without a query when the engine holds a
    /// table and the request asks every place or one content type (`init(table:request:kept:report:)`),
    /// else from every match, answered without records when the engine's rows keep their coordinates
    /// so (`PlaceRows.hasCoordinates`), else with them; kept in a file as
    /// `init(rows:options:kept:report:)` says.
    public convenience init(
        _ engine: any QueryEngine, _ request: ClusterRequest, kept: ClusterFile.Location? = nil,
        report: @escaping @Sendable (String) -> Void = { _ in }
    ) throws {
        if let table = (engine as? MemoryEngine)?.table,
            let clusters = try PlaceClusters(table: table, request: request, kept: kept, report: report)
        {
            self.init(index: clusters.index, points: clusters.points)
            return
        }
        var rows = try engine.run(request.query, records: false).rows
        if !rows.hasCoordinates { rows = try engine.run(request.query, records: true).rows }
        self.init(rows: rows, options: request.options, kept: kept, report: report)
    }

    private init(index: ClusterIndex, points: Points) {
        self.index = index
        self.points = points
    }

    /// The rows of the points among `items` (clusters left out), in their order. Throws when a table's
    /// id order names no row (damage), or a snapshot block read is damaged.
    public func rows(of items: [ClusterItem]) throws -> PlaceRows {
        let positions = items.filter { !$0.isCluster }.map(\.id)
        switch points {
        case .rows(let rows): return rows.selecting(positions)
        case .table(let table, let matched):
            let rows = try positions.map { i in
                let row = matched.map { Int($0[i]) } ?? table.row(atIdRank: i)
                guard row < table.count else { throw IndexSnapshot.Problem.damaged("section IDRW") }
                return Row(item: row, dist: 0)
            }
            return try table.answerRows(rows, records: false)
        }
    }

    /// Entries of the zoom's level inside the request's viewport.
    public func clusters(_ request: ClusterRequest, zoom: Int) -> [ClusterItem] {
        let b = request.bbox
        return index.clusters(minLon: b.minLon, minLat: b.minLat, maxLon: b.maxLon, maxLat: b.maxLat, zoom: zoom)
    }

    /// Bytes of the hierarchy and of the rows it keeps (16 bytes a row of an answer; 4 a place of a
    /// table's filter, none for every place).
    public var byteCount: Int {
        switch points {
        case .rows(let rows): index.byteCount + 16 * rows.count
        case .table(_, let rows): index.byteCount + 4 * (rows?.count ?? 0)
        }
    }
}

extension PlaceTable {
    /// The rows `filter` passes, in id order, without a query or a sort: a single content type's run
    /// of the snapshot's stored category order (already in id order; the rest of the filter tested on
    /// its rows); else one pass over every row (`RowFilter.forEachPassing`: a code family's column
    /// read as raw memory), in id order already for a table in memory, or marking a bit per id rank of
    /// a mapped one, read back ascending. Nil when a row the id order names lies outside the table
    /// (damage the checksums missed): the caller asks a query instead.
    func rowsInIdOrder(passing filter: PlaceFilter) -> [UInt32]? {
        let test = RowFilter(filter, table: self)
        var rows: [UInt32] = []
        if let categories = filter.categories, categories.count == 1, let c = Int32(exactly: categories.first!),
            let stored = storedCategoryRun(c)
        {
            rows.reserveCapacity(stored.run.count)
            let n = count
            // The content type alone (what a kept hierarchy is made of): every row of the run passes,
            // and testing each would cost more than the rest of a cold request.
            var rest = filter
            rest.categories = nil
            let all = rest.isEmpty
            let intact: Bool = stored.order.withUnsafeBufferPointer(in: stored.run) { run in
                if all {
                    guard run.allSatisfy({ Int($0) < n }) else { return false }
                    rows.append(contentsOf: run)
                    return true
                }
                for r in run {
                    guard Int(r) < n else { return false }
                    if test(Int(r)) { rows.append(r) }
                }
                return true
            }
            return intact ? rows : nil
        }
        if rowsAreInIdOrder {
            test.forEachPassing(0..<count) { rows.append(UInt32($0)) }
            return rows
        }
        var bits = [UInt64](repeating: 0, count: (count + 63) >> 6)
        var found = 0
        let n = count
        bits.withUnsafeMutableBufferPointer { bits in
            test.forEachPassing(0..<n) { row in
                let k = Int(idRank(row))
                if k < n {
                    bits[k >> 6] |= 1 << UInt64(k & 63)
                    found += 1
                }
            }
        }
        rows.reserveCapacity(found)
        for (w, word) in bits.enumerated() {
            var b = word
            while b != 0 {
                let row = row(atIdRank: w << 6 + b.trailingZeroBitCount)
                guard row < n else { return nil }
                rows.append(UInt32(row))
                b &= b - 1
            }
        }
        return rows
    }
}

extension PlaceRows {
    /// These rows in id order (ties by id rank of a table, else by `PlaceTable.idPrecedes`).
    func inIdOrder() -> PlaceRows {
        if let table {
            var sortedAlready = true
            var last: UInt32 = 0
            for (i, r) in rows.enumerated() {
                let rank = table.idRank(r.item)
                if i > 0 && rank < last {
                    sortedAlready = false
                    break
                }
                last = rank
            }
            if sortedAlready { return self }
            let ranked = rows.map { (table.idRank($0.item), $0) }.sorted { $0.0 < $1.0 }.map(\.1)
            return PlaceRows(table: table, rows: ranked, records: hasRecords)
        }
        let places = fetched.sorted { PlaceTable.idPrecedes($0.id, $1.id) }
        return PlaceRows(places: places)
    }

    /// Whether the rows' coordinates can be read: rows of an engine's table or fetched places, not
    /// rows answered without records that kept only their ids (the SQLite engine's, `keepingOnlyIDs`).
    public var hasCoordinates: Bool { table?.hasCoordinates ?? true }

    /// Longitudes and latitudes of the rows, in order.
    func coordinates() -> (lons: [Double], lats: [Double]) {
        if let table {
            return (rows.map { table.lon($0.item) }, rows.map { table.lat($0.item) })
        }
        return (fetched.map(\.lon), fetched.map(\.lat))
    }

    /// The rows at these positions, in that order.
    func selecting(_ positions: [Int]) -> PlaceRows {
        if let table { return PlaceRows(table: table, rows: positions.map { rows[$0] }, records: hasRecords) }
        return PlaceRows(places: positions.map { fetched[$0] })
    }
}
