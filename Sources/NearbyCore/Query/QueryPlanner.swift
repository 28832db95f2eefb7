import Foundation

/// What the engine did for a query (`--explain`): the plan, and how many rows it read to answer.
public struct QueryExplanation: Sendable, Hashable, CustomStringConvertible {
    public var plan: String
    /// Rows whose columns the plan read (filter checks, order positions, counted rows); statistics
    /// answered without reading rows count none.
    public var rowsTouched: Int

    public init(plan: String, rowsTouched: Int) {
        self.plan = plan
        self.rowsTouched = rowsTouched
    }

    public var description: String { "\(plan); rows touched: \(rowsTouched)" }
}

/// Which plan a query over every place (no circle, no k nearest) runs: `cheapest` lets the planner
/// choose; tests force the others to check that every plan gives the scan's answer.
enum PlanChoice: Sendable, CaseIterable {
    case cheapest, scan, orderWalk, categoryRuns, postings
}

/// Plans and runs a sorted page by walking a stored order (`SortOrders`) when that is cheaper than a
/// column scan and a sort of every match: the walk stops after `offset + limit` matches, starts a range
/// on the sort key by binary search, and gives up after a bound (the estimate was wrong) so the engine
/// scans instead. The total comes from the cheapest exact source: table statistics (category
/// counts), the rows per code of a code filter alone (`--ldong 11`: `PlaceTable.codeCounts`), the length
/// of the key range, the walk itself when it read the whole range, else a count.
/// A query of one area code walks only that area's run of the order split by area (`AreaOrder`, from
/// the second such query on), as an index on (area, key) would. Two more plans compete
/// (`IndexPlans.swift`): the category runs of a date (`CategoryOrder`), which also give a walk's total
/// when the filter has categories, and a keyword's title postings (`TitlePostings`).
///
/// Cost model (rows read; a walk reads rows out of order, so each counts twice): walk = 2 × the rows
/// it expects to read before the page is full + the count's rows; scan = every row + sorting the
/// matches (`m log m`, or `m` for a page's bounded heap); category runs = 2 × the positions they read,
/// postings = the rows they read (ascending, so in order), each + sorting the matches they collect.
/// Selectivities come from the statistics (categories, areas, codes: exact), the key range and the
/// runs' lengths (exact), else fixed guesses.
/// `--explain` names the plan that ran (`QueryExplanation`).
struct QueryPlanner {
    let table: PlaceTable
    let query: PlaceQuery
    let filter: RowFilter
    let order: RowOrder

    /// The page (its rows only), the total, and what was done; nil when the scan should answer.
    struct Walked {
        /// The page's rows; when the total is not counted, one more (if there is one) to tell that a
        /// next page exists.
        var rows: [Row]
        /// The total; when not counted, the matches read (offset + rows), enough to decide a next page.
        var total: Int
        var explanation: QueryExplanation
        /// False when `rows` are every match, unsorted (`total` their count), for the engine to order
        /// and page.
        var sorted = true
    }

    /// The page by the cheapest of a stored order walk, the category runs and the keyword postings
    /// (`IndexPlans.swift`), or nil when a scan is cheaper; a forced `choice` runs that plan alone (nil
    /// when it does not apply).
    func walk(_ choice: PlanChoice) -> Walked? {
        guard choice != .scan, query.shape == .all, query.cursor == nil, !query.effectiveOrder.usesDistance else {
            return nil
        }
        switch choice {
        case .categoryRuns: return categoryRuns(categorySpans(now: true))?.run()
        case .postings: return keywordPostings(now: true)?.run()
        case .orderWalk: return orderWalk(.orderWalk, alternative: .infinity, categorySpans(now: true))
        case .scan, .cheapest: break
        }
        guard query.filter.bbox == nil, query.filter.region == nil else { return nil }
        let sets = categorySpans(now: false)
        let best = [categoryRuns(sets), keywordPostings(now: false)].compactMap { $0 }.min { $0.cost < $1.cost }
        if let walked = orderWalk(.cheapest, alternative: best?.cost ?? .infinity, sets) { return walked }
        guard let best, best.cost < Double(table.count) else { return nil }
        return best.run()
    }

    /// Walks a stored order for the query's page, or nil (scan instead): the first key has no stored order
    /// (or the order uses distance), the scan or an `alternative` plan of that cost is cheaper
    /// (`cheapest`), or the walk passed its bound.
    private func orderWalk(_ choice: PlanChoice, alternative: Double, _ categorySets: [CategorySpans]?) -> Walked? {
        guard query.filter.bbox == nil || choice == .orderWalk,
            query.filter.region == nil || choice == .orderWalk
        else { return nil }
        let keys = query.effectiveOrder.keys
        let key = keys.first
        if let key, !SortOrders.fields.contains(key.field) { return nil }
        guard !query.effectiveOrder.usesDistance else { return nil }
        let n = table.count
        let offset = (query.page - 1) * query.limit
        // Without a total, one match past the page tells whether a next page exists.
        let need = query.limit == 0 ? Int.max : offset + query.limit + (query.countsTotal ? 0 : 1)

        // What the filter leaves once the range on the sort key is the walk's span.
        var rest = query.filter
        var range: ClosedRange<Int64>?
        if key?.field == .created {
            range = rest.created
            rest.created = nil
        }
        if key?.field == .modified {
            range = rest.modified
            rest.modified = nil
        }
        var other = rest
        other.categories = nil
        var otherThanAreas = rest
        otherThanAreas.areacodes = nil
        let statistics = table.tableStatistics()
        // Personal conditions are in no statistic.
        let personal = query.personal.filters
        let totalFromStatistics = rest.categories != nil && other.isEmpty && !personal
        // Area counts are exact unless the dictionary overflowed (rows then compared as text).
        let totalFromAreas =
            rest.areacodes != nil && otherThanAreas.isEmpty && table.areacode.dictionary.count < Int(UInt16.max) - 1
            && !personal
        let totalFromSpan = rest.isEmpty && !personal
        // One code family alone (`--ldong 11`): the rows per code (`PlaceTable.codeCounts`).
        let codeTotal = query.countsTotal && range == nil ? filter.codeTotal() : nil
        // One area and the order split by area (`AreaOrder`): the walk reads that area's run only.
        var areaRun: (rows: [UInt32], range: Range<Int>, code: String)?
        if let key, let a = rest.areacodes, a.count == 1, let code = table.areacode.codes(of: a).first,
            let split = table.areaOrder(key.field)
        {
            areaRun = (split.rows, split.run(of: code), a.first!)
        }
        let positions = areaRun?.range.count ?? n

        // Estimate before touching the order (building one in memory costs a sort).
        var selectivity = 1.0
        if let c = rest.categories { selectivity *= Double(statistics.rows(inCategories: c)) / Double(max(n, 1)) }
        if let a = rest.areacodes, areaRun == nil {
            selectivity *= Double(statistics.rows(inAreaCodes: table.areacode.codes(of: a))) / Double(max(n, 1))
        }
        if rest.keyword != nil { selectivity *= 0.3 }
        var unknown = other
        unknown.areacodes = nil
        unknown.keyword = nil
        for family in CodeFamily.allCases { family.clear(in: &unknown) }
        if let share = filter.codeShare() { selectivity *= share }
        if !unknown.isEmpty { selectivity *= 0.5 }
        if personal { selectivity *= 0.01 }
        let rangeShare = range == nil ? 1.0 : 0.5
        let span = Double(positions) * rangeShare
        let expectedMatches = span * selectivity
        // More keys: the walk reads whole runs of equal first keys (categories: long runs).
        let run = keys.count > 1 && key?.field == .category ? span / Double(max(statistics.categoryCounts.count, 1)) : 1
        let expectedReads = need == Int.max ? span : min(span, max(run, Double(need) / max(selectivity, 1e-9)))
        let counted =
            !(totalFromStatistics || totalFromAreas || totalFromSpan || codeTotal != nil || !query.countsTotal)
        // A count the category runs answer (their length, or a count of fewer rows).
        let categoryCount = counted ? categoryTotal(categorySets) : nil
        let countReads = counted ? min(categoryCount?.cost ?? span, span) : 0
        let walkCost = 2 * expectedReads + countReads
        let sortCost = query.limit == 0 ? expectedMatches * log2(max(expectedMatches, 2)) : expectedMatches
        if choice == .cheapest && walkCost >= min(Double(n) + sortCost, alternative) { return nil }

        // The order as positions → rows: a stored order, or id order (no column needed).
        let rowAt: (Int) -> Int
        if let areaRun {
            let rows = areaRun.rows
            let base = areaRun.range.lowerBound
            rowAt = { Int(rows[base + $0]) }
        } else if let key {
            guard let order = table.sortOrder(key.field) else { return nil }
            rowAt = { Int(order[$0]) }
        } else {
            guard table.idOrderIsSound else { return nil }
            rowAt = { [table] in table.row(atIdRank: $0) }
        }
        let keyOf = sortKey(key?.field)
        var lo = 0
        var hi = positions
        if let range {
            // Rows without the date (0) never match a date range.
            lo = firstPosition(positions, rowAt, keyOf) { $0 >= max(range.lowerBound, 1) }
            hi = max(lo, firstPosition(positions, rowAt, keyOf) { $0 > range.upperBound })
        }
        let bound = need == Int.max || choice == .orderWalk ? Int.max : max(4 * Int(expectedReads.rounded(.up)), 10_000)

        var rows: [Row] = []
        var matched = 0
        var touched = 0
        var exceeded = false
        /// Takes one match in order; false when the page is full.
        func take(_ row: Int) -> Bool {
            if matched >= offset { rows.append(Row(item: row, dist: 0)) }
            matched += 1
            return matched < need
        }
        /// Reads one position; false when the page is full or the bound is passed.
        func visit(_ position: Int) -> Bool {
            let row = rowAt(position)
            touched += 1
            if filter(row) && !take(row) { return false }
            if touched >= bound {
                exceeded = true
                return false
            }
            return true
        }
        /// Reads the run of positions `s..<e` (one value of the first key): forwards when the first key
        /// decides alone (ties by id rank, the stored order's), else its matches sorted by every key.
        func visitRun(_ s: Int, _ e: Int) -> Bool {
            guard keys.count > 1 else {
                for p in s..<e where !visit(p) { return false }
                return true
            }
            var run: [Row] = []
            for p in s..<e where filter(rowAt(p)) { run.append(Row(item: rowAt(p), dist: 0)) }
            touched += e - s
            for r in run.sorted(by: order.less) where !take(r.item) { return false }
            if touched >= bound {
                exceeded = true
                return false
            }
            return true
        }
        if key?.descending == true {
            // Descending by key, ties still by ascending id rank: each run of equal keys forwards.
            var p = hi
            while p > lo {
                var s = p - 1
                let k = keyOf(rowAt(s))
                while s > lo && keyOf(rowAt(s - 1)) == k { s -= 1 }
                if !visitRun(s, p) { break }
                p = s
            }
        } else if keys.count > 1 {
            var s = lo
            while s < hi {
                let k = keyOf(rowAt(s))
                var e = s + 1
                while e < hi && keyOf(rowAt(e)) == k { e += 1 }
                if !visitRun(s, e) { break }
                s = e
            }
        } else {
            var p = lo
            while p < hi && visit(p) { p += 1 }
        }
        if exceeded { return nil }
        // Every position read, and the page not full (a full page may have stopped inside the last run).
        let readAll = touched == hi - lo && matched < need

        let total: Int
        let source: String
        if !query.countsTotal {
            total = matched
            source = "not counted (total=none)"
        } else if totalFromStatistics && range == nil {
            total = statistics.rows(inCategories: rest.categories!)
            source = "category statistics"
        } else if totalFromAreas && range == nil {
            total = statistics.rows(inAreaCodes: table.areacode.codes(of: rest.areacodes!))
            source = "area statistics"
        } else if let codeTotal {
            total = codeTotal
            source = "code counts"
        } else if totalFromSpan {
            total = hi - lo
            source = range == nil ? "row count" : "key range length"
        } else if readAll {
            total = matched
            source = "the walk"
        } else if let categoryCount, categoryCount.cost < Double(hi - lo) {
            let t = categoryCount.count()
            total = t.total
            source = t.source
            touched += t.touched
        } else {
            var c = 0
            if range != nil || areaRun != nil {
                for p in lo..<hi where filter(rowAt(p)) { c += 1 }
            } else {
                c = filter.count(0..<n)
            }
            touched += hi - lo
            total = c
            source = "count of \(range == nil && areaRun == nil ? "every row" : "the key range")"
        }
        let name =
            (key.map { "\($0.field.rawValue) \($0.descending ? "descending" : "ascending")" } ?? "id")
            + (areaRun.map { " within areacode \($0.code)" } ?? "")
            + (keys.count > 1 ? ", runs sorted by \(query.effectiveOrder)" : "")
        let plan =
            "order walk: \(name) order, positions \(lo)..<\(hi)\(range == nil ? "" : " by binary search"); total: \(source)"
        return Walked(rows: rows, total: total, explanation: QueryExplanation(plan: plan, rowsTouched: touched))
    }

    /// The value a stored order is sorted by, for a row (id order: none, every row ties).
    func sortKey(_ field: SortField?) -> (Int) -> Int64 {
        let t = table
        switch field {
        case .title?:
            let r = t.titleRanks()
            return { Int64(r[$0]) }
        case .modified?: return { t.modified[$0] }
        case .created?: return { t.created[$0] }
        case .category?: return { Int64(t.category[$0]) }
        case .distance?, .rating?, .bookmarked?, .memo?, .visited?, nil: return { _ in 0 }
        }
    }

    /// First of `n` positions whose row's key satisfies `isAfter` (keys ascend along the order).
    private func firstPosition(_ n: Int, _ rowAt: (Int) -> Int, _ key: (Int) -> Int64, _ isAfter: (Int64) -> Bool)
        -> Int
    {
        var lo = 0
        var hi = n
        while lo < hi {
            let mid = (lo + hi) / 2
            if isAfter(key(rowAt(mid))) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}
