/// A candidate answer row: a `PlaceTable` row and its distance from the query centre (0 without one).
struct Row: Equatable {
    var item: Int
    var dist: Double
}

/// A `PlaceOrder` compiled against one table: a strict total order on rows, ties broken by id
/// order (`PlaceTable.idRank`).
struct RowOrder {
    private let keys: [SortKey]
    private let table: PlaceTable
    /// Title ranks, when a key is the title.
    private let ranks: Column<UInt32>?
    /// The user's data on this table's rows, when a key reads it.
    private let personal: PersonalRows?
    /// True when the order is plain ascending distance, the order of best-first nearest search.
    let isDistanceOnly: Bool
    let usesDistance: Bool

    init(_ order: PlaceOrder, table: PlaceTable, personal: PersonalRows? = nil) {
        keys = order.keys
        self.table = table
        self.personal = personal
        ranks = order.usesTitle ? table.titleRanks() : nil
        isDistanceOnly = keys.count == 1 && keys[0] == SortKey(.distance)
        usesDistance = keys.contains { $0.field == .distance }
    }

    func less(_ a: Row, _ b: Row) -> Bool {
        for key in keys {
            let c: Int
            switch key.field {
            case .distance: c = Self.compare(a.dist, b.dist)
            case .title: c = Self.compare(ranks![a.item], ranks![b.item])
            case .created: c = Self.compare(table.created[a.item], table.created[b.item])
            case .modified: c = Self.compare(table.modified[a.item], table.modified[b.item])
            case .category: c = Self.compare(table.category[a.item], table.category[b.item])
            case .rating, .bookmarked, .memo, .visited:
                c = Self.compare(
                    personal?.value(key.field, a.item) ?? -.infinity, personal?.value(key.field, b.item) ?? -.infinity)
            }
            if c != 0 { return key.descending ? c > 0 : c < 0 }
        }
        return table.idRank(a.item) < table.idRank(b.item)
    }

    @inline(__always)
    private static func compare<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (b < a ? 1 : 0) }

    /// Leaves in `rows` its first `m` rows in this order, sorted. Costs O(n log m) with a bounded
    /// max-heap when m is smaller than n, so a page never pays for sorting every match; works in place.
    func selectTop(_ m: Int, in rows: inout [Row]) {
        if isDistanceOnly { return Self.selectTopByDistance(m, in: &rows, table: table) }
        if keys.isEmpty && m >= rows.count { return Self.sortByIDRank(&rows, table: table) }
        if keys.count == 1, keys[0].field == .title, let ranks, m < rows.count {
            return Self.selectTopByRank(m, in: &rows, ranks: ranks, descending: keys[0].descending, table: table)
        }
        Self.selectTop(m, in: &rows, by: less)
    }

    /// `selectTop` of a page by title (a keyword's matches, say): each row's title rank and id rank
    /// packed in one integer, the order `less` gives, so the bounded heap compares integers instead of
    /// rows through `less` (column reads and reference counts a comparison). The heap finds the m-th
    /// key; a second pass keeps the rows up to it, and those few are sorted.
    static func selectTopByRank(
        _ m: Int, in rows: inout [Row], ranks: Column<UInt32>, descending: Bool, table: PlaceTable
    ) {
        guard m > 0 else { return rows.removeAll() }
        @inline(__always) func packed(_ r: Row) -> UInt64 {
            let rank = ranks[r.item]
            return UInt64(descending ? UInt32.max - rank : rank) << 32 | UInt64(table.idRank(r.item))
        }
        var heap = [UInt64](repeating: 0, count: m)
        heap.withUnsafeMutableBufferPointer { h in
            // A max-heap of the m smallest keys seen: h[0] is the greatest of them.
            var size = 0
            for r in rows {
                let k = packed(r)
                if size < m {
                    var i = size
                    size += 1
                    while i > 0 && h[(i - 1) / 2] < k {
                        h[i] = h[(i - 1) / 2]
                        i = (i - 1) / 2
                    }
                    h[i] = k
                } else if k < h[0] {
                    var i = 0
                    while true {
                        let l = 2 * i + 1
                        guard l < m else { break }
                        let c = l + 1 < m && h[l + 1] > h[l] ? l + 1 : l
                        guard h[c] > k else { break }
                        h[i] = h[c]
                        i = c
                    }
                    h[i] = k
                }
            }
        }
        let last = heap[0]
        var best: [(key: UInt64, row: Row)] = []
        best.reserveCapacity(m)
        for r in rows {
            let k = packed(r)
            if k <= last { best.append((k, r)) }
        }
        best.sort { $0.key < $1.key }
        rows = best.prefix(m).map(\.row)
    }

    /// Every row in id order (the default order without a centre: a map's tile asks for every place
    /// of its box so): each row's id rank and position packed in one integer and those sorted, not
    /// the rows through `less`, whose column reads cost a retain and release a comparison.
    static func sortByIDRank(_ rows: inout [Row], table: PlaceTable) {
        guard rows.count > 1, rows.count <= Int(UInt32.max) else {
            return rows.sort { table.idRank($0.item) < table.idRank($1.item) }
        }
        var keys = [UInt64](repeating: 0, count: rows.count)
        for i in rows.indices { keys[i] = UInt64(table.idRank(rows[i].item)) << 32 | UInt64(i) }
        keys.sort()
        let old = rows
        for i in rows.indices { rows[i] = old[Int(keys[i] & 0xFFFF_FFFF)] }
    }

    /// `selectTop` in plain distance order (the order of most queries), with no order made: the whole
    /// answer by buckets (`sortByDistance`), a page with the comparison inlined, not a loop over the keys.
    static func selectTopByDistance(_ m: Int, in rows: inout [Row], table: PlaceTable) {
        if m >= rows.count { return sortByDistance(&rows, table: table) }
        selectTop(m, in: &rows) {
            $0.dist < $1.dist || ($0.dist == $1.dist && table.idRank($0.item) < table.idRank($1.item))
        }
    }

    @inline(__always)
    private static func selectTop(_ m: Int, in rows: inout [Row], by less: (Row, Row) -> Bool) {
        if m >= rows.count {
            // The whole answer: a full sort is the least it can cost.
            rows.sort(by: less)
            return
        }
        guard m > 0 else { return rows.removeAll() }
        rows.withUnsafeMutableBufferPointer { r in
            // Max-heap by `less` in r[0..<m]: r[0] is the worst of the best m seen so far.
            for i in stride(from: m / 2 - 1, through: 0, by: -1) { siftDown(r, m, i, less) }
            for j in m..<r.count where less(r[j], r[0]) {
                r[0] = r[j]
                siftDown(r, m, 0, less)
            }
            var best = UnsafeMutableBufferPointer(rebasing: r[0..<m])
            best.sort(by: less)
        }
        rows.removeSubrange(m...)
    }

    @inline(__always)
    private static func siftDown(
        _ heap: UnsafeMutableBufferPointer<Row>, _ n: Int, _ start: Int, _ less: (Row, Row) -> Bool
    ) {
        var i = start
        while true {
            let l = 2 * i + 1
            let r = l + 1
            var worst = i
            if l < n && less(heap[worst], heap[l]) { worst = l }
            if r < n && less(heap[worst], heap[r]) { worst = r }
            if worst == i { return }
            heap.swapAt(i, worst)
            i = worst
        }
    }
}

extension RowOrder {
    /// A short list (most answers) sorted by (distance, id rank) by insertion in place, as the standard
    /// library's sort does below 64 elements, without its closure context and the reference counts it costs.
    /// The comparison is written out: through a helper shared with `selectTopByDistance` it compiles
    /// 2–4 % slower at 100k (`nearby bench radius`).
    @inline(__always)
    static func insertionSortByDistance(_ r: UnsafeMutableBufferPointer<Row>, table: PlaceTable) {
        for i in r.indices.dropFirst() {
            let row = r[i]
            var j = i
            while j > 0
                && (row.dist < r[j - 1].dist
                    || (row.dist == r[j - 1].dist && table.idRank(row.item) < table.idRank(r[j - 1].item)))
            {
                r[j] = r[j - 1]
                j -= 1
            }
            r[j] = row
        }
    }

    /// Sorts `rows` by (distance, id rank), the order `less` gives plain distance, in expected linear
    /// time: each row goes to one of n buckets by its squared distance over the greatest one
    /// (a monotone key, so buckets are in order; squared, so points spread evenly over a disc land in
    /// evenly filled buckets), then each bucket is sorted by the full comparison (insertion sort when
    /// small). The order is the same as any sort by (distance, id rank): ids are unique, so it is total.
    /// Lists of fewer than 64 rows are sorted by insertion in place. Falls back to a comparison sort
    /// for distances that are negative, infinite or NaN (a projection that could not place a row),
    /// and when the greatest one squared leaves the normal range.
    static func sortByDistance(_ rows: inout [Row], table: PlaceTable) {
        let n = rows.count
        func less(_ a: Row, _ b: Row) -> Bool {
            a.dist < b.dist || (a.dist == b.dist && table.idRank(a.item) < table.idRank(b.item))
        }
        if n < 64 { return rows.withUnsafeMutableBufferPointer { insertionSortByDistance($0, table: table) } }
        var greatest = 0.0
        var measurable = true
        for r in rows {
            guard measurable else { break }
            measurable = r.dist >= 0 && r.dist.isFinite
            greatest = max(greatest, r.dist)
        }
        let square = greatest * greatest
        let scale = Double(n) / square
        guard measurable, square > 0, square.isFinite, scale.isFinite else { return rows.sort(by: less) }
        let last = Double(n - 1)
        @inline(__always) func bucket(_ d: Double) -> Int { Int(min(last, d * d * scale)) }
        rows = [Row](unsafeUninitializedCapacity: n) { out, initialized in
            // ends[b + 1] counts bucket b, then is summed into where bucket b ends.
            var ends = [Int](repeating: 0, count: n + 1)
            for r in rows { ends[bucket(r.dist) + 1] += 1 }
            for b in 1...n { ends[b] += ends[b - 1] }
            for r in rows {
                let b = bucket(r.dist)
                out.initializeElement(at: ends[b], to: r)
                ends[b] += 1
            }
            initialized = n
            // ends[b] now ends bucket b (it began where bucket b - 1 ended).
            var start = 0
            for b in 0..<n {
                let end = ends[b]
                defer { start = end }
                guard end - start > 1 else { continue }
                if end - start > 16 {
                    var bucketRows = UnsafeMutableBufferPointer(rebasing: out[start..<end])
                    bucketRows.sort(by: less)
                    continue
                }
                for i in start + 1..<end {
                    let row = out[i]
                    var j = i
                    while j > start && less(row, out[j - 1]) {
                        out[j] = out[j - 1]
                        j -= 1
                    }
                    out[j] = row
                }
            }
        }
    }
}
