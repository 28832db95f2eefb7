import Foundation

/// The plans of `QueryPlanner` over the structures beside the stored orders: the date orders split by
/// category (`CategoryOrder`) and the title postings (`TitlePostings`). Each is a `Candidate`: its cost in
/// the planner's unit (rows read; a read out of order counts twice) and how to run it.
///
/// - Category runs, for a filter on categories: each category's run of the created or modified order,
///   cut to the filter's range on that date by binary search. The page either walks the runs of the
///   sort's date (the sort is that date, or category then that date), testing the rest of the filter as
///   it goes and stopping when the page is full, or collects the matches of the smallest runs for the
///   engine to sort. The total is the runs' length when the filter is categories and one date range,
///   else a count over the smallest runs. With a legal-dong code (`--ldong`) the runs of its 시도 within
///   each category (`RegionCategoryOrder`) are candidates too: fewer rows to collect and count.
/// - Keyword postings, for a title keyword: the rows of the keyword's rarest key, each tested with the
///   whole filter (the area, the matcher; a keyword of one unit: the rest of the filter only): the
///   matches and their exact total; the engine sorts them.
extension QueryPlanner {
    struct Candidate {
        let cost: Double
        let run: () -> Walked?
    }

    /// The total of the query's filter from the category runs: their length (a binary search per
    /// category) when the filter is categories and at most one date range, else a count over the
    /// smallest set of runs. Nil without categories, without the orders, or with personal conditions.
    func categoryTotal(_ sets: [CategorySpans]?) -> (
        cost: Double, count: () -> (total: Int, source: String, touched: Int)
    )? {
        guard let sets else { return nil }
        var rest = query.filter
        rest.categories = nil
        rest.created = nil
        rest.modified = nil
        let ranged = sets.filter { $0.ranged && !$0.byRegion }
        let ranges = (query.filter.created == nil ? 0 : 1) + (query.filter.modified == nil ? 0 : 1)
        if rest.isEmpty && ranged.count == ranges && ranges <= 1 {
            let total =
                ranged.first?.size ?? table.tableStatistics().rows(inCategories: query.filter.categories!)
            let source =
                ranged.first.map { "\($0.field.rawValue) range lengths in category runs" } ?? "category statistics"
            return (0, { (total, source, 0) })
        }
        let smallest = sets.min { $0.size < $1.size }!
        return (
            2 * Double(smallest.size),
            {
                var c = 0
                for s in smallest.spans { for p in s where filter(Int(smallest.rows[p])) { c += 1 } }
                return (c, "count of the \(smallest.field.rawValue) category runs", smallest.size)
            }
        )
    }

    /// Each date's category runs for the query's categories (ascending), cut to its range when the
    /// filter has one: nil without categories or without the orders. Asked once a query (a table in
    /// memory builds the orders on the second query that asks).
    func categorySpans(now: Bool) -> [CategorySpans]? {
        guard let categories = query.filter.categories, !query.personal.filters else { return nil }
        let values = Set(categories.map { Int32(truncatingIfNeeded: $0) }).sorted()
        var sets: [CategorySpans] = []
        for field in CategoryOrder.fields {
            guard let order = table.categoryOrder(field, now: now) else { continue }
            let range = field == .created ? query.filter.created : query.filter.modified
            let key = sortKey(field)
            let spans = values.map { c in range.map { order.span(order.run(of: c), $0, key: key) } ?? order.run(of: c) }
            sets.append(
                CategorySpans(
                    field: field, rows: order.rows, categories: values, spans: spans,
                    size: spans.reduce(0) { $0 + $1.count },
                    ranged: range != nil))
            // A legal-dong code too: the runs of its 시도 within each category (`RegionCategoryOrder`).
            if let wanted = query.filter.ldong, let regional = table.regionCategoryOrder(field, now: now) {
                let spans = values.flatMap { c in
                    regional.runs(of: c, ldong: wanted).map { r in range.map { regional.span(r, $0, key: key) } ?? r }
                }
                sets.append(
                    CategorySpans(
                        field: field, rows: regional.rows, categories: values, spans: spans,
                        size: spans.reduce(0) { $0 + $1.count }, ranged: range != nil, byRegion: true))
            }
        }
        return sets.isEmpty ? nil : sets
    }

    /// The category-runs plan (the extension's doc), or nil when it does not apply.
    func categoryRuns(_ sets: [CategorySpans]?) -> Candidate? {
        guard let sets, let total = categoryTotal(sets) else { return nil }
        let keys = query.effectiveOrder.keys
        let values = sets[0].categories
        // The date a page walks, and whether the categories go descending.
        var walked: (set: CategorySpans, key: SortKey, categoriesDescending: Bool)?
        // A walk needs each category's rows in one run: not the runs split by region.
        let whole = sets.filter { !$0.byRegion }
        if keys.count == 2, keys[0].field == .category, let set = whole.first(where: { $0.field == keys[1].field }) {
            walked = (set, keys[1], keys[0].descending)
        } else if keys.count == 1, values.count == 1, let set = whole.first(where: { $0.field == keys[0].field }) {
            walked = (set, keys[0], false)
        }
        let offset = (query.page - 1) * query.limit
        let need = query.limit == 0 ? Int.max : offset + query.limit + (query.countsTotal ? 0 : 1)
        let smallest = sets.min { $0.size < $1.size }!
        let n = Double(max(smallest.size, 2))
        let collectCost = 2 * Double(smallest.size) + (query.limit == 0 ? n * log2(n) : n)
        var walkCost = Double.infinity
        if let w = walked {
            // Matches in the walked runs: exact when the total is their length, else a guess.
            let share = total.cost == 0 ? Double(total.count().total) / Double(max(w.set.size, 1)) : 0.5
            let reads = need == Int.max ? Double(w.set.size) : min(Double(w.set.size), Double(need) / max(share, 1e-9))
            walkCost = 2 * reads + (query.countsTotal ? total.cost : 0)
        }
        if let w = walked, walkCost <= collectCost {
            return Candidate(cost: walkCost) {
                walkRuns(w.set, w.key, w.categoriesDescending, need: need, total: total)
            }
        }
        return Candidate(cost: collectCost) {
            var rows: [Row] = []
            for s in smallest.spans {
                for p in s {
                    let row = Int(smallest.rows[p])
                    if filter(row) { rows.append(Row(item: row, dist: 0)) }
                }
            }
            let plan =
                "category runs: \(smallest.field.rawValue) order within categories \(values)"
                + "\(smallest.byRegion ? " split by 시도" : "")"
                + "\(smallest.ranged ? " by binary search" : ""), \(smallest.size) positions, matches sorted;"
                + " total: the matches"
            return Walked(
                rows: rows, total: rows.count,
                explanation: QueryExplanation(plan: plan, rowsTouched: smallest.size), sorted: false)
        }
    }

    /// Walks the runs of `set` (categories ascending, or descending) in `key`'s direction, taking the
    /// matches until the page is full; descending, each run of equal keys is read forwards (ties by id rank).
    private func walkRuns(
        _ set: CategorySpans, _ key: SortKey, _ categoriesDescending: Bool, need: Int,
        total: (cost: Double, count: () -> (total: Int, source: String, touched: Int))
    ) -> Walked {
        let offset = (query.page - 1) * query.limit
        let keyOf = sortKey(key.field)
        let rows = set.rows
        var page: [Row] = []
        var matched = 0
        var touched = 0
        func visit(_ p: Int) -> Bool {
            let row = Int(rows[p])
            touched += 1
            guard filter(row) else { return true }
            if matched >= offset { page.append(Row(item: row, dist: 0)) }
            matched += 1
            return matched < need
        }
        func walk(_ span: Range<Int>) -> Bool {
            if !key.descending {
                for p in span where !visit(p) { return false }
                return true
            }
            var p = span.upperBound
            while p > span.lowerBound {
                var s = p - 1
                let k = keyOf(Int(rows[s]))
                while s > span.lowerBound && keyOf(Int(rows[s - 1])) == k { s -= 1 }
                for q in s..<p where !visit(q) { return false }
                p = s
            }
            return true
        }
        let spans = categoriesDescending ? Array(set.spans.reversed()) : set.spans
        var complete = true
        for s in spans where !walk(s) {
            complete = false
            break
        }
        var result = matched
        var source = "the walk"
        if !query.countsTotal {
            source = "not counted (total=none)"
        } else if !complete || total.cost == 0 {
            let t = total.count()
            result = t.total
            source = t.source
            touched += t.touched
        }
        let plan =
            "category runs: \(key.field.rawValue) \(key.descending ? "descending" : "ascending") within categories "
            + "\(categoriesDescending ? set.categories.reversed() : set.categories)"
            + "\(set.ranged ? " by binary search" : ""); total: \(source)"
        return Walked(rows: page, total: result, explanation: QueryExplanation(plan: plan, rowsTouched: touched))
    }

    /// The keyword-postings plan (the extension's doc), or nil without a keyword, without postings, or
    /// with personal conditions (a memo may then match the keyword too).
    func keywordPostings(now: Bool) -> Candidate? {
        guard let keyword = query.filter.keyword, !query.personal.filters else { return nil }
        let matcher = KeywordMatcher(keyword)
        guard !matcher.isEmpty, let postings = table.titlePostings(now: now), let range = postings.candidates(matcher)
        else { return nil }
        var rest = query.filter
        rest.keyword = nil
        let m = Double(max(range.count, 2)) * (rest.isEmpty ? 1 : 0.5)
        // The postings are ascending rows: read in order, each counts once.
        let cost = Double(range.count) + (query.limit == 0 ? m * log2(m) : m)
        return Candidate(cost: cost) {
            var rows: [Row] = []
            // A keyword of one unit: the postings are its matches, so only the rest of the filter is tested.
            let exact = TitlePostings.isExact(matcher)
            let test = exact ? RowFilter(rest, table: table) : filter
            let all = exact && rest.isEmpty
            for p in range {
                let row = Int(postings.rows[p])
                // A row outside the table (damage no checksum saw): the engine scans instead.
                guard row < table.count else { return nil }
                if all || test(row) { rows.append(Row(item: row, dist: 0)) }
            }
            let tested = all ? "" : exact ? ", the rest of the filter tested" : ", filtered"
            let plan =
                "keyword postings: \(range.count) rows of the keyword's rarest key\(tested),"
                + " matches sorted; total: the matches"
            return Walked(
                rows: rows, total: rows.count, explanation: QueryExplanation(plan: plan, rowsTouched: range.count),
                sorted: false)
        }
    }
}

/// One date's category runs for a query (`QueryPlanner.categoryRuns`).
struct CategorySpans {
    let field: SortField
    /// The order's rows (`CategoryOrder` or `RegionCategoryOrder`) the spans are positions of.
    let rows: Column<UInt32>
    /// The query's categories, ascending; `spans[i]` is category i's run, cut to the date range.
    let categories: [Int32]
    let spans: [Range<Int>]
    let size: Int
    /// Whether the spans are cut to a range of the filter.
    let ranged: Bool
    /// Whether the spans are runs of the query's 시도 within each category (`RegionCategoryOrder`):
    /// several a category, so a superset of its matches to test, never a walk in the date's order.
    var byRegion = false
}
