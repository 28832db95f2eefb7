/// A coarse grid over a `PackedRTree`'s points that lists, per cell, the nodes of one level (2: 256
/// points each at node size 16) whose box meets the cell, in packing order.
///
/// Why: a walk from the root tests ~16 boxes a level before it reaches the few nodes a small circle
/// needs (~50 tests on the 100k workload), and a single start node over them is seldom far below the
/// root (a small box often straddles the curve's seams). The walk starts from the nodes the box's
/// cells list instead (`PackedRTree.View.startNodes`).
/// Exact by construction: a point inside a box lies in a cell between those of the box's corners
/// (`column` and `row` are monotone: a rounded subtraction, a multiplication by a non-negative
/// constant, a clamp, a truncation), its node's box holds it, and a node is listed in every cell
/// between those of its box's corners. About 2 cells per leaf and a few entries per node: about
/// 0.6 bytes per point at node size 16.
@usableFromInline
struct NodeGrid: Sendable {
    @usableFromInline let minX: Double, minY: Double
    /// Cells per unit of x and of y (0 when the points have no extent on that axis).
    @usableFromInline let cellsPerX: Double, cellsPerY: Double
    @usableFromInline let columns: Int, rows: Int
    /// The level whose nodes the cells list (0: none, the walk starts at the root).
    @usableFromInline let level: Int
    /// Most cells, and most nodes, a walk starts from; a larger box starts at the root.
    @usableFromInline static let maxCells = 4, maxStarts = 64

    /// The grid over the `nodes` boxes (minX, minY, maxX, maxY each) at `boxes`, those of `level`,
    /// whose union is `bounds`, with `cells` about twice `leaves`; and its lists: per cell, where its
    /// nodes start in the second array (one more offset at the end), row by row.
    static func build(
        level: Int, boxes: UnsafePointer<Double>, nodes: Int, leaves: Int,
        bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double)
    ) -> (grid: NodeGrid, offsets: [Int32], nodes: [Int32]) {
        let width = bounds.maxX - bounds.minX, height = bounds.maxY - bounds.minY
        let target = Double(max(1, 2 * leaves))
        var columns = 1, rows = 1
        if width > 0 && height > 0 {
            columns = Int(min(target, max(1, (target * width / height).squareRoot().rounded())))
            rows = Int(min(target, max(1, (target / Double(columns)).rounded())))
        } else if width > 0 {
            columns = Int(target)
        } else if height > 0 {
            rows = Int(target)
        }
        let grid = NodeGrid(
            minX: bounds.minX, minY: bounds.minY,
            cellsPerX: width > 0 ? Double(columns) / width : 0, cellsPerY: height > 0 ? Double(rows) / height : 0,
            columns: columns, rows: rows, level: nodes > 0 ? level : 0)
        var offsets = [Int32](repeating: 0, count: columns * rows + 1)
        /// Calls `body(cell)` for every cell node `j`'s box meets.
        func cells(of j: Int, _ body: (Int) -> Void) {
            let b = boxes + 4 * j
            let c0 = grid.column(b[0]), r0 = grid.row(b[1])
            for r in r0 ... max(r0, grid.row(b[3])) {
                for c in c0 ... max(c0, grid.column(b[2])) { body(r * columns + c) }
            }
        }
        for j in 0 ..< nodes { cells(of: j) { offsets[$0 + 1] += 1 } }
        for c in 0 ..< columns * rows { offsets[c + 1] += offsets[c] }
        var list = [Int32](repeating: 0, count: Int(offsets[columns * rows]))
        var next = offsets
        for j in 0 ..< nodes {
            cells(of: j) {
                list[Int(next[$0])] = Int32(j)
                next[$0] += 1
            }
        }
        return (grid, offsets, list)
    }

    @inlinable init(minX: Double, minY: Double, cellsPerX: Double, cellsPerY: Double, columns: Int, rows: Int, level: Int) {
        self.minX = minX; self.minY = minY; self.cellsPerX = cellsPerX; self.cellsPerY = cellsPerY
        self.columns = columns; self.rows = rows; self.level = level
    }

    /// The column of `x`, clamped to the grid (NaN and −∞ to the first, +∞ to the last).
    @inlinable func column(_ x: Double) -> Int {
        let c = (x - minX) * cellsPerX
        return !(c > 0) ? 0 : c >= Double(columns - 1) ? columns - 1 : Int(c)
    }

    @inlinable func row(_ y: Double) -> Int {
        let r = (y - minY) * cellsPerY
        return !(r > 0) ? 0 : r >= Double(rows - 1) ? rows - 1 : Int(r)
    }
}
