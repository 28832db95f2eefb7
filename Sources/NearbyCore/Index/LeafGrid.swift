/// A coarse grid over a `PackedRTree`'s points that says which leaves (level-1 nodes, in packing
/// order) can hold the points of a box: each cell keeps the first and the last leaf whose box meets it.
///
/// Why: a walk from the root tests ~16 boxes a level before it reaches the few leaves a small circle
/// needs (~50 tests on the 100k workload). The leaves a small box can need form a short run, so the
/// walk starts at the deepest node over that run (`PackedRTree.View.startNode`).
/// Exact by construction: a cell's run covers every leaf whose box meets the cell, and a point lies in
/// its leaf's box; `column` and `row` are monotone in their argument (a rounded subtraction, a
/// multiplication by a non-negative constant, a clamp, a truncation), so a point inside a box falls in
/// a cell between those of the box's corners, and a leaf's box is entered in every cell between those
/// of its corners. About 2 cells per leaf: 16 bytes per leaf, 1 byte per point at node size 16.
@usableFromInline
struct LeafGrid: Sendable {
    @usableFromInline let minX: Double, minY: Double
    /// Cells per unit of x and of y (0 when the points have no extent on that axis).
    @usableFromInline let cellsPerX: Double, cellsPerY: Double
    @usableFromInline let columns: Int, rows: Int
    /// Most cells a lookup reads before it gives up (the box is large: the walk starts at the root).
    @usableFromInline static let maxCells = 16

    /// The grid over the `leaves` leaf boxes (minX, minY, maxX, maxY each) at `boxes`, whose union is
    /// `bounds`, and its cells: (first leaf, last leaf) row by row, (Int32.max, −1) for a cell no
    /// leaf box meets.
    static func build(
        boxes: UnsafePointer<Double>, leaves: Int, bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double)
    ) -> (grid: LeafGrid, cells: [Int32]) {
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
        let grid = LeafGrid(
            minX: bounds.minX, minY: bounds.minY,
            cellsPerX: width > 0 ? Double(columns) / width : 0, cellsPerY: height > 0 ? Double(rows) / height : 0,
            columns: columns, rows: rows)
        var cells = [Int32](repeating: 0, count: 2 * columns * rows)
        for c in 0 ..< columns * rows { cells[2 * c] = .max; cells[2 * c + 1] = -1 }
        for leaf in 0 ..< leaves {
            let b = boxes + 4 * leaf
            for r in grid.row(b[1]) ... grid.row(b[3]) {
                for c in grid.column(b[0]) ... grid.column(b[2]) {
                    let cell = 2 * (r * columns + c)
                    if cells[cell] == .max { cells[cell] = Int32(leaf) }
                    cells[cell + 1] = Int32(leaf)
                }
            }
        }
        return (grid, cells)
    }

    @inlinable init(minX: Double, minY: Double, cellsPerX: Double, cellsPerY: Double, columns: Int, rows: Int) {
        self.minX = minX; self.minY = minY; self.cellsPerX = cellsPerX; self.cellsPerY = cellsPerY
        self.columns = columns; self.rows = rows
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

    /// The first and last leaf that can hold a point of the box (first > last: none can), read from
    /// `cells`; nil when the box spans more than `maxCells` cells.
    @inlinable func leaves(
        _ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double, cells: UnsafePointer<Int32>
    ) -> (first: Int, last: Int)? {
        let c0 = column(minX), c1 = column(maxX), r0 = row(minY), r1 = row(maxY)
        guard c0 <= c1 && r0 <= r1 else { return (Int(Int32.max), -1) }  // an inverted box holds nothing
        guard (c1 - c0 + 1) * (r1 - r0 + 1) <= Self.maxCells else { return nil }
        var first = Int(Int32.max), last = -1
        for r in r0 ... r1 {
            for c in c0 ... c1 {
                let cell = 2 * (r * columns + c)
                first = min(first, Int(cells[cell]))
                last = max(last, Int(cells[cell + 1]))
            }
        }
        return (first, last)
    }
}
