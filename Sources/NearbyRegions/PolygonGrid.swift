import Foundation

/// Exact point-in-polygon for one layer of regions (a set of polygons with holes, islands and
/// multipolygons), touching only the edges of one grid cell per lookup.
///
/// Method: every cell of a regular grid over the layer knows which regions hold its centre c (found
/// once at build by a scanline along each row's centre line) and the edges that meet it. A point q in
/// the cell lies in region R exactly when c does, XOR the segment c→q crosses R's boundary an odd
/// number of times (the Jordan curve theorem; the crossing-number test of Shimrat 1962 / Haines,
/// "Point in Polygon Strategies", Graphics Gems IV, 1994, with the ray cut at c). Only edges that meet
/// the cell can cross c→q, since both ends lie in the cell, which is convex. Coordinates are integers
/// of 1/scale degree; c sits off the lattice (`centreOffset`), so it never coincides with a vertex. Ties (q on an edge's
/// line, a vertex on c→q) go to the same side every time (orientation ≤ 0), which keeps the parity
/// of each ring consistent: a point on a shared border lands in one of the two neighbours.
struct PolygonGrid: Sendable {
    /// One boundary edge, points[point] → points[point + 1], on arc `arc` (the regions on either side
    /// share it: a crossing flips them all).
    struct EdgeRef: Sendable {
        var point: Int32
        var arc: Int32
    }

    /// Moves each cell's centre off the integer lattice and off the half-integer points that edges
    /// between lattice points can pass through.
    static let centreOffset = SIMD2(0.318_309_886, 0.271_828_183)

    let points: [SIMD2<Int32>]
    let originX: Double, originY: Double
    let cellWidth: Double, cellHeight: Double
    let columns: Int, rows: Int
    /// Cell k's edges are edges[edgeStart[k] ..< edgeStart[k + 1]].
    private let edgeStart: [Int32]
    private let edges: [EdgeRef]
    /// Arc a bounds arcRegions[arcRegionStart[a] ..< arcRegionStart[a + 1]] (once per use: a region
    /// using an arc twice sees its crossings twice, which keeps parity right).
    private let arcRegionStart: [Int32]
    private let arcRegions: [Int32]
    private let maxRegionsPerArc: Int
    /// Cell k's centre lies in centreRegions[centreStart[k] ..< centreStart[k + 1]] (usually 0 or 1).
    private let centreStart: [Int32]
    private let centreRegions: [Int32]
    /// Per region: (minX, minY, maxX, maxY) in units.
    let boxes: [SIMD4<Int32>]
    /// The arc-box corners outermost in their grid column or row: they trace the layer's outline to
    /// within a cell, so they stand in for the layer when seen from far away.
    let outerPoints: [SIMD2<Int32>]

    /// `refs[refStart[r] ..< refStart[r + 1]]` are the arc references of region r (any order:
    /// parity needs no ring order).
    init(points: [SIMD2<Int32>], arcStart: [Int32], refs: [Int32], refStart: [Int32], cellSize: Int32) {
        self.points = points
        let arcCount = arcStart.count - 1
        let regionCount = refStart.count - 1
        var lo = SIMD2<Int32>(repeating: .max)
        var hi = SIMD2<Int32>(repeating: .min)
        var arcBoxes = [SIMD4<Int32>](repeating: SIMD4(.max, .max, .min, .min), count: arcCount)
        for a in 0..<arcCount {
            var box = SIMD4<Int32>(.max, .max, .min, .min)
            for i in Int(arcStart[a])..<Int(arcStart[a + 1]) {
                let p = points[i]
                box = SIMD4(min(box.x, p.x), min(box.y, p.y), max(box.z, p.x), max(box.w, p.y))
            }
            arcBoxes[a] = box
            lo = pointwiseMin(lo, SIMD2(box.x, box.y))
            hi = pointwiseMax(hi, SIMD2(box.z, box.w))
        }
        if points.isEmpty { (lo, hi) = (.zero, .zero) }
        let originX = Double(lo.x) - 1
        let originY = Double(lo.y) - 1
        let cellWidth = Double(cellSize)
        let cellHeight = Double(cellSize)
        let columns = Int((Double(hi.x) + 1 - originX) / cellWidth) + 1
        let rows = Int((Double(hi.y) + 1 - originY) / cellHeight) + 1
        (self.originX, self.originY, self.cellWidth, self.cellHeight) = (originX, originY, cellWidth, cellHeight)
        (self.columns, self.rows) = (columns, rows)
        func centreX(column: Int) -> Double { originX + (Double(column) + 0.5) * cellWidth + Self.centreOffset.x }
        func centreY(row: Int) -> Double { originY + (Double(row) + 0.5) * cellHeight + Self.centreOffset.y }

        var low = [SIMD2<Int32>?](repeating: nil, count: columns)
        var high = low
        var left = [SIMD2<Int32>?](repeating: nil, count: rows)
        var right = left
        for box in arcBoxes {
            let c0 = Int((Double(box.x) - originX) / cellWidth)
            let c1 = Int((Double(box.z) - originX) / cellWidth)
            let r0 = Int((Double(box.y) - originY) / cellHeight)
            let r1 = Int((Double(box.w) - originY) / cellHeight)
            if low[c0] == nil || box.y < low[c0]!.y { low[c0] = SIMD2(box.x, box.y) }
            if high[c1] == nil || box.w > high[c1]!.y { high[c1] = SIMD2(box.z, box.w) }
            if left[r0] == nil || box.x < left[r0]!.x { left[r0] = SIMD2(box.x, box.y) }
            if right[r1] == nil || box.z > right[r1]!.x { right[r1] = SIMD2(box.z, box.w) }
        }
        outerPoints = (low + high + left + right).compactMap { $0 }

        // Regions per arc (count, prefix sum, fill), and each region's box from its arcs' boxes.
        var aStart = [Int32](repeating: 0, count: arcCount + 1)
        for ref in refs { aStart[Int(ref >= 0 ? ref : ~ref) + 1] += 1 }
        for a in 0..<arcCount { aStart[a + 1] += aStart[a] }
        var aFill = aStart
        var arcRegions = [Int32](repeating: 0, count: refs.count)
        var boxes = [SIMD4<Int32>](repeating: SIMD4(.max, .max, .min, .min), count: regionCount)
        for r in 0..<regionCount {
            var box = SIMD4<Int32>(.max, .max, .min, .min)
            for k in Int(refStart[r])..<Int(refStart[r + 1]) {
                let a = Int(refs[k] >= 0 ? refs[k] : ~refs[k])
                arcRegions[Int(aFill[a])] = Int32(r)
                aFill[a] += 1
                let b = arcBoxes[a]
                box = SIMD4(min(box.x, b.x), min(box.y, b.y), max(box.z, b.z), max(box.w, b.w))
            }
            boxes[r] = box
        }
        self.boxes = boxes
        arcRegionStart = aStart
        self.arcRegions = arcRegions
        maxRegionsPerArc = (0..<arcCount).reduce(1) { max($0, Int(aStart[$1 + 1] - aStart[$1])) }

        // Edges of arcs that bound some region into the cells their boxes meet.
        let cellCount = columns * rows
        // Cell coordinates in integers (the grid's origin and cell side are whole units).
        let ox = Int(lo.x) - 1
        let oy = Int(lo.y) - 1
        let side = Int(cellSize)
        @inline(__always) func cellRange(_ i: Int) -> (Int, Int, Int, Int) {
            let a = points[i]
            let b = points[i + 1]
            return (
                (Int(min(a.x, b.x)) - ox) / side, (Int(max(a.x, b.x)) - ox) / side,
                (Int(min(a.y, b.y)) - oy) / side, (Int(max(a.y, b.y)) - oy) / side
            )
        }
        // Plain loops below, no closures: captured `var`s would be boxed and access-checked.
        // Most edges lie in one cell: remember it (-1 for the others) so the fill pass need not redo it.
        var singleCell = [Int32](repeating: -1, count: points.count)
        var start = [Int32](repeating: 0, count: cellCount + 1)
        for a in 0..<arcCount where aStart[a] < aStart[a + 1] {
            for i in Int(arcStart[a])..<Int(arcStart[a + 1]) - 1 {
                let (c0, c1, r0, r1) = cellRange(i)
                if c0 == c1 && r0 == r1 {
                    singleCell[i] = Int32(r0 * columns + c0)
                    start[r0 * columns + c0 + 1] += 1
                } else {
                    for r in r0...r1 { for c in c0...c1 { start[r * columns + c + 1] += 1 } }
                }
            }
        }
        for k in 0..<cellCount { start[k + 1] += start[k] }
        var fill = start
        var edges = [EdgeRef](repeating: EdgeRef(point: 0, arc: 0), count: Int(start[cellCount]))
        // Scanline along each row's centre line: where it crosses a region's boundary, sorted by x,
        // consecutive pairs bound the stretches inside the region; the cell centres there are inside.
        struct Crossing {
            var row: Int32
            var region: Int32
            var x: Double
        }
        var crossings: [Crossing] = []
        for arc in 0..<arcCount where aStart[arc] < aStart[arc + 1] {
            for i in Int(arcStart[arc])..<Int(arcStart[arc + 1]) - 1 {
                let edge = EdgeRef(point: Int32(i), arc: Int32(arc))
                let rows: ClosedRange<Int>
                if singleCell[i] >= 0 {
                    let k = Int(singleCell[i])
                    edges[Int(fill[k])] = edge
                    fill[k] += 1
                    rows = (k / columns)...(k / columns)
                } else {
                    let (c0, c1, r0, r1) = cellRange(i)
                    for r in r0...r1 {
                        for c in c0...c1 {
                            let k = r * columns + c
                            edges[Int(fill[k])] = edge
                            fill[k] += 1
                        }
                    }
                    rows = r0...r1
                }
                let a = points[i]
                let b = points[i + 1]
                let ay = Double(a.y)
                let by = Double(b.y)
                for r in rows {
                    let y = centreY(row: r)
                    guard (ay <= y) != (by <= y) else { continue }
                    let x = Double(a.x) + (y - ay) * Double(b.x - a.x) / (by - ay)
                    for k in Int(aStart[arc])..<Int(aStart[arc + 1]) {
                        crossings.append(Crossing(row: Int32(r), region: arcRegions[k], x: x))
                    }
                }
            }
        }
        edgeStart = start
        self.edges = edges
        crossings.sort { ($0.row, $0.region, $0.x) < ($1.row, $1.region, $1.x) }
        // Pairs of crossings → stretches of cells (row, first column, end column, region), then
        // (cell, region) entries bucketed by cell (count, prefix sum, fill).
        var stretches: [(row: Int, first: Int, end: Int, region: Int32)] = []
        var i = 0
        while i + 1 < crossings.count {
            let a = crossings[i]
            let b = crossings[i + 1]
            guard a.row == b.row, a.region == b.region else {
                i += 1
                continue
            }  // odd count: a broken ring
            var first = max(0, Int(((a.x - Self.centreOffset.x - originX) / cellWidth - 0.5).rounded(.up)))
            while first < columns, centreX(column: first) < a.x { first += 1 }
            var end = first
            while end < columns, centreX(column: end) < b.x { end += 1 }
            if end > first { stretches.append((Int(a.row), first, end, a.region)) }
            i += 2
        }
        var cStart = [Int32](repeating: 0, count: cellCount + 1)
        for s in stretches { for c in s.first..<s.end { cStart[s.row * columns + c + 1] += 1 } }
        for k in 0..<cellCount { cStart[k + 1] += cStart[k] }
        var cFill = cStart
        var centreRegions = [Int32](repeating: 0, count: Int(cStart[cellCount]))
        for s in stretches {
            for c in s.first..<s.end {
                let cell = s.row * columns + c
                centreRegions[Int(cFill[cell])] = s.region
                cFill[cell] += 1
            }
        }
        centreStart = cStart
        self.centreRegions = centreRegions
    }

    @inline(__always) func centreX(column: Int) -> Double {
        originX + (Double(column) + 0.5) * cellWidth + Self.centreOffset.x
    }
    @inline(__always) func centreY(row: Int) -> Double {
        originY + (Double(row) + 0.5) * cellHeight + Self.centreOffset.y
    }

    /// The region holding (x, y) (units of 1/scale degree), or nil. Where source polygons overlap,
    /// the one with the smallest index.
    func region(x: Double, y: Double) -> Int32? {
        let cx = (x - originX) / cellWidth
        let cy = (y - originY) / cellHeight
        guard cx >= 0, cy >= 0, cx < Double(columns), cy < Double(rows) else { return nil }
        let column = Int(cx)
        let row = Int(cy)
        let cell = row * columns + column
        let centre = SIMD2(centreX(column: column), centreY(row: row))
        let e0 = Int(edgeStart[cell])
        let e1 = Int(edgeStart[cell + 1])
        let c0 = Int(centreStart[cell])
        let c1 = Int(centreStart[cell + 1])
        if e0 == e1 { return c0 == c1 ? nil : centreRegions[c0] }
        let q = SIMD2(x, y)
        let lowY = min(centre.y, y)
        let highY = max(centre.y, y)
        // Regions met so far with their parity (true: q inside); a cell meets few regions.
        return withUnsafeTemporaryAllocation(of: (Int32, Bool).self, capacity: (c1 - c0) + (e1 - e0) * maxRegionsPerArc)
        { seen in
            var count = 0
            for k in c0..<c1 {
                seen[count] = (centreRegions[k], true)
                count += 1
            }
            edges.withUnsafeBufferPointer { edges in
                points.withUnsafeBufferPointer { points in
                    for k in e0..<e1 {
                        let e = edges[k]
                        let a = points[Int(e.point)]
                        let b = points[Int(e.point) + 1]
                        let ay = Double(a.y)
                        let by = Double(b.y)
                        if (ay < lowY && by < lowY) || (ay > highY && by > highY) { continue }
                        let pa = SIMD2(Double(a.x), ay)
                        let pb = SIMD2(Double(b.x), by)
                        guard Self.positive(pa, pb, centre) != Self.positive(pa, pb, q),
                            Self.positive(centre, q, pa) != Self.positive(centre, q, pb)
                        else { continue }
                        for m in Int(arcRegionStart[Int(e.arc)])..<Int(arcRegionStart[Int(e.arc) + 1]) {
                            let region = arcRegions[m]
                            var j = 0
                            while j < count, seen[j].0 != region { j += 1 }
                            if j == count {
                                seen[count] = (region, true)
                                count += 1
                            } else {
                                seen[j].1.toggle()
                            }
                        }
                    }
                }
            }
            var best: Int32?
            for j in 0..<count where seen[j].1 {
                if best == nil || seen[j].0 < best! { best = seen[j].0 }
            }
            return best
        }
    }

    /// True when p is strictly left of a→b (the tie rule: on the line counts as right).
    @inline(__always) private static func positive(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ p: SIMD2<Double>) -> Bool {
        (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) > 0
    }

    /// The region whose boundary passes nearest to (x, y), and that boundary point, searching the
    /// cells in growing square rings around the point (clamped into the grid) until the ring is
    /// farther than the best edge so far or than `within`. Distances are planar in metres per unit
    /// `metresX`, `metresY`.
    func nearestBoundary(
        x: Double, y: Double, metresX: Double, metresY: Double, within: Double = .infinity
    ) -> (region: Int32, point: SIMD2<Double>)? {
        guard !edges.isEmpty else { return nil }
        let column = min(max(Int(((x - originX) / cellWidth).rounded(.down)), 0), columns - 1)
        let row = min(max(Int(((y - originY) / cellHeight).rounded(.down)), 0), rows - 1)
        let ringStep = min(cellWidth * metresX, cellHeight * metresY)
        var best: (distance: Double, region: Int32, point: SIMD2<Double>)?
        var ring = 0
        while ring <= max(columns, rows) {
            if Double(ring - 1) * ringStep > min(best?.distance ?? .infinity, within) { break }
            for r in (row - ring)...(row + ring) where r >= 0 && r < rows {
                let onEdgeRow = r == row - ring || r == row + ring
                let step = onEdgeRow ? 1 : max(1, 2 * ring)
                var c = column - ring
                while c <= column + ring {
                    if c >= 0 && c < columns
                        && cellDistance(x, y, r, c, metresX, metresY) <= min(best?.distance ?? .infinity, within)
                    {
                        let cell = r * columns + c
                        for k in Int(edgeStart[cell])..<Int(edgeStart[cell + 1]) {
                            let e = edges[k]
                            let a = points[Int(e.point)]
                            let b = points[Int(e.point) + 1]
                            let (d, p) = Self.closest(x, y, a, b, metresX, metresY)
                            let region = firstRegion(arc: e.arc)
                            if best == nil || d < best!.distance || (d == best!.distance && region < best!.region) {
                                best = (d, region, p)
                            }
                        }
                    }
                    c += step
                }
            }
            ring += 1
        }
        return best.map { ($0.region, $0.point) }
    }

    /// Planar distance (as in `nearestBoundary`) from (x, y) to the cell at `row`, `column`: a cell no
    /// nearer than the best edge so far cannot hold a better one.
    @inline(__always) private func cellDistance(
        _ x: Double, _ y: Double, _ row: Int, _ column: Int, _ metresX: Double, _ metresY: Double
    ) -> Double {
        let x0 = originX + Double(column) * cellWidth
        let y0 = originY + Double(row) * cellHeight
        let dx = max(0, x0 - x, x - (x0 + cellWidth)) * metresX
        let dy = max(0, y0 - y, y - (y0 + cellHeight)) * metresY
        return (dx * dx + dy * dy).squareRoot()
    }

    /// The lowest-numbered region an arc bounds (every arc in `edges` bounds one).
    @inline(__always) private func firstRegion(arc: Int32) -> Int32 { arcRegions[Int(arcRegionStart[Int(arc)])] }

    /// How many edges a lookup at (x, y) tests at most (those of its cell).
    func edgeCount(x: Double, y: Double) -> Int {
        let cx = (x - originX) / cellWidth
        let cy = (y - originY) / cellHeight
        guard cx >= 0, cy >= 0, cx < Double(columns), cy < Double(rows) else { return 0 }
        let cell = Int(cy) * columns + Int(cx)
        return Int(edgeStart[cell + 1] - edgeStart[cell])
    }

    /// A point on edge k of the grid's edge list (at fraction t from its start), for sampling
    /// points along boundaries.
    var edgeRefCount: Int { edges.count }
    func point(onEdge k: Int, at t: Double) -> SIMD2<Double> {
        let a = points[Int(edges[k].point)]
        let b = points[Int(edges[k].point) + 1]
        return SIMD2(Double(a.x) + t * Double(b.x - a.x), Double(a.y) + t * Double(b.y - a.y))
    }

    /// Among the edges of the cells within `radius` cells of `p`, the vertex for which `distance`
    /// is least, with its region.
    func nearestVertex(around p: SIMD2<Int32>, radius: Int, distance: (SIMD2<Int32>) -> Double)
        -> (region: Int32, point: SIMD2<Int32>, distance: Double)?
    {
        let column = Int((Double(p.x) - originX) / cellWidth)
        let row = Int((Double(p.y) - originY) / cellHeight)
        var best: (region: Int32, point: SIMD2<Int32>, distance: Double)?
        for r in max(0, row - radius)...min(rows - 1, row + radius) {
            for c in max(0, column - radius)...min(columns - 1, column + radius) {
                let cell = r * columns + c
                for k in Int(edgeStart[cell])..<Int(edgeStart[cell + 1]) {
                    let e = edges[k]
                    for v in [points[Int(e.point)], points[Int(e.point) + 1]] {
                        let d = distance(v)
                        let region = firstRegion(arc: e.arc)
                        if best == nil || d < best!.distance || (d == best!.distance && region < best!.region) {
                            best = (region, v, d)
                        }
                    }
                }
            }
        }
        return best
    }

    /// Distance in metres from (x, y) to segment a-b, and the closest point (units).
    private static func closest(
        _ x: Double, _ y: Double, _ a: SIMD2<Int32>, _ b: SIMD2<Int32>, _ mx: Double, _ my: Double
    ) -> (Double, SIMD2<Double>) {
        let ax = Double(a.x)
        let ay = Double(a.y)
        let bx = Double(b.x)
        let by = Double(b.y)
        let dx = (bx - ax) * mx
        let dy = (by - ay) * my
        let px = (x - ax) * mx
        let py = (y - ay) * my
        let length2 = dx * dx + dy * dy
        let t = length2 == 0 ? 0 : min(max((px * dx + py * dy) / length2, 0), 1)
        let ex = px - t * dx
        let ey = py - t * dy
        return ((ex * ex + ey * ey).squareRoot(), SIMD2(ax + t * (bx - ax), ay + t * (by - ay)))
    }
}
