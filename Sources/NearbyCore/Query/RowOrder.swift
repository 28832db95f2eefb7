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
    /// True when the order is plain ascending distance, the order of best-first nearest search.
    let isDistanceOnly: Bool
    let usesDistance: Bool

    init(_ order: PlaceOrder, table: PlaceTable) {
        keys = order.keys
        self.table = table
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
        if isDistanceOnly {
            // Plain distance order inlined (the order of most queries), not a loop over the keys.
            let table = table
            Self.selectTop(m, in: &rows) { $0.dist < $1.dist || ($0.dist == $1.dist && table.idRank($0.item) < table.idRank($1.item)) }
        } else {
            Self.selectTop(m, in: &rows, by: less)
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
    private static func siftDown(_ heap: UnsafeMutableBufferPointer<Row>, _ n: Int, _ start: Int, _ less: (Row, Row) -> Bool) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var worst = i
            if l < n && less(heap[worst], heap[l]) { worst = l }
            if r < n && less(heap[worst], heap[r]) { worst = r }
            if worst == i { return }
            heap.swapAt(i, worst)
            i = worst
        }
    }
}
