/// The rows of a table in the order of one sort key, ties by id rank (`PlaceTable.idRank`): a
/// permutation of 4 B per place, so a sorted page walks it and stops after `offset + limit` matches
/// (`QueryPlanner`) instead of scanning and sorting every match.
///
/// Stored in the index snapshot as sections (`tag(of:)`; a snapshot without them still answers, by
/// scans) and built on first use for a table held in memory.
enum SortOrders {
    /// The keys with a stored order (TourAPI's arrange orders are title, modified and created).
    static let fields: [SortField] = [.title, .modified, .created, .category]

    /// Snapshot section tag of a field's order.
    static func tag(of field: SortField) -> String {
        switch field {
        case .title: "OTIT"
        case .modified: "OMOD"
        case .created: "OCRE"
        case .category: "OCAT"
        case .distance, .rating, .bookmarked, .memo, .visited: preconditionFailure("\(field) has no stored order")
        }
    }

    /// The snapshot sections of the orders and of `statistics`: (tag, element size, count).
    static func sections(count n: Int, statistics: TableStatistics) -> [(String, Int, Int)] {
        fields.map { (tag(of: $0), 4, n) } + [
            (TableStatistics.categoryTag, 8, statistics.categorySection.count),
            (TableStatistics.areaTag, 8, statistics.areaSection.count),
        ]
    }

    /// Rows ascending by `key`, ties by `idRank`.
    static func rows(count n: Int, key: (Int) -> Int64, idRank: (Int) -> UInt32) -> [UInt32] {
        guard n > 0 else { return [] }
        var low = Int64.max
        var high = Int64.min
        for row in 0..<n {
            let k = key(row)
            low = min(low, k)
            high = max(high, k)
        }
        // Usually (key − lowest, id rank) fits one UInt64: a sort of plain integers, no comparator.
        let rankBits = UInt64(64 - (UInt64(n).leadingZeroBitCount))
        let (spread, overflow) = high.subtractingReportingOverflow(low)
        if !overflow && rankBits < 64 && UInt64(spread) < (1 as UInt64) << (64 - rankBits) {
            var packed = [UInt64](unsafeUninitializedCapacity: n) { buffer, count in
                for row in 0..<n { buffer[row] = UInt64(key(row) &- low) << rankBits | UInt64(idRank(row)) }
                count = n
            }
            RadixSort.sort(&packed, bits: 0..<Int(rankBits) + (64 - UInt64(spread).leadingZeroBitCount))
            // Id ranks are a permutation of 0..<n: each names its row.
            var rowOfRank = [UInt32](repeating: 0, count: n)
            for row in 0..<n { rowOfRank[Int(idRank(row))] = UInt32(row) }
            let mask = (1 as UInt64) << rankBits - 1
            return packed.map { rowOfRank[Int($0 & mask)] }
        }
        var entries = [(key: Int64, rank: UInt32, row: UInt32)]()
        entries.reserveCapacity(n)
        for row in 0..<n { entries.append((key(row), idRank(row), UInt32(row))) }
        entries.sort { $0.key != $1.key ? $0.key < $1.key : $0.rank < $1.rank }
        return entries.map(\.row)
    }
}

/// A stored order split by area code: `rows[run(of: c)]` are the rows whose area code is `c`, still in
/// the order's sequence (a stable counting sort, two passes over the order). A sorted page of one area
/// (TourAPI's areaBasedList by title, say) then reads that area's rows only, as an index on (area, key)
/// would. 4 B a place, in memory only, built from a field's second such query (`PlaceTable.areaOrder`).
struct AreaOrder: Sendable {
    let rows: [UInt32]
    /// Where each code's run starts; code c's run ends where c + 1's starts.
    private let starts: [Int]

    /// `order` split by `codes` (dictionary codes 0...`values`, 0 for no value).
    init(order: Column<UInt32>, codes: Column<UInt16>, values: Int) {
        var starts = [Int](repeating: 0, count: values + 2)
        for c in codes { starts[Int(c) + 1] += 1 }
        for c in 1..<starts.count { starts[c] += starts[c - 1] }
        var next = starts
        var rows = [UInt32](repeating: 0, count: order.count)
        for r in order {
            let c = Int(codes[Int(r)])
            rows[next[c]] = r
            next[c] += 1
        }
        self.rows = rows
        self.starts = starts
    }

    func run(of code: UInt16) -> Range<Int> { starts[Int(code)]..<starts[Int(code) + 1] }
}

/// Cheap statistics of a table for the planner and for counts without a scan: rows per category and
/// per area code. Stored in the index snapshot (`categoryTag`, `areaTag`), else computed on first use
/// (one pass over two small columns).
struct TableStatistics: Sendable {
    /// Rows per category value.
    let categoryCounts: [Int32: Int]
    /// Rows per areacode dictionary code (index 0: no areacode); codes past the end count none.
    let areaCounts: [Int]

    static let categoryTag = "SCAT"
    static let areaTag = "SARE"

    init(category: some Sequence<Int32>, areaCodes: some Sequence<UInt16>, areaValues: Int) {
        var categories: [Int32: Int] = [:]
        for c in category { categories[c, default: 0] += 1 }
        var areas = [Int](repeating: 0, count: areaValues + 1)
        for c in areaCodes where Int(c) < areas.count { areas[Int(c)] += 1 }
        categoryCounts = categories
        areaCounts = areas
    }

    /// Statistics read from a snapshot: `categories` as (value, count) pairs flattened.
    init?(categories: Column<Int64>, areas: Column<Int64>) {
        guard categories.count % 2 == 0 else { return nil }
        var counts: [Int32: Int] = [:]
        for i in stride(from: 0, to: categories.count, by: 2) {
            counts[Int32(truncatingIfNeeded: categories[i])] = Int(categories[i + 1])
        }
        categoryCounts = counts
        areaCounts = areas.map { Int($0) }
    }

    /// The sections as snapshot values.
    var categorySection: [Int64] {
        categoryCounts.sorted { $0.key < $1.key }.flatMap { [Int64($0.key), Int64($0.value)] }
    }
    var areaSection: [Int64] { areaCounts.map(Int64.init) }

    /// Rows whose category is one of `categories`.
    func rows(inCategories categories: Set<Int>) -> Int {
        Set(categories.map { Int32(truncatingIfNeeded: $0) }).reduce(0) { $0 + (categoryCounts[$1] ?? 0) }
    }

    /// Rows with one of the areacode dictionary `codes`.
    func rows(inAreaCodes codes: some Sequence<UInt16>) -> Int {
        codes.reduce(0) { $0 + (Int($1) < areaCounts.count ? areaCounts[Int($1)] : 0) }
    }
}

/// A stored order split by category: the rows of each category, in the order of one date key (ties by
/// id rank), one run after another in ascending category value. A category's page by that date walks its
/// run from either end, and a range of that date inside a category is a sub-run found by two binary
/// searches: so `category c, modified ≥ d` counts in O(log n) (the `OCMO` run's tail), and a page of
/// `category c` by newest created walks the `OCCR` run backwards, testing the rest as it goes
/// (`QueryPlanner`, "category runs").
///
/// 4 B a place a key. Stored in the index snapshot (`tag(of:)`; the runs' bounds are the category
/// statistics' counts, so only the rows are stored); built on a table's second query that would walk one.
struct CategoryOrder: Sendable {
    /// The date keys with a category order.
    static let fields: [SortField] = [.created, .modified]

    static func tag(of field: SortField) -> String {
        switch field {
        case .created: "OCCR"
        case .modified: "OCMO"
        default: preconditionFailure("\(field) has no category order")
        }
    }

    let rows: Column<UInt32>
    /// Where each category's run starts and ends.
    private let runs: [Int32: Range<Int>]

    /// The order over `rows`, runs sized by `statistics` (ascending category); nil when the sizes do not
    /// add up to the rows (a damaged snapshot).
    init?(rows: Column<UInt32>, statistics: TableStatistics) {
        var runs: [Int32: Range<Int>] = [:]
        var start = 0
        for (c, n) in statistics.categoryCounts.sorted(by: { $0.key < $1.key }) {
            runs[c] = start..<start + n
            start += n
        }
        guard start == rows.count else { return nil }
        self.rows = rows
        self.runs = runs
    }

    /// `order` (one key's stored order) split by category: a stable partition, two passes.
    static func rows(order: Column<UInt32>, category: PackedColumn<Int32>, statistics: TableStatistics) -> [UInt32] {
        var next: [Int32: Int] = [:]
        var start = 0
        for (c, n) in statistics.categoryCounts.sorted(by: { $0.key < $1.key }) {
            next[c] = start
            start += n
        }
        var rows = [UInt32](repeating: 0, count: order.count)
        for r in order {
            let c = category[Int(r)]
            rows[next[c]!] = r
            next[c]! += 1
        }
        return rows
    }

    /// The run of category `c` (empty when no row has it).
    func run(of c: Int32) -> Range<Int> { runs[c] ?? 0..<0 }

    /// The positions of `run` whose row's key lies in `range` (rows without the date, key 0, never do):
    /// two binary searches.
    func span(_ run: Range<Int>, _ range: ClosedRange<Int64>, key: (Int) -> Int64) -> Range<Int> {
        Self.span(rows, run, range, key: key)
    }

    /// `span` over any rows whose `run` ascends by `key`.
    static func span(_ rows: Column<UInt32>, _ run: Range<Int>, _ range: ClosedRange<Int64>, key: (Int) -> Int64)
        -> Range<Int>
    {
        func first(_ isAfter: (Int64) -> Bool) -> Int {
            var lo = run.lowerBound
            var hi = run.upperBound
            while lo < hi {
                let mid = (lo + hi) / 2
                if isAfter(key(Int(rows[mid]))) { hi = mid } else { lo = mid + 1 }
            }
            return lo
        }
        let lo = first { $0 >= max(range.lowerBound, 1) }
        let hi = max(lo, first { $0 > range.upperBound })
        return lo..<hi
    }
}

/// A category order (`CategoryOrder`) split once more by region: within each category's run, the rows of
/// each 시도 (the first two characters of the legal-dong code `--ldong` matches, `CodeFamily.ldong`), still
/// in the date's order. A filter on categories, a legal-dong code and a range of that date then reads the
/// runs of its 시도 only, each cut to the range by binary search, as an index on (category, 시도, date)
/// would: the candidates of `category 12, ldong 11, modified ≥ d` are a sixth or so of the category's.
/// The runs hold a superset of a code's rows (a 시군구 code: its 시도's), so each row is still tested.
///
/// 4 B a place a date. In memory only: built from the category order on the second query of a date
/// that would use it (`PlaceTable.regionCategoryOrder`), a stable partition of each run (two passes).
struct RegionCategoryOrder: Sendable {
    let rows: Column<UInt32>
    /// The 시도 of each group, group 0 the rows without a coded legal-dong code (no value, or past the
    /// dictionary: such a row is compared as text, so group 0 is read for every code).
    private let prefixes: [String]
    /// For each category, where each group's run starts (group g: `starts[g]..<starts[g + 1]`).
    private let runs: [Int32: [Int]]

    init(order: CategoryOrder, categories: [Int32], ldong: CodeColumn) {
        // Groups by 시도, ascending; each dictionary code's group.
        let prefixOf = Dictionary(uniqueKeysWithValues: ldong.dictionary.keys.map { ($0, String($0.prefix(2))) })
        let prefixes = [""] + Set(prefixOf.values).sorted()
        let groupOfPrefix = Dictionary(uniqueKeysWithValues: prefixes.enumerated().dropFirst().map { ($1, $0) })
        var groupOfCode = [Int](repeating: 0, count: ldong.dictionary.count + 1)
        for (key, code) in ldong.dictionary where Int(code) < groupOfCode.count {
            groupOfCode[Int(code)] = groupOfPrefix[prefixOf[key]!]!
        }
        let groups = prefixes.count
        let codes = ldong.codes
        @inline(__always) func group(_ row: UInt32) -> Int {
            let c = Int(codes[Int(row)])
            return c < groupOfCode.count ? groupOfCode[c] : 0
        }
        var rows = [UInt32](repeating: 0, count: order.rows.count)
        var runs: [Int32: [Int]] = [:]
        for c in categories {
            let run = order.run(of: c)
            var starts = [Int](repeating: 0, count: groups + 1)
            for p in run { starts[group(order.rows[p]) + 1] += 1 }
            starts[0] = run.lowerBound
            for g in 1...groups { starts[g] += starts[g - 1] }
            var next = starts
            for p in run {
                let r = order.rows[p]
                let g = group(r)
                rows[next[g]] = r
                next[g] += 1
            }
            runs[c] = starts
        }
        self.rows = Column(rows)
        self.prefixes = prefixes
        self.runs = runs
    }

    /// The runs within category `c` that may hold rows of the legal-dong codes `ldong` (group 0 and each
    /// 시도 a code starts with or extends), non-empty, ascending.
    func runs(of c: Int32, ldong: Set<String>) -> [Range<Int>] {
        guard let starts = runs[c] else { return [] }
        var found: [Range<Int>] = []
        for (g, prefix) in prefixes.enumerated() where starts[g] < starts[g + 1] {
            if g == 0 || ldong.contains(where: { $0.hasPrefix(prefix) || prefix.hasPrefix($0) }) {
                found.append(starts[g]..<starts[g + 1])
            }
        }
        return found
    }

    /// The positions of `run` whose row's date lies in `range` (`CategoryOrder.span`).
    func span(_ run: Range<Int>, _ range: ClosedRange<Int64>, key: (Int) -> Int64) -> Range<Int> {
        CategoryOrder.span(rows, run, range, key: key)
    }
}
