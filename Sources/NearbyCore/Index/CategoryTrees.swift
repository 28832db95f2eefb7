import Foundation

/// One packed R-tree per category over its rows' lon/lat, each built on the second query that needs it:
/// a circle with a category filter then costs what the radius path costs for that category alone
/// (subtrees inside the circle counted from their sizes, the page best-first), instead of a visit of
/// every point of the circle. Items are in id order, so the trees' ties (by item) are the engine's.
///
/// Not on the first query: a build reads every row (tens of milliseconds at 1M places), more than
/// the query it serves, so a process that answers one query (`nearby query` on a snapshot) visits
/// the circle instead, and a server or a batch builds the tree once the category comes back.
///
/// A tree's items are the table's rows themselves, its tie-break ranks the rows' order by id within the
/// category: a match is a row with no lookup through a second array (for a full answer that lookup would
/// be a cache miss a row), and ties go by id as the engine's do.
final class CategoryTrees: @unchecked Sendable {
    private let lock = NSLock()
    private var trees: [Int32: PackedRTree] = [:]
    /// Queries that asked for a category's tree before it was built.
    private var asked: [Int32: Int] = [:]

    /// The tree of `category`'s rows of `table` (items: rows); nil on the first request for it, and
    /// when the table's id order cannot be trusted (`PlaceTable.idOrderIsSound`).
    func tree(of category: Int32, in table: PlaceTable) -> PackedRTree? {
        lock.lock()
        if let t = trees[category] {
            lock.unlock()
            return t
        }
        asked[category, default: 0] += 1
        let wanted = asked[category]! >= 2
        lock.unlock()
        guard wanted, table.idOrderIsSound else { return nil }
        var rows: [Int32] = []
        for rank in 0..<table.count {
            let row = table.row(atIdRank: rank)
            if table.category[row] == category { rows.append(Int32(row)) }
        }
        // `rows` is in id order, so a row's rank is its position there.
        let t = PackedRTree(
            xs: rows.map { table.lon(Int($0)) }, ys: rows.map { table.lat(Int($0)) },
            ranks: Array(0..<UInt32(rows.count)), items: rows, cosines: true)
        lock.lock()
        defer { lock.unlock() }
        trees[category] = t
        return t
    }

    /// Bytes of the trees built so far.
    var byteCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return trees.values.reduce(0) { $0 + $1.byteCount }
    }
}
