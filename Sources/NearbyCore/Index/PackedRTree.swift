import CPrefetch

/// A static packed Hilbert R-tree over points: built once, queried many times, never mutated.
///
/// Modelled on mourner's flatbush (github.com/mourner/flatbush, ISC): points are sorted along a
/// Hilbert curve (`hilbertIndex`) and packed `nodeSize` at a time into leaves, leaves into parents, and
/// so on up to one root. Everything lives in four flat arrays (`Column`s: in memory, or mapped from
/// an index snapshot), with no object per node:
/// - `points`: the item coordinates (x, y interleaved) copied into curve order, so a leaf's points
///   sit in one or two cache lines;
/// - `items`: the item index (position in the `xs`/`ys` given to `init`) of each point, as `Int32`;
///   absent when items are the positions themselves (an index snapshot stores its rows in curve
///   order, so its tree's items are its rows);
/// - `cosines`: optional cos of each point's y (`Haversine.cosLat`) for a tree over (lon, lat), so that
///   a haversine distance costs two sines and an arc tangent, not also a cosine (`View.distance`);
/// - `ranks`: optional tie-break rank of each point (an index snapshot's id ranks), used by `nearest`
///   to order equally distant items; without it ties go by item index;
/// - `boxes`: one (minX, minY, maxX, maxY) per node, level 1 (parents of points) first, root last;
/// - `levels`: per level, where its boxes start, how many entries it has and how many points a full
///   node of that level covers.
///
/// Packing makes the tree implicit: node `j` of level `L` (points are level 0) has children
/// `j·nodeSize ..< (j+1)·nodeSize` of level `L−1` and covers the contiguous run of points
/// `j·nodeSizeᴸ ..< (j+1)·nodeSizeᴸ` (both cut at the level's end). So the subtree item count the
/// counting query needs is computed, not stored, and a subtree that lies wholly inside a query is
/// reported as one range of points without visiting its nodes (flatbush's `_collectContained`).
///
/// Answers are exact: bounds from the metric only prune; every reported distance is the metric's
/// `distance`. Memory: 16 bytes of coordinates + 4 of item index + 8 of cosine per point, plus 32 bytes
/// of box per node (about 2.1 bytes per point at node size 16): about 30 bytes per point (18 with
/// neither items nor cosines).
/// Queries run on unsafe pointers (see `View`) so the hot loops do no reference counting; the generic
/// queries are `@inlinable` so that each metric gets its own specialised loop, also across modules.
/// A class, not a struct: a query hands its tree around, and a copy of a struct of five columns costs
/// five reference counts each time.
public final class PackedRTree: Sendable {
    /// Number of points in the tree.
    public let count: Int
    /// Maximum number of children per node.
    public let nodeSize: Int
    @usableFromInline let points: Column<Double>
    /// cos of each point's y in degrees (`Haversine.cosLat`); nil in a tree that does not store them.
    @usableFromInline let cosines: Column<Double>?
    /// nil: the item of a point is its position.
    @usableFromInline let items: Column<Int32>?
    /// Tie-break rank per position (nil: the item index).
    @usableFromInline let ranks: Column<UInt32>?
    @usableFromInline let boxes: Column<Double>
    /// Three `Int`s per level L = 0 … top: first box of the level (in boxes, unused for L = 0),
    /// number of entries, points covered by a full node (nodeSizeᴸ).
    @usableFromInline let levels: Column<Int>

    /// Builds the tree over points `(xs[i], ys[i])`; point `i` is reported as `items[i]` when given, else
    /// as `Int32(i)`. `ranks[i]`, when given, orders point `i` among equally distant ones in `nearest`
    /// (else the point's index does). With `cosines`, the tree stores each point's `Haversine.cosLat(y)`
    /// (8 bytes a point), which haversine distances then read instead of computing.
    ///
    /// `xs`/`ys` are longitude/latitude in degrees for `HaversineMetric` (longitude in −180…180, no
    /// wrapping), or projected metres for `PlanarMetric`. Coordinates must be finite.
    /// Cost: O(n) (a radix sort of the Hilbert keys); BENCHMARKS.md has the build times by workload
    /// size.
    public convenience init(
        xs: [Double], ys: [Double], nodeSize: Int = 16, ranks: [UInt32]? = nil, items: [Int32]? = nil,
        cosines: Bool = false
    ) {
        precondition(
            xs.count == ys.count && ranks.map { $0.count == xs.count } ?? true
                && items.map { $0.count == xs.count } ?? true,
            "xs, ys, ranks and items must have the same length")
        precondition(xs.count < Int(Int32.max), "at most Int32.max - 1 points")
        let order = Self.hilbertOrder(xs: xs, ys: ys)
        var points = [Double](repeating: 0, count: 2 * xs.count)
        for (pos, i) in order.enumerated() {
            points[2 * pos] = xs[Int(i)]
            points[2 * pos + 1] = ys[Int(i)]
        }
        self.init(
            orderedPoints: points, items: items.map { t in order.map { t[Int($0)] } } ?? order,
            ranks: ranks.map { r in order.map { r[Int($0)] } }, nodeSize: nodeSize, cosines: cosines)
    }

    /// The tree over `points` (x, y interleaved) already in curve order (`hilbertOrder`), whose
    /// items are `items` (nil: their positions) with tie-break `ranks` per position.
    init(orderedPoints points: [Double], items: [Int32]?, ranks: [UInt32]?, nodeSize: Int, cosines: Bool = false) {
        precondition(nodeSize >= 2, "node size must be at least 2")
        let n = points.count / 2
        self.count = n
        self.nodeSize = nodeSize
        // Level 0 is the points themselves; each level above packs nodeSize entries of the one below.
        var levels = [0, n, 1]
        var boxes: [Double] = []
        var nodes = 0
        var entries = n
        while entries > 1 || (n > 0 && nodes == 0) {
            entries = (entries + nodeSize - 1) / nodeSize
            nodes += entries
        }
        boxes.reserveCapacity(4 * nodes)
        var lower = points
        var span = 1
        while n > 0 && (levels.count == 3 || lower.count > 4) {
            let level =
                levels.count == 3
                ? Self.parents(of: lower, stride: 2, far: 0, nodeSize: nodeSize)
                : Self.parents(of: lower, stride: 4, far: 2, nodeSize: nodeSize)
            span *= nodeSize
            levels += [boxes.count / 4, level.count / 4, span]
            boxes += level
            lower = level
        }
        self.points = Column(points)
        self.cosines = cosines ? Column((0..<n).map { Haversine.cosLat(points[2 * $0 + 1]) }) : nil
        self.items = items.map(Column.init)
        self.ranks = ranks.map(Column.init)
        self.boxes = Column(boxes)
        self.levels = Column(levels)
    }

    /// A tree over arrays built elsewhere (mapped from an index snapshot), or nil when they do not
    /// form the tree `init(xs:ys:nodeSize:)` builds: level table, array lengths and every item index
    /// are checked, so queries on a damaged snapshot cannot read outside its arrays.
    /// Items are the positions (`items` nil); `ranks` only orders ties, so any value is safe; `cosines`
    /// enter distances as the points do, and the snapshot's checksums guard both alike.
    init?(
        count: Int, nodeSize: Int, points: Column<Double>, cosines: Column<Double>?, ranks: Column<UInt32>?,
        boxes: Column<Double>, levels: Column<Int>
    ) {
        guard count >= 0, count < Int(Int32.max), (2...65536).contains(nodeSize), points.count == 2 * count,
            cosines.map({ $0.count == count }) ?? true, ranks.map({ $0.count == count }) ?? true
        else { return nil }
        let (expected, boxCount) = Self.shape(count: count, nodeSize: nodeSize)
        guard expected.count < 3 * 255, levels.elementsEqual(expected), boxes.count == boxCount else { return nil }
        self.count = count
        self.nodeSize = nodeSize
        self.points = points
        self.cosines = cosines
        self.items = nil
        self.ranks = ranks
        self.boxes = boxes
        self.levels = levels
    }

    /// The `levels` table and the length of `boxes` of the tree over `count` points, known before it
    /// is built (a snapshot's layout is laid out first).
    static func shape(count: Int, nodeSize: Int) -> (levels: [Int], boxCount: Int) {
        var levels = [0, count, 1]
        var entries = count
        var span = 1
        var first = 0
        if count > 0 {
            repeat {
                entries = (entries + nodeSize - 1) / nodeSize
                span = span.multipliedReportingOverflow(by: nodeSize).overflow ? Int.max : span * nodeSize
                levels += [first, entries, span]
                first += entries
            } while entries > 1
        }
        return (levels, 4 * first)
    }

    /// Bytes held by the tree's arrays, for memory budgets and benchmarks.
    public var byteCount: Int {
        points.byteCount + (cosines?.byteCount ?? 0) + (items?.byteCount ?? 0) + (ranks?.byteCount ?? 0)
            + boxes.byteCount + levels.byteCount
    }

    /// Boxes of the parents of consecutive runs of `nodeSize` entries of `src`: points (x, y) with
    /// `stride` 2 and `far` 0, or boxes (minX, minY, maxX, maxY) with `stride` 4 and `far` 2.
    static func parents(of src: [Double], stride: Int, far: Int, nodeSize: Int) -> [Double] {
        let entries = src.count / stride
        var boxes: [Double] = []
        boxes.reserveCapacity(4 * ((entries + nodeSize - 1) / nodeSize))
        for first in Swift.stride(from: 0, to: entries, by: nodeSize) {
            var minX = Double.infinity
            var minY = Double.infinity
            var maxX = -Double.infinity
            var maxY = -Double.infinity
            for b in Swift.stride(from: first * stride, to: min(first + nodeSize, entries) * stride, by: stride) {
                minX = min(minX, src[b])
                minY = min(minY, src[b + 1])
                maxX = max(maxX, src[b + far])
                maxY = max(maxY, src[b + far + 1])
            }
            boxes.append(minX)
            boxes.append(minY)
            boxes.append(maxX)
            boxes.append(maxY)
        }
        return boxes
    }

    /// Item indices sorted by the Hilbert index of their point in the bounding box of all points
    /// (quantised to 16 bits per axis), ties by item index: `RadixSort` of `hilbert << 32 | item` on
    /// its high 32 bits (stable, so ties keep the item order).
    static func hilbertOrder(xs: [Double], ys: [Double]) -> [Int32] {
        let n = xs.count
        guard n > 0 else { return [] }
        let minX = xs.min()!
        let maxX = xs.max()!
        let minY = ys.min()!
        let maxY = ys.max()!
        let sx = 65535 / (maxX > minX ? maxX - minX : 1)
        let sy = 65535 / (maxY > minY ? maxY - minY : 1)
        var keys = [UInt64](unsafeUninitializedCapacity: n) { buf, initialized in
            for i in 0..<n {
                let hx = UInt32(min(65535, sx * (xs[i] - minX)))
                let hy = UInt32(min(65535, sy * (ys[i] - minY)))
                buf[i] = UInt64(hilbertIndex(x: hx, y: hy)) << 32 | UInt64(i)
            }
            initialized = n
        }
        RadixSort.sort(&keys, bits: 32..<64)
        return keys.map { Int32(truncatingIfNeeded: $0) }
    }
}

// MARK: - Unsafe view for the query loops

extension PackedRTree {
    /// The tree's arrays as raw pointers, valid only inside `withView`. Positions, entries and box
    /// indices stay below 4·2³¹ (`init` checks the count and the level table), so the index arithmetic
    /// cannot overflow: it wraps rather than checks, which spares the walk's loops a branch per product.
    @usableFromInline
    struct View {
        @usableFromInline let points: UnsafePointer<Double>
        @usableFromInline let cosines: UnsafePointer<Double>?
        @usableFromInline let items: UnsafePointer<Int32>?
        @usableFromInline let ranks: UnsafePointer<UInt32>?
        @usableFromInline let boxes: UnsafePointer<Double>
        @usableFromInline let levels: UnsafePointer<Int>
        /// Verifies the blocks of a mapped tree's points, cosines, ranks and boxes before they are read
        /// (nil for a tree in memory); its levels are checked whole by `init`. Reads are verified a node
        /// or a leaf at a time (`holdsBoxes`, `holdsPoints`), so that the loads themselves are plain.
        @usableFromInline let verifier: Unmanaged<BlockVerifier>?
        @usableFromInline let count: Int
        @usableFromInline let nodeSize: Int
        /// Level of the root (≥ 1 when the tree is not empty).
        @usableFromInline let top: Int

        @inlinable init(
            points: UnsafePointer<Double>, cosines: UnsafePointer<Double>?, items: UnsafePointer<Int32>?,
            ranks: UnsafePointer<UInt32>?, boxes: UnsafePointer<Double>, levels: UnsafePointer<Int>,
            verifier: Unmanaged<BlockVerifier>?, count: Int, nodeSize: Int, top: Int
        ) {
            self.points = points
            self.cosines = cosines
            self.items = items
            self.ranks = ranks
            self.boxes = boxes
            self.levels = levels
            self.verifier = verifier
            self.count = count
            self.nodeSize = nodeSize
            self.top = top
        }

        // Reads of points, cosines, ranks and boxes: only of a run or node whose blocks `holdsPoints` or
        // `holdsBoxes` verified (the walk and `nearest` ask before they read; every tree in memory holds).
        @inlinable func x(_ pos: Int) -> Double { points[2 &* pos] }
        @inlinable func y(_ pos: Int) -> Double { points[2 &* pos &+ 1] }

        /// Whether the points of `run` with their cosines (and their ranks, with `ranks`: only `nearest`
        /// reads them) lie in good blocks, verifying them if not yet: once per leaf or contained run a
        /// query reads, never per point. False (the run must not be read) only for a damaged mapped
        /// tree, whose verifier then holds the failure.
        @inlinable @inline(__always) func holdsPoints(_ run: Range<Int>, ranks withRanks: Bool = false) -> Bool {
            guard let verifier, !run.isEmpty else { return true }
            return verifier._withUnsafeGuaranteedRef { blocks in
                let first = run.lowerBound
                let n = run.count
                guard blocks.covers(points + 2 &* first, 16 &* n) else { return false }
                if let cosines, !blocks.covers(cosines + first, 8 &* n) { return false }
                if withRanks, let ranks, !blocks.covers(ranks + first, 4 &* n) { return false }
                return true
            }
        }

        /// Whether the boxes of entries `entries` of `level` ≥ 1 (a node's children, or the root) lie in
        /// good blocks, verifying them if not yet: once per node a query opens. False as `holdsPoints`.
        @inlinable @inline(__always) func holdsBoxes(_ level: Int, _ entries: Range<Int>) -> Bool {
            guard let verifier, !entries.isEmpty else { return true }
            let b = 4 &* (levels[3 &* level] &+ entries.lowerBound)
            return verifier._withUnsafeGuaranteedRef { $0.covers(boxes + b, 32 &* entries.count) }
        }
        @inlinable func item(_ pos: Int) -> Int32 { items?[pos] ?? Int32(truncatingIfNeeded: pos) }

        /// The circle's distance of the point at `pos`, with its stored cosine when the tree has them.
        @inlinable func distance<C: CircleTest>(_ circle: C, _ pos: Int) -> Double {
            if let cosines { return circle.distance(x: x(pos), y: y(pos), cosY: cosines[pos]) }
            return circle.distance(x: x(pos), y: y(pos))
        }

        /// The metric's distance of the point at `pos`, with its stored cosine when the tree has them.
        @inlinable func distance<M: SpatialMetric>(metric m: M, _ pos: Int) -> Double {
            if let cosines { return m.distance(x: x(pos), y: y(pos), cosY: cosines[pos]) }
            return m.distance(x: x(pos), y: y(pos))
        }
        /// The `nearest` queue key of the point at `pos`: tie-break rank, then item (both < 2³¹).
        @inlinable func pointKey(_ pos: Int) -> Int64 {
            let item = item(pos)
            return Int64(ranks?[pos] ?? UInt32(truncatingIfNeeded: item)) << 31 | Int64(item)
        }

        /// Children (entries of level − 1) of node `j` of `level` ≥ 1.
        @inlinable func children(_ level: Int, _ j: Int) -> Range<Int> {
            let first = j &* nodeSize
            return first..<min(first &+ nodeSize, levels[3 &* level &- 2])
        }

        /// Points (positions in curve order) under entry `j` of `level` (level 0: the point itself).
        @inlinable func pointRange(_ level: Int, _ j: Int) -> Range<Int> {
            let span = levels[3 &* level &+ 2]
            let first = j &* span
            return first..<min(first &+ span, count)
        }

        /// Asks the CPU to start loading what opening node `j` of `level` ≥ 1 reads first: its children's
        /// first box, or for a leaf (level 1) its first points, cosines and items. A walk pushes the nodes it
        /// will open later, and the loads of a tree out of the caches (a server's, between requests) are
        /// most of a walk's time, each a wait. One line each: a loop over every line the node holds costs
        /// a warm query more than it saves (BENCHMARKS.md, "Tuning knobs").
        @inlinable func prefetch(_ level: Int, _ j: Int) {
            let first = j &* nodeSize
            if level == 1 {
                nearby_prefetch(points + 2 &* first)
                if let items { nearby_prefetch(items + first) }
                if let cosines { nearby_prefetch(cosines + first) }
            } else {
                nearby_prefetch(boxes + 4 &* (levels[3 &* level &- 3] &+ first))
            }
        }

        /// Calls `body(minX, minY, maxX, maxY)` on the box of node `j` of `level` ≥ 1 (verified: `holdsBoxes`).
        @inlinable func withBox<R>(_ level: Int, _ j: Int, _ body: (Double, Double, Double, Double) -> R) -> R {
            let b = 4 &* (levels[3 &* level] &+ j)
            return body(boxes[b], boxes[b &+ 1], boxes[b &+ 2], boxes[b &+ 3])
        }
    }

    @inlinable
    func withView<R>(_ body: (View) -> R) -> R {
        withExtendedLifetime(self) {
            body(
                View(
                    points: points.base, cosines: cosines?.base, items: items?.base, ranks: ranks?.base,
                    boxes: boxes.base,
                    levels: levels.base, verifier: points.verifier.map { Unmanaged.passUnretained($0) },
                    count: count, nodeSize: nodeSize, top: levels.count / 3 - 1))
        }
    }

    /// How a node's box relates to a query region.
    @usableFromInline
    enum Overlap { case outside, partial, inside }

    /// Depth-first walk reporting runs of points: `inside(range)` for runs wholly inside the query
    /// (whole subtrees, never opened), `partial(range)` for leaves that must be checked point by point.
    /// `classify(minX, minY, maxX, maxY)` decides for each node's box. The walk verifies what it reads
    /// a node at a time (`View.holdsBoxes`) and each `partial` run before handing it over; an `inside`
    /// run is not verified (counting reads none of its points): a caller that reads one asks
    /// `View.holdsPoints` first. A damaged node or leaf is skipped. Always inlined, so that each
    /// query's closures are inlined into its loop: called through a closure per box, `classify` would
    /// be a fifth of a small query's time.
    @inlinable @inline(__always)
    func walk(
        _ v: View, classify: (Double, Double, Double, Double) -> Overlap,
        inside: (Range<Int>) -> Void, partial: (Range<Int>) -> Void
    ) {
        guard v.count > 0, v.holdsBoxes(v.top, 0..<1) else { return }
        switch v.withBox(v.top, 0, classify) {
        case .outside: return
        case .inside: return inside(0..<v.count)
        case .partial: break
        }
        // Pending nodes packed as level | j << 8; at most nodeSize − 1 more per level descended.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: v.top * v.nodeSize + 1) { stack in
            stack[0] = v.top
            var depth = 1
            while depth > 0 {
                depth &-= 1
                let level = stack[depth] & 0xFF
                let j = stack[depth] &>> 8
                if level == 1 {
                    let run = v.pointRange(1, j)
                    if v.holdsPoints(run) { partial(run) }
                    continue
                }
                let children = v.children(level, j)
                guard v.holdsBoxes(level &- 1, children) else { continue }
                for c in children {
                    switch v.withBox(level &- 1, c, classify) {
                    case .outside: continue
                    case .inside: inside(v.pointRange(level &- 1, c))
                    case .partial:
                        v.prefetch(level &- 1, c)
                        stack[depth] = (level &- 1) | c &<< 8
                        depth &+= 1
                    }
                }
            }
        }
    }
}

// MARK: - Queries

extension PackedRTree {
    /// Calls `visit` with every item whose point lies in the box (edges included), in no particular order.
    @inlinable
    public func search(minX: Double, minY: Double, maxX: Double, maxY: Double, _ visit: (Int32) -> Void) {
        withView { v in
            walk(
                v,
                classify: { x0, y0, x1, y1 in
                    if x0 > maxX || y0 > maxY || x1 < minX || y1 < minY { return .outside }
                    return x0 >= minX && y0 >= minY && x1 <= maxX && y1 <= maxY ? .inside : .partial
                },
                inside: { run in
                    // Items only: a mapped tree has none (its items are the positions), so nothing to verify.
                    for pos in run { visit(v.item(pos)) }
                },
                partial: { run in
                    for pos in run {
                        let x = v.x(pos)
                        let y = v.y(pos)
                        if x >= minX && x <= maxX && y >= minY && y <= maxY { visit(v.item(pos)) }
                    }
                })
        }
    }

    /// Box search in longitude/latitude degrees; `minLon > maxLon` means the box crosses the
    /// antimeridian and is searched as minLon…180 and −180…maxLon. Edges are compared literally
    /// (a point at lon −180 is not in a box that ends at 180).
    @inlinable
    public func searchLonLat(
        minLon: Double, minLat: Double, maxLon: Double, maxLat: Double, _ visit: (Int32) -> Void
    ) {
        if minLon <= maxLon {
            search(minX: minLon, minY: minLat, maxX: maxLon, maxY: maxLat, visit)
        } else {
            search(minX: minLon, minY: minLat, maxX: 180, maxY: maxLat, visit)
            search(minX: -180, minY: minLat, maxX: maxLon, maxY: maxLat, visit)
        }
    }

    /// Calls `visit(item, distance)` for every item with `distance ≤ radius` and `include(item)`, in no
    /// particular order. Only the metric's `circle` prunes here: a box wholly inside the circle would still need
    /// every distance. `include` is asked before the distance is computed (a category test is cheaper
    /// than a haversine), for items inside the circle's search box.
    @inlinable
    public func within<M: SpatialMetric>(
        _ m: M, radius: Double, where include: (Int32) -> Bool = { _ in true }, _ visit: (Int32, Double) -> Void
    ) {
        withView { v in
            let box = m.searchBox(radius: radius)
            let window = Window(box)
            let circle = m.circle(radius: radius, searchBox: box)
            func refine(_ run: Range<Int>) {
                for pos in run where window.contains(v.x(pos), v.y(pos)) && include(v.item(pos)) {
                    let d = v.distance(circle, pos)
                    if d <= radius { visit(v.item(pos), d) }
                }
            }
            // No box is classified inside (every point needs its distance); were one, its run is verified.
            walk(
                v,
                classify: { x0, y0, x1, y1 in
                    !window.intersects(x0, y0, x1, y1) || circle.isOutside(minX: x0, minY: y0, maxX: x1, maxY: y1)
                        ? .outside : .partial
                }, inside: { run in if v.holdsPoints(run) { refine(run) } }, partial: { refine($0) })
        }
    }

    /// Number of items with `distance ≤ radius`. Subtrees whose box lies wholly inside the circle
    /// (the metric's `circle` says so) add their size without their points being visited.
    @inlinable
    public func count<M: SpatialMetric>(_ m: M, radius: Double) -> Int {
        count(m, radius: radius, found: { _, _ in }, contained: { _ in })
    }

    /// `count`, also reporting what it learnt on the way: `found(item, distance)` for every match it
    /// measured (in leaves the circle's edge crosses) and `contained(positions)` for every subtree it
    /// counted unopened. Small answers are then complete after this one walk (`firstMatches`).
    /// Always inlined, as `firstMatches` is, so that a caller's `found` is inlined into the walk's
    /// loop rather than called through a closure per match.
    @inlinable @inline(__always)
    func count<M: SpatialMetric>(
        _ m: M, radius: Double, found: (Int32, Double) -> Void, contained: (Range<Int>) -> Void
    ) -> Int {
        withView { v in
            var total = 0
            let box = m.searchBox(radius: radius)
            let window = Window(box)
            let circle = m.circle(radius: radius, searchBox: box)
            walk(
                v,
                classify: { x0, y0, x1, y1 in
                    if !window.intersects(x0, y0, x1, y1) { return .outside }
                    if circle.isOutside(minX: x0, minY: y0, maxX: x1, maxY: y1) { return .outside }
                    // A box inside the circle is inside its search box: four comparisons spare most boxes
                    // (those larger than the circle, on the way down) the inside test.
                    return window.contains(x0, y0, x1, y1) && circle.isInside(minX: x0, minY: y0, maxX: x1, maxY: y1)
                        ? .inside : .partial
                },
                inside: { run in
                    total += run.count
                    contained(run)
                },
                partial: { run in
                    for pos in run where window.contains(v.x(pos), v.y(pos)) {
                        let d = v.distance(circle, pos)
                        if d <= radius {
                            total += 1
                            found(v.item(pos), d)
                        }
                    }
                })
            return total
        }
    }

    /// The number of items with `distance ≤ radius`; when it is at most `budget`, `found(item, distance)`
    /// has been called for every one of them, in no particular order, and `complete` is true. Otherwise
    /// `found` has been called for at most `budget` of them, which the caller drops.
    ///
    /// Why: otherwise a first page by distance costs `count` and then best-first `nearest`, two walks
    /// measuring the same points. When the answer is small (the common case on sparse data), the
    /// counting walk has already measured most matches; the few in unopened subtrees are measured
    /// here, and the caller selects its page from them. Large answers keep the best-first page.
    /// The matches go straight to the caller's buffer, and the first 64 unopened subtrees are kept on
    /// the stack until the count is known (later ones are measured at once while the count is within
    /// `budget`): no query allocates here.
    @inlinable @inline(__always)
    public func firstMatches<M: SpatialMetric>(
        _ m: M, radius: Double, budget: Int, _ found: (Int32, Double) -> Void
    ) -> (total: Int, complete: Bool) {
        withView { v in
            withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: 64) { runs in
                var kept = 0
                var seen = 0
                let total = count(
                    m, radius: radius,
                    found: { item, d in
                        // Past the budget the answer is incomplete whatever follows: no more to hand over.
                        seen += 1
                        if seen <= budget { found(item, d) }
                    },
                    contained: { run in
                        seen += run.count
                        if kept < runs.count {
                            runs[kept] = run
                            kept += 1
                        } else if seen <= budget && v.holdsPoints(run) {
                            for pos in run { found(v.item(pos), v.distance(metric: m, pos)) }
                        }
                    })
                guard total <= budget else { return (total, false) }
                for run in runs[..<kept] where v.holdsPoints(run) {
                    for pos in run { found(v.item(pos), v.distance(metric: m, pos)) }
                }
                return (total, true)
            }
        }
    }

    /// The `k` items nearest to the metric's centre with `distance ≤ maxDistance` and `include(item)`,
    /// by distance, ties by rank (`ranks`, else item index), found best-first.
    ///
    /// Nodes and points share one priority queue ordered by (distance or lower bound, nodes before
    /// points, rank); a point leaves the queue only when no node left can hold anything closer
    /// or equally close with a smaller index, so the first `k` points out are the answer, in order
    /// (geokdbush's `around`, github.com/mourner/geokdbush). Cost grows with k and the number of
    /// points near the k-th distance, not with the number of matches within `maxDistance`, which is
    /// what makes "radius + sort by distance + limit 30" cheap. `include` is asked only about points
    /// within `maxDistance`, at most once each.
    @inlinable
    public func nearest<M: SpatialMetric>(
        _ m: M, k: Int, maxDistance: Double = .infinity, where include: (Int32) -> Bool = { _ in true }
    ) -> [(item: Int32, distance: Double)] {
        guard k > 0, count > 0 else { return [] }
        var result: [(item: Int32, distance: Double)] = []
        result.reserveCapacity(min(k, count, 1024))
        var queue = DistanceQueue()
        let window = Window(maxDistance < .infinity ? m.searchBox(radius: maxDistance) : nil)
        withView { v in
            queue.push(0, DistanceQueue.nodeKey(level: v.top, index: 0))
            while let (d, key) = queue.pop() {
                if key >= 0 {
                    result.append((Int32(truncatingIfNeeded: key & 0x7FFF_FFFF), d))
                    if result.count == k { return }
                    continue
                }
                let (level, j) = DistanceQueue.node(key)
                if level == 1 {
                    let run = v.pointRange(1, j)
                    guard v.holdsPoints(run, ranks: true) else { continue }
                    for pos in run where window.contains(v.x(pos), v.y(pos)) {
                        let dist = v.distance(metric: m, pos)
                        if dist <= maxDistance && include(v.item(pos)) { queue.push(dist, v.pointKey(pos)) }
                    }
                    continue
                }
                let children = v.children(level, j)
                guard v.holdsBoxes(level - 1, children) else { continue }
                for c in children where v.withBox(level - 1, c, window.intersects) {
                    let lb = v.withBox(level - 1, c, m.lowerBound)
                    if lb <= maxDistance { queue.push(lb, DistanceQueue.nodeKey(level: level - 1, index: c)) }
                }
            }
        }
        return result
    }
}

/// The metric's `searchBox` for a query (everything when it has none): four comparisons that
/// reject boxes and points before any bound or distance is computed.
@usableFromInline
struct Window {
    @usableFromInline let minX: Double, minY: Double, maxX: Double, maxY: Double

    @inlinable init(_ box: (minX: Double, minY: Double, maxX: Double, maxY: Double)?) {
        let b = box ?? (-.infinity, -.infinity, .infinity, .infinity)
        minX = b.minX
        minY = b.minY
        maxX = b.maxX
        maxY = b.maxY
    }

    @inlinable func contains(_ x: Double, _ y: Double) -> Bool {
        x >= minX && x <= maxX && y >= minY && y <= maxY
    }

    /// Whether the box lies wholly inside the window.
    @inlinable func contains(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Bool {
        x0 >= minX && y0 >= minY && x1 <= maxX && y1 <= maxY
    }

    @inlinable func intersects(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Bool {
        x0 <= maxX && y0 <= maxY && x1 >= minX && y1 >= minY
    }
}

// MARK: - Priority queue

/// A binary min-heap of (distance, key) in one flat array, ordered by distance, then key.
/// Simpler than swift-collections' `Heap` (a min-max heap), and faster on the workload's
/// nearest(k = 30) queries.
/// Keys ≥ 0 are points (`View.pointKey`: rank, then item); nodes get negative keys so that at equal
/// distance a node comes out before any point (it might hold one that ties with a smaller rank).
@usableFromInline
struct DistanceQueue {
    @usableFromInline var heap: [(distance: Double, key: Int64)] = []

    @inlinable init() { heap.reserveCapacity(256) }

    @inlinable static func nodeKey(level: Int, index: Int) -> Int64 { -1 - Int64(index << 8 | level) }
    @inlinable static func node(_ key: Int64) -> (level: Int, index: Int) {
        let v = Int(-1 - key)
        return (v & 0xFF, v >> 8)
    }

    @inlinable static func less(_ a: (distance: Double, key: Int64), _ b: (distance: Double, key: Int64)) -> Bool {
        a.distance < b.distance || (a.distance == b.distance && a.key < b.key)
    }

    @inlinable mutating func push(_ distance: Double, _ key: Int64) {
        let e = (distance: distance, key: key)
        var i = heap.count
        heap.append(e)
        heap.withUnsafeMutableBufferPointer { h in
            while i > 0 {
                let parent = (i - 1) >> 1
                if !Self.less(e, h[parent]) { break }
                h[i] = h[parent]
                i = parent
            }
            h[i] = e
        }
    }

    @inlinable mutating func pop() -> (distance: Double, key: Int64)? {
        guard let last = heap.popLast() else { return nil }
        if heap.isEmpty { return last }
        return heap.withUnsafeMutableBufferPointer { h in
            let top = h[0]
            let n = h.count
            var i = 0
            while true {
                var child = 2 * i + 1
                if child >= n { break }
                if child + 1 < n && Self.less(h[child + 1], h[child]) { child += 1 }
                if !Self.less(h[child], last) { break }
                h[i] = h[child]
                i = child
            }
            h[i] = last
            return top
        }
    }
}

/// Least-significant-digit radix sort of `UInt64` keys, 8 bits a pass: stable, and a pass whose digit
/// is the same in every key is skipped.
enum RadixSort {
    /// Sorts `keys` by their bits `bits` (the bits above it are ignored, the ones below keep their order).
    static func sort(_ keys: inout [UInt64], bits: Range<Int>) {
        let n = keys.count
        var scratch = [UInt64](repeating: 0, count: n)
        for shift in stride(from: UInt64(bits.lowerBound), to: UInt64(bits.upperBound), by: 8) {
            let mask: UInt64 =
                bits.upperBound - Int(shift) >= 8 ? 0xFF : (1 << UInt64(bits.upperBound - Int(shift))) - 1
            var offsets = [Int](repeating: 0, count: 257)
            for k in keys { offsets[Int((k >> shift) & mask) + 1] += 1 }
            if offsets.contains(n) { continue }  // every key has the same digit: already in order
            for d in 1...256 { offsets[d] += offsets[d - 1] }
            for k in keys {
                let d = Int((k >> shift) & mask)
                scratch[offsets[d]] = k
                offsets[d] += 1
            }
            swap(&keys, &scratch)
        }
    }
}
