import Foundation

/// One user's personal data about places (bookmarks, a rating, a memo, visits), by place id: what a
/// query with personal parameters consults. Loaded once per query (NearbyKit's `PersonalLayer` reads it
/// from the cache's personal tables) and mapped onto the engine's table rows by `PersonalRows`, so the
/// place index is never rebuilt when a user's data changes. Immutable. Times are Unix milliseconds.
public final class PersonalData: Sendable {
    public struct Bookmark: Sendable, Hashable {
        public var list: String
        public var added: Int64
        public init(list: String, added: Int64) {
            self.list = list
            self.added = added
        }
    }

    public struct Memo: Sendable, Hashable {
        public var text: String
        public var created: Int64
        public var updated: Int64
        public init(text: String, created: Int64, updated: Int64) {
            self.text = text
            self.created = created
            self.updated = updated
        }
    }

    /// What the user has about one place.
    public struct Item: Sendable, Hashable {
        /// Sorted by list name.
        public var bookmarks: [Bookmark] = []
        /// 1…5 in steps of 0.5.
        public var rating: Double?
        public var memo: Memo?
        /// Ascending.
        public var visits: [Int64] = []
        public init() {}
    }

    public let user: String
    public let items: [String: Item]
    /// The data mapped onto tables' rows, by table and conditions (`rows`).
    private let mapped = MappedPersonalRows()

    public init(user: String, items: [String: Item]) {
        self.user = user
        self.items = items
    }

    /// The data on `table`'s rows for a query's conditions: made once per table and conditions and
    /// kept with the data (a few at most), so a caller that keeps a user's data between queries (the
    /// server, until the user's data changes) maps it once, not on every query.
    func rows(_ p: PersonalFilter, keyword: String?, table: PlaceTable) -> PersonalRows {
        mapped.rows(self, p, keyword: keyword, table: table)
    }

    public static func empty(_ user: String) -> PersonalData { PersonalData(user: user, items: [:]) }
}

/// The personal parameters of a query: which user, and the conditions on that user's data. All unset
/// (`isActive` false) for a public query, which then pays nothing for the personal layer.
public struct PersonalFilter: Sendable, Hashable {
    /// The user whose data the conditions, sorts and output fields read (`--user`, default `me`).
    public var user = PersonalFilter.defaultUser
    /// Bookmarked in any list (`--bookmarked`).
    public var bookmarked = false
    /// Bookmarked in this list (`--bookmarked-in`).
    public var bookmarkedIn: String?
    /// Rated at least this (`--min-rating`).
    public var minRating: Double?
    /// Has a memo (`--has-memo`).
    public var hasMemo = false
    /// true: visited at least once (`--visited`); false: never (`--not-visited`).
    public var visited: Bool?
    /// Where the keyword is looked for (`--keyword-in title,memo`); nil: the title only.
    public var keywordIn: Set<KeywordTarget>?
    /// A keyword query records its keyword in the user's search history unless this is false (`--no-history`).
    public var recordsHistory = true

    public static let defaultUser = "me"

    public enum KeywordTarget: String, Sendable, Hashable, CaseIterable {
        case title, memo
    }

    public init() {}

    /// A condition on the user's data is set.
    public var filters: Bool {
        bookmarked || bookmarkedIn != nil || minRating != nil || hasMemo || visited != nil
            || (keywordIn?.contains(.memo) ?? false)
    }

    /// The conditions keep only places the user has an item for (all but `--not-visited` and keyword-in).
    public var restrictsToItems: Bool {
        bookmarked || bookmarkedIn != nil || minRating != nil || hasMemo || visited == true
    }

    /// Whether `item` passes the conditions that keep only places with an item (`restrictsToItems`).
    public func passes(_ item: PersonalData.Item) -> Bool {
        if bookmarked && item.bookmarks.isEmpty { return false }
        if let list = bookmarkedIn, !item.bookmarks.contains(where: { $0.list == list }) { return false }
        if let min = minRating, (item.rating ?? -.infinity) < min { return false }
        if hasMemo && item.memo == nil { return false }
        if visited == true && item.visits.isEmpty { return false }
        return true
    }

    /// The places of `data` passing the conditions that need an item, by id (nil when none is set):
    /// a superset of a query's personal matches an engine can narrow its candidates to.
    public func passingIDs(_ data: PersonalData) -> [String]? {
        guard restrictsToItems else { return nil }
        return data.items.filter { passes($0.value) }.map(\.key).sorted()
    }

    /// The places of `data` whose memo contains `keyword` (`--keyword-in memo`), by id.
    public func memoMatchIDs(_ data: PersonalData, keyword: String) -> [String] {
        let m = KeywordMatcher(keyword)
        return data.items.filter { $0.value.memo.map { m.matches($0.text) } ?? false }.map(\.key).sorted()
    }
}

extension PlaceQuery {
    /// The query reads the user's data: a personal condition or sort key.
    public var usesPersonalData: Bool { personal.filters || order.keys.contains { $0.field.isPersonal } }
}

extension SortField {
    /// A key read from the user's data (`rating`, `bookmarked`, `memo`, `visited`).
    public var isPersonal: Bool {
        switch self {
        case .rating, .bookmarked, .memo, .visited: true
        case .distance, .title, .created, .modified, .category: false
        }
    }
}

/// Refused: a query reads personal data the engine was not given (`PlaceQuery.personalData`) and
/// cannot read itself.
public struct PersonalDataUnavailable: NearbyError {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
    public var kind: ErrorKind { .unsupported }
}

/// `PersonalRows` made for one `PersonalData`, by table (held weakly: a table that is gone, a cache
/// generation replaced, drops its entries) and the conditions that shape them; the newest few kept.
final class MappedPersonalRows: @unchecked Sendable {
    private struct Key: Hashable {
        var filter: PersonalFilter
        var keyword: String?
    }
    private struct Entry {
        weak var table: PlaceTable?
        let key: Key
        let rows: PersonalRows
    }
    private let lock = NSLock()
    private var entries: [Entry] = []
    static let capacity = 8

    func rows(_ data: PersonalData, _ p: PersonalFilter, keyword: String?, table: PlaceTable) -> PersonalRows {
        var filter = p
        filter.recordsHistory = true  // changes no row
        // The keyword shapes the rows only when it is looked for in memos.
        let key = Key(filter: filter, keyword: (p.keywordIn?.contains(.memo) ?? false) ? keyword : nil)
        lock.lock()
        let found = entries.first { $0.table === table && $0.key == key }?.rows
        lock.unlock()
        if let found { return found }
        let rows = PersonalRows(data, p, keyword: keyword, table: table)
        lock.lock()
        entries.removeAll { $0.table == nil }
        if entries.count >= Self.capacity { entries.removeFirst() }
        entries.append(Entry(table: table, key: key, rows: rows))
        lock.unlock()
        return rows
    }
}

/// A user's data mapped onto one table's rows for a query's conditions: what `RowFilter` and
/// `RowOrder` consult. Immutable once made; `PersonalData.rows` keeps it for the next query.
struct PersonalRows {
    /// Row → the item's sort values.
    private(set) var values: [Int: Values] = [:]
    /// Rows passing every personal condition that needs an item (nil: no such condition).
    private(set) var passing: [Int]?
    private var passingSet: Set<Int> = []
    /// `passing` by latitude, and their latitudes and longitudes: a circle's rows are those of its
    /// latitude band, read from these arrays rather than from the table's columns.
    private var passingByLat: [Int] = []
    private var passingLats: [Double] = []
    private var passingLons: [Double] = []
    /// Each personal sort key's rows with a value, by value (`ValueRuns`), made on a query's first use.
    private let runs = RunsByField()
    /// Rows visited at least once, for `--not-visited`.
    private var visitedRows: Set<Int>?
    /// Rows whose memo contains the keyword (`--keyword-in memo`).
    private var memoMatches: Set<Int>?
    /// The keyword is looked for in titles.
    let keywordInTitle: Bool

    struct Values {
        var rating: Double
        var bookmarked: Int64
        var memo: Int64
        var visited: Int64
    }

    init(_ data: PersonalData, _ p: PersonalFilter, keyword: String?, table: PlaceTable) {
        keywordInTitle = p.keywordIn?.contains(.title) ?? true
        let memoMatcher = keyword != nil && (p.keywordIn?.contains(.memo) ?? false) ? KeywordMatcher(keyword!) : nil
        if memoMatcher != nil { memoMatches = [] }
        if p.visited == false { visitedRows = [] }
        var passing: [Int] = []
        for (id, item) in data.items {
            guard let row = table.row(ofId: id) else { continue }  // a place not (or no longer) in the table
            let added: Int64
            if let list = p.bookmarkedIn {
                added = item.bookmarks.first { $0.list == list }?.added ?? .min
            } else {
                added = item.bookmarks.map(\.added).max() ?? .min
            }
            values[row] = Values(
                rating: item.rating ?? -.infinity, bookmarked: added, memo: item.memo?.updated ?? .min,
                visited: item.visits.last ?? .min)
            if let m = memoMatcher, let memo = item.memo, m.matches(memo.text) { memoMatches!.insert(row) }
            if !item.visits.isEmpty { visitedRows?.insert(row) }
            if p.restrictsToItems && p.passes(item) { passing.append(row) }
        }
        if p.restrictsToItems {
            passing.sort()
            self.passing = passing
            passingSet = Set(passing)
            // A latitude that is not a number sorts first and is in no band (nor in any circle).
            func lat(_ row: Int) -> Double {
                let v = table.lat(row)
                return v.isNaN ? -.infinity : v
            }
            passingByLat = passing.sorted { (lat($0), $0) < (lat($1), $1) }
            passingLats = passingByLat.map(lat)
            passingLons = passingByLat.map(table.lon)
        }
    }

    /// The passing rows whose latitude is in `minLat…maxLat` (every passing row with nil), by latitude.
    func passing(latitudes: ClosedRange<Double>?) -> ArraySlice<Int> {
        passingByLat[Self.band(passingLats, latitudes)]
    }

    /// Calls `body(row, lon, lat)` for each passing row whose latitude is in `latitudes`, by latitude:
    /// the coordinates from this mapping's own arrays, not from the table.
    @inline(__always)
    func forEachPassing(latitudes: ClosedRange<Double>?, _ body: (Int, Double, Double) -> Void) {
        for j in Self.band(passingLats, latitudes) { body(passingByLat[j], passingLons[j], passingLats[j]) }
    }

    /// The positions of `lats` (ascending) within `latitudes` (all with nil).
    static func band(_ lats: ArraySlice<Double>, _ latitudes: ClosedRange<Double>?) -> Range<Int> {
        guard let latitudes else { return lats.indices }
        func first(_ above: (Double) -> Bool) -> Int {
            var lo = lats.startIndex
            var hi = lats.endIndex
            while lo < hi {
                let mid = (lo + hi) / 2
                if above(lats[mid]) { hi = mid } else { lo = mid + 1 }
            }
            return lo
        }
        let start = first { $0 >= latitudes.lowerBound }
        let end = first { $0 > latitudes.upperBound }
        return start..<max(start, end)
    }

    static func band(_ lats: [Double], _ latitudes: ClosedRange<Double>?) -> Range<Int> {
        band(lats[...], latitudes)
    }

    /// The conditions are only those that keep places with an item (`PersonalFilter.restrictsToItems`),
    /// or none: no `--not-visited`, no keyword looked for in memos. A row of `passing` then passes
    /// every personal condition, and any other row none.
    var readsOnlyItemConditions: Bool { visitedRows == nil && memoMatches == nil && keywordInTitle }

    /// The rows with a value of `field` (a personal sort key), by value descending (`ValueRuns`).
    func runs(_ field: SortField, table: PlaceTable) -> ValueRuns {
        runs.runs(field) { ValueRuns(field, self, table: table) }
    }

    /// The rows with an item.
    var rowsWithValues: Dictionary<Int, Values>.Keys { values.keys }

    /// Whether `row` passes the conditions that keep only items (`passing`).
    func passes(item row: Int) -> Bool { passing == nil || passingSet.contains(row) }

    /// Whether `row` passes the personal conditions (the keyword aside: `keywordMatches`).
    @inline(__always)
    func passes(_ row: Int) -> Bool {
        if passing != nil && !passingSet.contains(row) { return false }
        if let visitedRows, visitedRows.contains(row) { return false }
        return true
    }

    /// Whether the keyword matches the row's memo (`--keyword-in memo`).
    func memoMatches(_ row: Int) -> Bool { memoMatches?.contains(row) ?? false }

    func value(_ field: SortField, _ row: Int) -> Double {
        guard let v = values[row] else { return -.infinity }
        switch field {
        case .rating: return v.rating
        case .bookmarked: return v.bookmarked == .min ? -.infinity : Double(v.bookmarked)
        case .memo: return v.memo == .min ? -.infinity : Double(v.memo)
        case .visited: return v.visited == .min ? -.infinity : Double(v.visited)
        default: return 0
        }
    }
}

/// The rows of one `PersonalRows` with a value of one personal sort key (a rating, a time), by that
/// value descending: runs of equal values, each run's rows by latitude with their coordinates. A page
/// in an order led by that key, descending, reads the runs in turn, each run's latitude band of a
/// circle only, and stops at the run that fills the page (`MemoryEngine.personalOrderPage`).
struct ValueRuns {
    /// Each run's value, descending, and where it ends in the arrays below.
    private(set) var values: [Double] = []
    private(set) var ends: [Int] = []
    private(set) var rows: [Int] = []
    private(set) var lats: [Double] = []
    private(set) var lons: [Double] = []
    /// Whether the row passes the conditions that keep only items (every row without such conditions).
    private(set) var passes: [Bool] = []

    init(_ field: SortField, _ personal: PersonalRows, table: PlaceTable) {
        // A latitude that is not a number sorts first and is in no band (nor in any circle).
        var entries: [(value: Double, lat: Double, row: Int)] = []
        for row in personal.rowsWithValues {
            let v = personal.value(field, row)
            guard v > -.infinity else { continue }
            let lat = table.lat(row)
            entries.append((v, lat.isNaN ? -.infinity : lat, row))
        }
        entries.sort { ($1.value, $0.lat, $0.row) < ($0.value, $1.lat, $1.row) }
        rows = entries.map(\.row)
        lats = entries.map(\.lat)
        lons = rows.map(table.lon)
        passes = rows.map { personal.passing == nil || personal.passes(item: $0) }
        for (n, e) in entries.enumerated() {
            if n > 0 && e.value == entries[n - 1].value {
                ends[ends.count - 1] = n + 1
            } else {
                values.append(e.value)
                ends.append(n + 1)
            }
        }
    }

    var count: Int { values.count }

    /// Run `run`'s positions whose latitude is in `latitudes` (the whole run with nil).
    func band(_ run: Int, _ latitudes: ClosedRange<Double>?) -> Range<Int> {
        PersonalRows.band(lats[(run == 0 ? 0 : ends[run - 1])..<ends[run]], latitudes)
    }
}

/// `ValueRuns` by sort key, made once each (under a lock: queries share a `PersonalRows`).
final class RunsByField: @unchecked Sendable {
    private let lock = NSLock()
    private var made: [SortField: ValueRuns] = [:]

    func runs(_ field: SortField, make: () -> ValueRuns) -> ValueRuns {
        lock.lock()
        defer { lock.unlock() }
        if let r = made[field] { return r }
        let r = make()
        made[field] = r
        return r
    }
}

/// `PersonalData` in a query: equal when it is the same object (a query's data is loaded for it).
public struct PersonalDataRef: Sendable, Hashable {
    public let data: PersonalData
    public init(_ data: PersonalData) { self.data = data }
    public static func == (a: Self, b: Self) -> Bool { a.data === b.data }
    public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(data)) }
}

extension PersonalFilter {
    static let userNameRule = "1–64 ASCII letters, digits, '.', '_' or '-', not starting with '-'"
    static let listNameRule = "1–64 characters, no control characters or commas"

    /// A user's name: 1–64 ASCII letters, digits, `.`, `_`, `-`, not starting with `-`.
    public static func isUserName(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard (1...64).contains(u.count), u[0] != UInt8(ascii: "-") else { return false }
        return u.allSatisfy {
            (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 46 || $0 == 95
                || $0 == 45
        }
    }

    /// A bookmark list's name: 1–64 characters, no control character, no comma.
    public static func isListName(_ s: String) -> Bool {
        (1...64).contains(s.count)
            && !s.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "," }
            && TextNormalization.trimmingSpaces(s) == s
    }
}
