import Foundation

/// The places, with the columns queries filter and sort on in flat arrays.
///
/// Every sort breaks ties by id order, through `idRank(row)` (the one accessor for it). A table
/// built in memory holds its rows in id order, so a row's id rank is its index; a table mapped from
/// an index snapshot holds them in the tree's (Hilbert) order, with the id rank stored per row.
/// Id order (`PlaceTable.idPrecedes`): ids made only of ASCII digits come first, compared as
/// numbers (any length; equal numbers such as "7" and "007" then by bytes); all other ids follow,
/// compared by their UTF-8 bytes.
///
/// Memory per place for the columns: category, created and modified (`yyyyMMddHHmmss`), event
/// start/end (`yyyyMMdd`) as `PackedColumn`s (0 when missing; 1, 5, 5, 3 and 3 B for TourAPI's
/// content types and dates of recent decades, at most 4, 8, 8, 4 and 4 B), areacode and sigungucode
/// 2 B each (dictionary codes), accessibility mask with the has-image bit 4 B, the five `CodeFamily`
/// keys 2 B each: 35 B for TourAPI-like data, at most 46 B. Title ranks (4 B)
/// are built on the first title sort, each stored order (4 B, `SortOrders`) on the first query that
/// walks it, folded titles on the first keyword filter.
///
/// The columns are `Column`s, so the same table (and every engine line that reads it) works over
/// arrays or over an index snapshot mapped from disk (`IndexSnapshot`).
public final class PlaceTable: @unchecked Sendable {
    /// Full records, for output. Row i is `places[i]`. Empty in a table mapped from an index
    /// snapshot, whose answer rows are fetched by id (`fetch`).
    public let places: [Place]
    public let count: Int
    /// (lon, lat) of each row of a mapped table, interleaved: its tree's points (a table in memory
    /// reads them from `places`).
    private let points: Column<Double>?
    /// Id rank of each row of a mapped table, and the row of each id rank (nil: the row index).
    private let idRanks: Column<UInt32>?
    private let rowsByIdRank: Column<UInt32>?
    let category: PackedColumn<Int32>
    let areacode: CodeColumn
    let sigungucode: CodeColumn
    let created: PackedColumn<Int64>
    let modified: PackedColumn<Int64>
    let eventStart: PackedColumn<Int32>
    let eventEnd: PackedColumn<Int32>
    /// Accessibility bits (`Accessibility.bit`, bits 0…26) with `imageBit` set when the place has an
    /// image and `detailBit`s for the kinds of detail stored for it.
    let flags: Column<UInt32>
    static let imageBit: UInt32 = 1 << 31
    /// The flag bit of a place with a stored detail of `kind` (`PlaceDetail.Kind.isStored`): bit 29
    /// barrier-free, bit 30 pet (above the accessibility tags, below `imageBit`).
    static func detailBit(_ kind: PlaceDetail.Kind) -> UInt32 {
        switch kind {
        case .barrierFree: 1 << 29
        case .pet: 1 << 30
        }
    }
    /// The bits of these kinds (`detailBit`).
    static func detailFlags(_ kinds: Set<PlaceDetail.Kind>) -> UInt32 {
        kinds.reduce(0) { $0 | detailBit($1) }
    }
    /// The detail bits of a place, `has` saying whether a detail of each kind is stored for it.
    static func detailFlags(has: (PlaceDetail.Kind) -> Bool) -> UInt32 {
        PlaceDetail.Kind.allCases.reduce(0) { has($1) ? $0 | detailBit($1) : $0 }
    }
    /// `CodeFamily.key` of each row as dictionary codes, one column per family (by raw value).
    let codeColumns: [CodeColumn]
    /// Ids of a mapped table (nil: read from `places`).
    private let ids: StringColumn?
    /// Records of the given ids, in that order, for a mapped table's answer rows.
    private let fetch: (([String]) throws -> [Place])?
    /// Verifies a mapped table's blocks as they are read (`BlockVerifier`).
    let verifier: BlockVerifier?

    private let lock = NSLock()
    private var ranks: Column<UInt32>?
    private var folded: FoldedTitles?
    /// Ids of a table in memory, in a column, built on the first answer written from ids alone.
    private var idColumn: StringColumn?
    /// Stored orders (`SortOrders`) by field; a table in memory builds them on first use, a mapped one
    /// has the snapshot's (none from a snapshot written before them: its queries plan without).
    private var orders: [SortField: Column<UInt32>]
    /// Mapped orders found to name only rows of the table (`holdsOnlyRows`).
    private var checkedOrders: Set<SortField> = []
    /// Whether `rowsByIdRank` names only rows of the table, once checked.
    private var idOrderChecked: Bool?
    private let buildsOrders: Bool
    private var statistics: TableStatistics?
    /// Stored orders split by area (`AreaOrder`).
    private var areaOrders: [SortField: AreaOrder] = [:]
    /// Stored orders split by category (`CategoryOrder`): a mapped table's rows as the snapshot holds
    /// them (checked on first use), and the orders in use.
    private var storedCategoryOrders: [SortField: Column<UInt32>]
    private var categoryOrders: [SortField: CategoryOrder] = [:]
    /// The title substring index (`TitlePostings`): a mapped table's (checked on first use), or built.
    private var postings: TitlePostings?
    private var postingsChecked = false
    /// Category orders split by 시도 (`RegionCategoryOrder`).
    private var regionCategoryOrders: [SortField: RegionCategoryOrder] = [:]
    /// The structures built on their second request (`buildsNow`), and how often each was asked for.
    private enum Derived: Hashable {
        case areaOrder(SortField)
        case categoryOrder(SortField)
        case regionCategoryOrder(SortField)
        case titlePostings
    }
    private var asked: [Derived: Int] = [:]
    /// Rows per dictionary code of each code column (`codeCounts`), by family, counted on first use.
    private var codeCountsByFamily: [CodeFamily: CodeCounts] = [:]

    /// Takes places in any order; duplicate ids are kept (the cache never has them).
    public init(_ input: [Place]) {
        let places = Self.sortedById(input)
        self.places = places
        let n = places.count
        count = n
        // One pass, reading fields in place: `for p in places` or key-path maps would copy every
        // record (a retain per text field), which would be most of the build time on a million rows.
        var category = [Int32]()
        var created = [Int64]()
        var modified = [Int64]()
        var eventStart = [Int32]()
        var eventEnd = [Int32]()
        var flags = [UInt32]()
        category.reserveCapacity(n)
        created.reserveCapacity(n)
        modified.reserveCapacity(n)
        eventStart.reserveCapacity(n)
        eventEnd.reserveCapacity(n)
        flags.reserveCapacity(n)
        var areacode = CodeColumn.Builder(capacity: n)
        var sigungucode = CodeColumn.Builder(capacity: n)
        var codeColumns = CodeFamily.allCases.map { _ in CodeColumn.Builder(capacity: n) }
        for i in 0..<n {
            category.append(Int32(truncatingIfNeeded: places[i].category))
            created.append(Self.timestamp(places[i].created))
            modified.append(Self.timestamp(places[i].modified))
            eventStart.append(Self.day(places[i].eventStart))
            eventEnd.append(Self.day(places[i].eventEnd ?? places[i].eventStart))
            let f: UInt32 =
                (places[i].image.map { $0.isEmpty ? 0 : Self.imageBit } ?? 0)
                | Self.detailFlags { places[i].hasDetail($0) }
            flags.append(places[i].accessibility.isEmpty ? f : f | Accessibility.placeMask(places[i].accessibility))
            areacode.append(places[i].areacode)
            sigungucode.append(places[i].sigungucode)
            for family in CodeFamily.allCases { codeColumns[family.rawValue].append(family.key(of: places[i])) }
        }
        points = nil
        idRanks = nil
        rowsByIdRank = nil
        self.category = PackedColumn(category)
        self.created = PackedColumn(created)
        self.modified = PackedColumn(modified)
        self.eventStart = PackedColumn(eventStart)
        self.eventEnd = PackedColumn(eventEnd)
        self.flags = Column(flags)
        self.areacode = areacode.column
        self.sigungucode = sigungucode.column
        self.codeColumns = codeColumns.map(\.column)
        ids = nil
        fetch = nil
        verifier = nil
        orders = [:]
        storedCategoryOrders = [:]
        buildsOrders = true
    }

    /// A table of ids and positions alone, row i the id `ids[i]` at (lon, lat) `points[2i], points[2i + 1]`
    /// (`PlaceRows.keepingOnlyIDs`): rows answered already, whose records are fetched by id as they are
    /// written. No query runs on it (its other columns are empty).
    init(ids: [String], points: [Double]) {
        precondition(points.count == 2 * ids.count)
        places = []
        count = ids.count
        self.points = Column(points)
        idRanks = nil
        rowsByIdRank = nil
        category = PackedColumn([])
        areacode = CodeColumn.Builder(capacity: 0).column
        sigungucode = CodeColumn.Builder(capacity: 0).column
        created = PackedColumn([])
        modified = PackedColumn([])
        eventStart = PackedColumn([])
        eventEnd = PackedColumn([])
        flags = Column([])
        codeColumns = CodeFamily.allCases.map { _ in CodeColumn.Builder(capacity: 0).column }
        self.ids = StringColumn(ids)
        fetch = nil
        verifier = nil
        orders = [:]
        storedCategoryOrders = [:]
        buildsOrders = false
    }

    /// A table over columns mapped from an index snapshot (`IndexSnapshot`), rows in tree order:
    /// `points` are the tree's, `idRanks` each row's id rank and `rowsByIdRank` its inverse.
    init(
        count: Int, points: Column<Double>, idRanks: Column<UInt32>, rowsByIdRank: Column<UInt32>,
        category: PackedColumn<Int32>, areacode: CodeColumn,
        sigungucode: CodeColumn, created: PackedColumn<Int64>, modified: PackedColumn<Int64>,
        eventStart: PackedColumn<Int32>,
        eventEnd: PackedColumn<Int32>, flags: Column<UInt32>, ranks: Column<UInt32>, folded: FoldedTitles,
        ids: StringColumn, codeColumns: [CodeColumn], orders: [SortField: Column<UInt32>] = [:],
        categoryOrders: [SortField: Column<UInt32>] = [:], postings: TitlePostings? = nil,
        statistics: TableStatistics? = nil, verifier: BlockVerifier? = nil,
        fetch: @escaping ([String]) throws -> [Place]
    ) {
        places = []
        self.count = count
        self.points = points
        self.idRanks = idRanks
        self.rowsByIdRank = rowsByIdRank
        self.category = category
        self.areacode = areacode
        self.sigungucode = sigungucode
        self.created = created
        self.modified = modified
        self.eventStart = eventStart
        self.eventEnd = eventEnd
        self.flags = flags
        self.ranks = ranks
        self.folded = folded
        self.ids = ids
        self.fetch = fetch
        self.codeColumns = codeColumns
        self.orders = orders
        storedCategoryOrders = categoryOrders
        self.postings = postings
        buildsOrders = false
        self.statistics = statistics
        self.verifier = verifier
    }

    /// Throws `IndexSnapshot.Problem.damaged` when a read of a mapped table met a damaged block (and
    /// got zeros): the engine calls it before it answers, so no answer comes from a damaged block.
    func checkIntact() throws(IndexSnapshot.Problem) {
        if let failure = verifier?.failure { throw IndexSnapshot.Problem.damaged(failure) }
    }

    /// Whether `lat`/`lon` can be read: a mapped table's points or the records (not a table of ids alone).
    var hasCoordinates: Bool { points != nil || places.count == count }

    @inline(__always) func lat(_ row: Int) -> Double { points?[2 * row + 1] ?? places[row].lat }
    @inline(__always) func lon(_ row: Int) -> Double { points?[2 * row] ?? places[row].lon }

    /// Every row's latitude, longitude.
    func lats() -> [Double] { points == nil ? column { $0.lat } : (0..<count).map(lat) }
    func lons() -> [Double] { points == nil ? column { $0.lon } : (0..<count).map(lon) }

    /// The row's rank in id order: the tie-breaker of every sort.
    @inline(__always) func idRank(_ row: Int) -> UInt32 { idRanks?[row] ?? UInt32(truncatingIfNeeded: row) }

    /// Whether row i is id rank i (a table in memory): no id-rank column.
    var rowsAreInIdOrder: Bool { idRanks == nil && rowsByIdRank == nil }

    /// Every row's id rank when it is not the row index (a mapped table), for trees that break ties by it.
    var idRankList: [UInt32]? { idRanks.map(Array.init) }

    /// One value per row, read in place (no copy of the records).
    private func column<T>(_ value: (borrowing Place) -> T) -> [T] {
        places.withUnsafeBufferPointer { rows in
            [T](unsafeUninitializedCapacity: rows.count) { out, n in
                for i in 0..<rows.count { (out.baseAddress! + i).initialize(to: value(rows[i])) }
                n = rows.count
            }
        }
    }

    /// Id of a row.
    func id(_ row: Int) -> String { ids?[row] ?? places[row].id }

    /// The row at `rank` in id order (the inverse of `idRank`); only once `idOrderIsSound`.
    @inline(__always) func row(atIdRank rank: Int) -> Int { rowsByIdRank.map { Int($0[rank]) } ?? rank }

    /// Whether `row(atIdRank:)` names only rows of this table (checked once, `holdsOnlyRows`).
    var idOrderIsSound: Bool {
        lock.lock()
        defer { lock.unlock() }
        if let checked = idOrderChecked { return checked }
        let sound = rowsByIdRank.map(holdsOnlyRows) ?? true
        idOrderChecked = sound
        return sound
    }

    /// A mapped column of rows (a stored order, `IDRW`) is checked once, on first use, to name only rows
    /// of this table: damage that the snapshot's sampled body checksum missed then costs a plan (the
    /// query scans instead), never a read out of range.
    private func holdsOnlyRows(_ rows: Column<UInt32>) -> Bool { rows.allSatisfy { Int($0) < count } }

    /// Rows ascending by `field`, ties by id rank (`SortOrders`); nil for a mapped table whose
    /// snapshot has no such order.
    func sortOrder(_ field: SortField) -> Column<UInt32>? {
        guard SortOrders.fields.contains(field) else { return nil }
        lock.lock()
        if let o = orders[field] {
            defer { lock.unlock() }
            if buildsOrders || checkedOrders.contains(field) { return o }
            guard holdsOnlyRows(o) else {
                orders[field] = nil
                return nil
            }
            checkedOrders.insert(field)
            return o
        }
        lock.unlock()
        guard buildsOrders else { return nil }
        let key: (Int) -> Int64
        switch field {
        case .title:
            let r = titleRanks()
            key = { Int64(r[$0]) }
        case .modified: key = { self.modified[$0] }
        case .created: key = { self.created[$0] }
        default: key = { Int64(self.category[$0]) }
        }
        let o = Column(SortOrders.rows(count: count, key: key, idRank: idRank))
        lock.lock()
        defer { lock.unlock() }
        orders[field] = o
        return o
    }

    /// The rows of content type `c` in id order, read from the snapshot as they are: its run of the
    /// stored category order (ties by id rank), placed by the category statistics. Nil for a table
    /// that builds its orders (its rows are in id order already) or a snapshot without the order. The
    /// rows are not checked against the table: the caller checks each it reads.
    func storedCategoryRun(_ c: Int32) -> (order: Column<UInt32>, run: Range<Int>)? {
        guard !buildsOrders else { return nil }
        lock.lock()
        let order = orders[.category]
        lock.unlock()
        guard let order else { return nil }
        let counts = tableStatistics().categoryCounts
        let start = counts.reduce(0) { $0 + ($1.key < c ? $1.value : 0) }
        let end = start + (counts[c] ?? 0)
        guard end <= order.count else { return nil }
        return (order, start..<end)
    }

    /// Counts a request for `derived` (the caller holds `lock`): whether to build it now, on its second
    /// request (the first when `now`), so a one-shot process, which asks once, never pays for one.
    private func buildsNow(_ derived: Derived, now: Bool = false) -> Bool {
        asked[derived, default: 0] += 1
        return now || asked[derived]! >= 2
    }

    /// `field`'s stored order split by area code (`AreaOrder`), from the field's second request on (a
    /// one-shot process never pays for one); nil before that, without a stored order, or when the area
    /// dictionary overflowed.
    func areaOrder(_ field: SortField) -> AreaOrder? {
        lock.lock()
        if let o = areaOrders[field] {
            lock.unlock()
            return o
        }
        let wanted = buildsNow(.areaOrder(field))
        lock.unlock()
        guard wanted, areacode.dictionary.count < Int(UInt16.max) - 1, let order = sortOrder(field) else { return nil }
        let o = AreaOrder(order: order, codes: areacode.codes, values: areacode.dictionary.count)
        lock.lock()
        defer { lock.unlock() }
        areaOrders[field] = o
        return o
    }

    /// `field`'s stored order split by category (`CategoryOrder`): a mapped table's from its snapshot
    /// (nil without one, or when it names rows outside the table), else built on the second request
    /// (the first when `now`: a plan forced by a test). Nil for a key without one.
    func categoryOrder(_ field: SortField, now: Bool = false) -> CategoryOrder? {
        guard CategoryOrder.fields.contains(field) else { return nil }
        lock.lock()
        if let o = categoryOrders[field] {
            lock.unlock()
            return o
        }
        let wanted = buildsNow(.categoryOrder(field), now: now)
        let stored = storedCategoryOrders[field]
        lock.unlock()
        let o: CategoryOrder?
        if let stored {
            o = holdsOnlyRows(stored) ? CategoryOrder(rows: stored, statistics: tableStatistics()) : nil
            lock.lock()
            storedCategoryOrders[field] = nil
            lock.unlock()
        } else {
            guard buildsOrders, wanted, let order = sortOrder(field) else { return nil }
            let statistics = tableStatistics()
            o = CategoryOrder(
                rows: Column(CategoryOrder.rows(order: order, category: category, statistics: statistics)),
                statistics: statistics)
        }
        lock.lock()
        defer { lock.unlock() }
        if let o { categoryOrders[field] = o }
        return o
    }

    /// `field`'s category order split by 시도 (`RegionCategoryOrder`), built in memory from the category
    /// order on the second request (the first when `now`); nil before that or without a category order.
    func regionCategoryOrder(_ field: SortField, now: Bool = false) -> RegionCategoryOrder? {
        lock.lock()
        if let o = regionCategoryOrders[field] {
            lock.unlock()
            return o
        }
        let wanted = buildsNow(.regionCategoryOrder(field), now: now)
        lock.unlock()
        guard wanted, let order = categoryOrder(field, now: now) else { return nil }
        let categories = tableStatistics().categoryCounts.keys.sorted()
        let o = RegionCategoryOrder(order: order, categories: categories, ldong: codeColumns[CodeFamily.ldong.rawValue])
        lock.lock()
        defer { lock.unlock() }
        regionCategoryOrders[field] = o
        return o
    }

    /// The title substring index (`TitlePostings`): a mapped table's from its snapshot (nil without
    /// one, or when its key table is malformed), else built on the second request (the first when `now`).
    func titlePostings(now: Bool = false) -> TitlePostings? {
        lock.lock()
        if let p = postings {
            if buildsOrders || postingsChecked {
                lock.unlock()
                return p
            }
            // Only the shape here: reading 4 B a posting at once would map all of them for a one-shot
            // query. Each row is checked as a plan reads it (`QueryPlanner.keywordPostings`).
            defer { lock.unlock() }
            postingsChecked = true
            if p.starts.count != p.keys.count + 1 { postings = nil }
            return postings
        }
        let wanted = buildsNow(.titlePostings, now: now) && buildsOrders
        lock.unlock()
        guard wanted else { return nil }
        let p = TitlePostings(foldedTitles())
        lock.lock()
        defer { lock.unlock() }
        postings = p
        return p
    }

    /// Rows per dictionary code of `family`'s code column (`CodeCounts`), counted on first use: one pass
    /// over 2 B a row, so that the total of a filter on codes (`--ldong 11`) is a sum over the codes it
    /// keeps instead of a test of every row.
    func codeCounts(_ family: CodeFamily) -> CodeCounts {
        lock.lock()
        if let c = codeCountsByFamily[family] {
            lock.unlock()
            return c
        }
        lock.unlock()
        let column = codeColumns[family.rawValue]
        let c = CodeCounts(codes: column.codes, values: column.dictionary.count)
        lock.lock()
        defer { lock.unlock() }
        codeCountsByFamily[family] = c
        return c
    }

    /// Rows per category and area (`TableStatistics`): the snapshot's, else counted on first use.
    func tableStatistics() -> TableStatistics {
        lock.lock()
        defer { lock.unlock() }
        if let statistics { return statistics }
        let s = TableStatistics(category: category, areaCodes: areacode.codes, areaValues: areacode.dictionary.count)
        statistics = s
        return s
    }

    /// Every row's id, in a column: a mapped table's own, else built on first use. An answer of ids
    /// read from `places` would miss the cache once per row, the records lying some 400 bytes apart.
    func idStrings() -> StringColumn {
        if let ids { return ids }
        lock.lock()
        defer { lock.unlock() }
        if let idColumn { return idColumn }
        var offsets: [UInt32] = [0]
        var bytes: [UInt8] = []
        offsets.reserveCapacity(count + 1)
        places.withUnsafeBufferPointer { rows in
            for i in 0..<rows.count {
                bytes.append(contentsOf: rows[i].id.utf8)
                offsets.append(UInt32(bytes.count))
            }
        }
        let column = StringColumn(offsets: Column(offsets), bytes: Column(bytes))
        idColumn = column
        return column
    }

    /// The answer rows: read in place from `places`, or fetched by id for a mapped table. Without
    /// `records` (a caller that writes only ids, `PlaceRows.forEachID`) nothing is fetched. `rows` (with
    /// their distances) become the answer's as they are.
    /// Inlined, so that the rows of a table in memory (every answer of the memory engine) cost no call
    /// and no reference count of the closure.
    @inline(__always)
    func answerRows(_ rows: [Row], records: Bool = true) throws -> PlaceRows {
        if fetch == nil { return PlaceRows(table: self, rows: rows) }
        return try fetchedRows(rows, records: records)
    }

    private func fetchedRows(_ rows: [Row], records: Bool) throws -> PlaceRows {
        guard let fetch, records else {
            // The ids are read later (`PlaceRows.forEachID`, without verifying): their blocks now.
            if let ids { for r in rows { ids.verify(r.item) } }
            try checkIntact()
            return PlaceRows(table: self, rows: rows, records: false)
        }
        let ids = rows.map { id($0.item) }
        try checkIntact()
        let found = try fetch(ids)
        guard found.count == ids.count, zip(found, ids).allSatisfy({ $0.id == $1 }) else {
            throw RequestError(
                parameter: nil, reason: "the cache changed while answering; run the query again", isStale: true)
        }
        return PlaceRows(places: found, rows: rows)
    }

    /// Korean-collation rank of each row's title (equal titles share a rank), built on first use.
    func titleRanks() -> Column<UInt32> {
        lock.lock()
        defer { lock.unlock() }
        if let ranks { return ranks }
        let r = Column(KoreanCollation.ranks(of: places.map(\.title)))
        ranks = r
        return r
    }

    /// Bytes of the columns (not of the `Place` records), title ranks, folded titles and ids once built.
    /// A mapped table's id ranks are counted by its tree, which shares them.
    public var byteCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return category.byteCount + areacode.codes.byteCount
            + sigungucode.codes.byteCount + created.byteCount + modified.byteCount + eventStart.byteCount
            + eventEnd.byteCount + flags.byteCount + (ranks?.byteCount ?? 0) + (folded?.byteCount ?? 0)
            + (idColumn.map { $0.offsets.byteCount + $0.bytes.byteCount } ?? 0)
            + orders.values.reduce(0) { $0 + $1.byteCount } + areaOrders.values.reduce(0) { $0 + $1.rows.count * 4 }
            + categoryOrders.values.reduce(0) { $0 + $1.rows.byteCount } + (postings?.byteCount ?? 0)
            + codeColumns.reduce(0) { $0 + $1.codes.byteCount }
    }

    /// Every row's title folded for keyword search (`KeywordMatcher.fold`), built on the first keyword query.
    func foldedTitles() -> FoldedTitles {
        lock.lock()
        defer { lock.unlock() }
        if let folded { return folded }
        let f = FoldedTitles(places.lazy.map { $0.title })
        folded = f
        return f
    }

    /// Row of an id, by binary search over the id ranks; nil when absent (or when a damaged
    /// snapshot's `rowsByIdRank` points outside the table).
    public func row(ofId id: String) -> Int? {
        func row(ofRank k: Int) -> Int? {
            guard let rowsByIdRank else { return k }
            let r = Int(rowsByIdRank[k])
            return r < count ? r : nil
        }
        var lo = 0
        var hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            guard let r = row(ofRank: mid) else { return nil }
            if Self.idPrecedes(self.id(r), id) { lo = mid + 1 } else { hi = mid }
        }
        guard lo < count, let r = row(ofRank: lo) else { return nil }
        return self.id(r) == id ? r : nil
    }

    /// The id order described on the type.
    public static func idPrecedes(_ a: String, _ b: String) -> Bool {
        let da = isDigits(a)
        let db = isDigits(b)
        if da != db { return da }
        if da {
            let ta = a.utf8.drop { $0 == 48 }
            let tb = b.utf8.drop { $0 == 48 }
            if ta.count != tb.count { return ta.count < tb.count }
            if !ta.elementsEqual(tb) { return ta.lexicographicallyPrecedes(tb) }
        }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    private static func isDigits(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }

    /// Sorts by id; skips the sort when the input is already in order (the cache reads it that way).
    /// Ids of at most 18 digits are compared as integers, which is the common case and fast.
    private static func sortedById(_ places: [Place]) -> [Place] {
        var keys = [Int64](repeating: -1, count: places.count)
        for i in places.indices {
            let id = places[i].id
            if id.utf8.count <= 18 && id.utf8.first != 48 && isDigits(id) { keys[i] = Int64(id)! }
        }
        func precedes(_ i: Int, _ j: Int) -> Bool {
            let a = keys[i]
            let b = keys[j]
            return a >= 0 && b >= 0 ? a < b : idPrecedes(places[i].id, places[j].id)
        }
        if places.indices.dropFirst().allSatisfy({ !precedes($0, $0 - 1) }) { return places }
        return Array(places.indices).sorted(by: precedes).map { places[$0] }
    }

    /// The cache holds canonical `yyyyMMddHHmmss` / `yyyyMMdd` text: read the digits straight from
    /// UTF-8 (a million rows in milliseconds), falling back to `DateBound` for anything else. Public:
    /// the PostGIS writer stores these numbers, so SQL filters and sorts on the very values used here.
    public static func timestamp(_ s: String?) -> Int64 {
        guard let s else { return 0 }
        return digits(s, 14) ?? DateBound.timestamp(s) ?? 0
    }
    public static func day(_ s: String?) -> Int32 {
        guard let s else { return 0 }
        return digits(s, 8).map { Int32($0) } ?? DateBound.day(s) ?? 0
    }
    private static func digits(_ s: String, _ count: Int) -> Int64? {
        var s = s
        return s.withUTF8 { u -> Int64? in
            guard u.count == count else { return nil }
            var v: Int64 = 0
            for b in u {
                guard b >= 48 && b <= 57 else { return nil }
                v = v * 10 + Int64(b - 48)
            }
            return v
        }
    }
}

/// A text column stored as small dictionary codes (0 = missing), for equality filters.
/// Rows per dictionary code of a `CodeColumn` (`PlaceTable.codeCounts`).
struct CodeCounts: Sendable {
    /// Rows of each code 0...values (0: no value).
    let counts: [Int]
    /// Rows past the dictionary (code `UInt16.max`, compared as text): a sum over codes misses them.
    let overflow: Int

    init(codes: Column<UInt16>, values: Int) {
        var counts = [Int](repeating: 0, count: values + 1)
        var overflow = 0
        codes.withUnsafeBufferPointer { codes in
            for c in codes {
                if Int(c) < counts.count { counts[Int(c)] += 1 } else { overflow += 1 }
            }
        }
        self.counts = counts
        self.overflow = overflow
    }
}

struct CodeColumn: Sendable {
    let codes: Column<UInt16>
    let dictionary: [String: UInt16]

    /// Builds a column value by value. More than 65,534 distinct values keep the first ones coded;
    /// the rest share code `UInt16.max` and are then compared as text (`RowFilter`), so answers stay exact.
    struct Builder {
        private(set) var codes: [UInt16] = []
        private(set) var dictionary: [String: UInt16] = [:]
        init(capacity: Int) { codes.reserveCapacity(capacity) }

        mutating func append(_ value: String?) { codes.append(Self.code(of: value, in: &dictionary)) }

        /// The code of `value` in `dictionary`, added to it when new.
        static func code(of value: String?, in dictionary: inout [String: UInt16]) -> UInt16 {
            guard let value else { return 0 }
            if let c = dictionary[value] { return c }
            guard dictionary.count < Int(UInt16.max) - 1 else { return UInt16.max }
            let c = UInt16(dictionary.count + 1)
            dictionary[value] = c
            return c
        }

        var column: CodeColumn { CodeColumn(codes: Column(codes), dictionary: dictionary) }

        /// Renumbers `dictionary` in its values' byte order (so that a snapshot does not depend on the
        /// order values arrived in); returns each old code's new code.
        static func renumber(_ dictionary: inout [String: UInt16]) -> [UInt16] {
            var renumbered = (0...Int(UInt16.max)).map { UInt16($0) }
            let values = dictionary.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (i, value) in values.enumerated() {
                renumbered[Int(dictionary[value]!)] = UInt16(i + 1)
                dictionary[value] = UInt16(i + 1)
            }
            return renumbered
        }
    }

    /// Codes of the wanted values (unknown values match nothing).
    func codes(of wanted: Set<String>) -> Set<UInt16> { Set(wanted.compactMap { dictionary[$0] }) }
}
