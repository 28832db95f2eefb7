import CPrefetch

/// One page of a query's answer.
public struct QueryAnswer: Sendable, Hashable {
    /// Matches before paging (for `.knn`, the number of neighbours found); nil when the query did not
    /// count them (`PlaceQuery.countsTotal`).
    public var total: Int?
    /// The rows, read in place from the engine's table (the output path); `places` copies them.
    public var rows: PlaceRows
    public var places: [Place] { Array(rows) }
    /// Distance in metres of row `i` under the query's model; nil when the query has no centre.
    public func distance(at i: Int) -> Double? {
        switch measured {
        case .none: return nil
        case .inRows: return rows.distance(at: i)
        case .list(let list): return list[i]
        }
    }
    /// Every row's `distance(at:)`, in order (made on each call: a loop over the rows reads `distance(at:)`).
    public var distances: [Double?] { rows.indices.map(distance(at:)) }
    /// Where the distances are: an engine's answer keeps them beside its rows (`PlaceRows`), in the
    /// one buffer its search filled, so a page costs no array of distances of its own.
    private let measured: Distances
    private enum Distances: Sendable {
        case none, inRows
        case list([Double?])
    }
    /// 1-based page this answer is.
    public var page: Int
    /// Where the next page starts; nil on the last page or when the query has no limit.
    public var next: NextPage? {
        get { nextBox?.page }
        set { nextBox = newValue.map(NextPageBox.init) }
    }
    /// `next`, held by reference: a `NextPage` holds a whole `PlaceQuery` (some hundreds of bytes and
    /// a dozen references), which every copy, move and release of an answer would carry along.
    private var nextBox: NextPageBox?
    /// The plan and the rows it read, when the query asked (`PlaceQuery.explain`) and the engine plans.
    public var explanation: QueryExplanation?

    /// Resumes after the last row; nil on the last page or when the query has no limit. Encoded when
    /// asked for: a caller that only reads rows (a benchmark, a batch) never pays for the fingerprint.
    public var nextCursor: String? { next?.cursor }

    /// An answer whose distances are given one per row (all nil when the query has no centre).
    public init(
        total: Int?, rows: PlaceRows, distances: [Double?], page: Int, next: NextPage?,
        explanation: QueryExplanation? = nil
    ) {
        precondition(distances.count == rows.count, "one distance per row")
        self.total = total
        self.rows = rows
        self.measured = .list(distances)
        self.page = page
        self.nextBox = next.map(NextPageBox.init)
        self.explanation = explanation
    }

    /// An engine's answer: `measured`, the distances are the rows' own (`PlaceRows.distance(at:)`).
    init(total: Int?, rows: PlaceRows, measured: Bool, page: Int, next: NextPage?, explanation: QueryExplanation? = nil)
    {
        self.total = total
        self.rows = rows
        self.measured = measured ? .inRows : .none
        self.page = page
        self.nextBox = next.map(NextPageBox.init)
        self.explanation = explanation
    }

    /// Answers are equal when their totals, rows, distances, pages, next pages and plans are.
    public static func == (a: QueryAnswer, b: QueryAnswer) -> Bool {
        a.total == b.total && a.rows == b.rows && a.distances == b.distances && a.page == b.page
            && a.next == b.next && a.explanation == b.explanation
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(total)
        hasher.combine(rows)
        hasher.combine(distances)
        hasher.combine(page)
        hasher.combine(next)
        hasher.combine(explanation)
    }

    /// An immutable box of a next page, compared and hashed by its value.
    private final class NextPageBox: Sendable, Hashable {
        let page: NextPage
        init(_ page: NextPage) { self.page = page }
        static func == (a: NextPageBox, b: NextPageBox) -> Bool { a.page == b.page }
        func hash(into hasher: inout Hasher) { hasher.combine(page) }
    }

    /// What a next-page cursor holds, before encoding.
    public struct NextPage: Sendable, Hashable {
        public var query: PlaceQuery
        public var generation: Int64
        /// The key that signs the cursor (the cache's).
        public var key: PageCursor.Key
        /// 1-based page the answer's rows are.
        public var page: Int
        /// Distance and id of the last row returned.
        public var distance: Double
        public var id: String

        public init(query: PlaceQuery, generation: Int64, key: PageCursor.Key, page: Int, distance: Double, id: String)
        {
            self.query = query
            self.generation = generation
            self.key = key
            self.page = page
            self.distance = distance
            self.id = id
        }

        public var cursor: String {
            PageCursor(
                fingerprint: PageCursor.fingerprint(of: query, generation: generation), page: page,
                distance: distance, id: id
            ).encoded(key: key)
        }
    }
}

/// Something that answers `PlaceQuery`s: the in-memory engine or the SQLite one. Both give identical answers.
public protocol QueryEngine {
    func run(_ query: PlaceQuery) throws -> QueryAnswer
    /// `run`; without `records`, for a caller that reads only the rows' ids (`PlaceRows.forEachID`),
    /// an engine over a mapped snapshot fetches no records (the rows then have none to read).
    func run(_ query: PlaceQuery, records: Bool) throws -> QueryAnswer
}

extension QueryEngine {
    public func run(_ query: PlaceQuery, records: Bool) throws -> QueryAnswer { try run(query) }
}

/// The places of an answer, read in place from the engine's table: an answer of a hundred rows
/// copies no records (a `Place` is some 350 bytes and a dozen reference counts).
/// An engine over a mapped index snapshot has no records in memory: its rows are the fetched places.
public struct PlaceRows: RandomAccessCollection, Sendable, Hashable {
    let table: PlaceTable?
    /// The table's rows with their distances, in answer order: the buffer the engine's search filled,
    /// cut to the page (also kept when the places were fetched, for `distance(at:)`).
    let rows: [Row]
    let fetched: [Place]
    /// False for the rows of a mapped table answered without records (`QueryEngine.run(_:records:)`):
    /// only their ids can be read.
    public let hasRecords: Bool
    /// Where `forEachRow` fetches the records of rows answered without them, a chunk at a time
    /// (`fetchingRecords(inChunksOf:_:)`); nil otherwise.
    private let source: RecordSource?

    /// Fetches the places of some ids, in their order (missing ones left out), and how many at a time.
    private struct RecordSource: Sendable {
        let chunk: Int
        let fetch: @Sendable ([String]) throws -> [Place]
    }

    init(table: PlaceTable, rows: [Row], records: Bool = true) {
        self.table = table
        self.rows = rows
        fetched = []
        hasRecords = records
        source = nil
    }
    /// Places fetched for `rows`, in the same order (a mapped table's answer with records).
    init(places: [Place], rows: [Row]) {
        table = nil
        self.rows = rows
        fetched = places
        hasRecords = true
        source = nil
    }
    /// Rows fetched elsewhere, in answer order (an engine that completes the rows of a page).
    public init(places: [Place]) {
        table = nil
        rows = []
        fetched = places
        hasRecords = true
        source = nil
    }

    private init(_ base: PlaceRows, source: RecordSource) {
        table = base.table
        rows = base.rows
        fetched = []
        hasRecords = false
        self.source = source
    }

    /// Whether `forEachRow` can read these rows' places: they have records, or fetch them as it goes.
    public var readsRecords: Bool { hasRecords || source != nil }

    /// These rows, with records, when they were answered without (`QueryEngine.run(_:records:)`): all
    /// fetched now by `fetch` (the places of some ids, in their order, missing ones left out), which
    /// reads the same generation as the engine that answered. Rows with records are returned as they
    /// are. A place that is missing or is another than the row's throws the stale-cache error.
    public func withRecords(_ fetch: ([String]) throws -> [Place]) throws -> PlaceRows {
        guard !hasRecords, let table else { return self }
        return PlaceRows(places: try Self.places(of: rows[...], in: table, fetch), rows: rows)
    }

    /// These rows, whose `forEachRow` fetches the records `chunk` rows at a time through `fetch` (as
    /// `withRecords`) instead of all at once: a writer of a large answer then holds the records of one
    /// chunk, not of the answer (the rows themselves are some 16 bytes each). Only `forEachRow` reads
    /// them (the subscript needs `hasRecords`). Rows with records are returned as they are.
    public func fetchingRecords(inChunksOf chunk: Int, _ fetch: @escaping @Sendable ([String]) throws -> [Place])
        -> PlaceRows
    {
        guard !hasRecords, table != nil else { return self }
        return PlaceRows(self, source: RecordSource(chunk: Swift.max(1, chunk), fetch: fetch))
    }

    /// These rows without their records: their ids (some 20 bytes a row), positions and distances in a table of
    /// their own (`PlaceTable(ids:points:)`), for an engine whose table is made for one query (the SQLite
    /// engine's candidates), so that an answer kept while it is written (a streamed page, whose records
    /// `fetchingRecords(inChunksOf:_:)` fetches) does not keep every candidate's record. Rows without
    /// records and fetched rows are returned as they are.
    /// The table's rows are in id order, as every table's are (its id rank is the row), so the rows
    /// order by id there as they did in the engine's table (clusters and tiles read them so).
    public func keepingOnlyIDs() -> PlaceRows {
        guard hasRecords, let table, !table.places.isEmpty else { return self }
        let byID = rows.indices.sorted { table.idRank(rows[$0].item) < table.idRank(rows[$1].item) }
        var slot = [Int](repeating: 0, count: rows.count)
        for (rank, i) in byID.enumerated() { slot[i] = rank }
        let ids = byID.map { table.id(rows[$0].item) }
        let own = rows.indices.map { Row(item: slot[$0], dist: rows[$0].dist) }
        var points: [Double] = []
        points.reserveCapacity(2 * rows.count)
        for i in byID {
            points.append(table.lon(rows[i].item))
            points.append(table.lat(rows[i].item))
        }
        return PlaceRows(table: PlaceTable(ids: ids, points: points), rows: own, records: false)
    }

    /// The places of `part`'s rows, fetched by id, in order; the stale-cache error unless each is there.
    private static func places(
        of part: ArraySlice<Row>, in table: PlaceTable, _ fetch: ([String]) throws -> [Place]
    ) throws -> [Place] {
        let ids = part.map { table.id($0.item) }
        try table.checkIntact()
        let found = try fetch(ids)
        guard found.count == ids.count, zip(found, ids).allSatisfy({ $0.id == $1 }) else {
            throw RequestError(
                parameter: nil, reason: "the cache changed while answering; run the query again", isStale: true)
        }
        return found
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { table == nil ? fetched.count : rows.count }
    public subscript(i: Int) -> Place {
        _read {
            precondition(hasRecords, "rows answered without records have only ids (forEachID)")
            if let table { yield table.places[rows[i].item] } else { yield fetched[i] }
        }
    }

    /// Row `i`'s position, read from the table's points (rows answered without records too) or its
    /// place: what a map needs of a row before it fetches any record.
    public func coordinate(at i: Int) -> Coordinate {
        guard let table else { return Coordinate(lat: fetched[i].lat, lon: fetched[i].lon) }
        let row = rows[i].item
        return Coordinate(lat: table.lat(row), lon: table.lon(row))
    }

    /// The distance the engine stored with row `i` (`QueryAnswer.distance(at:)` reads it).
    func distance(at i: Int) -> Double { rows[i].dist }

    /// Calls `body` with each row's position and its id as UTF-8, read from the table's id column
    /// (`PlaceTable.idStrings`) rather than from the records: the loop of an answer of ids and distances.
    /// An answer's rows are in distance order, all over the column: each row's offset and bytes are
    /// a cache miss (nine tenths of the loop's time unfetched), so they are prefetched `idsAhead` rows ahead,
    /// the offset twice that.
    public func forEachID(_ body: (Int, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        guard let table else {
            for i in fetched.indices {
                var id = fetched[i].id
                try id.withUTF8 { try body(i, $0) }
            }
            return
        }
        let ids = table.idStrings()
        // A mapped table verified these rows' ids when it answered (`PlaceTable.answerRows`).
        try ids.offsets.withUnverifiedBufferPointer { offsets in
            try ids.bytes.withUnverifiedBufferPointer { bytes in
                for i in rows.indices {
                    if i + 2 * Self.idsAhead < rows.count, let base = offsets.baseAddress {
                        nearby_prefetch(base + rows[i + 2 * Self.idsAhead].item)
                    }
                    if i + Self.idsAhead < rows.count, let base = bytes.baseAddress {
                        let start = Int(offsets[rows[i + Self.idsAhead].item])
                        if start < bytes.count { nearby_prefetch(base + start) }
                    }
                    let row = rows[i].item
                    let start = Int(offsets[row])
                    let end = Int(offsets[row + 1])
                    // A damaged snapshot's offsets read as an empty id, as `StringColumn`'s subscript does.
                    try body(
                        i,
                        start <= end && end <= bytes.count
                            ? UnsafeBufferPointer(rebasing: bytes[start..<end])
                            : UnsafeBufferPointer(start: nil, count: 0))
                }
            }
        }
    }

    /// How many rows ahead `forEachID` prefetches an id's bytes.
    static let idsAhead = 8

    /// The rows' ids, in answer order.
    public var ids: [String] {
        var out: [String] = []
        out.reserveCapacity(count)
        forEachID { _, id in out.append(String(decoding: id, as: UTF8.self)) }
        return out
    }

    /// Calls `body` with each row's position and a pointer to its place where it lies, valid during the
    /// call: the output path's loop. A `Place` handed on by value (the subscript, an array's element) is
    /// copied whole, some 400 bytes and a dozen reference counts (`PlaceJSON.append(at:)` reads fields).
    /// Rows given a record source (`fetchingRecords(inChunksOf:_:)`) are fetched a chunk at a time,
    /// each chunk's records released before the next is fetched.
    public func forEachRow(_ body: (Int, UnsafePointer<Place>) throws -> Void) throws {
        if !hasRecords, let source, let table {
            var start = 0
            while start < rows.count {
                let end = Swift.min(rows.count, start + source.chunk)
                let places = try Self.places(of: rows[start..<end], in: table, source.fetch)
                try places.withUnsafeBufferPointer { chunk in
                    for j in chunk.indices { try body(start + j, chunk.baseAddress! + j) }
                }
                start = end
            }
            return
        }
        precondition(hasRecords, "rows answered without records have only ids (forEachID)")
        if let table {
            try table.places.withUnsafeBufferPointer { places in
                for i in rows.indices { try body(i, places.baseAddress! + rows[i].item) }
            }
        } else {
            try fetched.withUnsafeBufferPointer { places in
                for i in places.indices { try body(i, places.baseAddress! + i) }
            }
        }
    }

    /// Rows compare by their places, or by their ids when either has no records.
    public static func == (a: PlaceRows, b: PlaceRows) -> Bool {
        a.hasRecords && b.hasRecords ? a.elementsEqual(b) : a.ids == b.ids
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(ids) }
}
