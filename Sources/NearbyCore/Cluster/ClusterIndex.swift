import Foundation

/// The parameters of a cluster hierarchy, as supercluster names them (its defaults too).
public struct ClusterOptions: Sendable, Hashable {
    /// Cluster radius in pixels of a tile `extent` pixels wide.
    public var radius: Double
    /// Tile width in pixels the radius is measured against.
    public var extent: Double
    /// Points a cluster needs at least (fewer stay points).
    public var minPoints: Int
    /// Lowest zoom with its own level.
    public var minZoom: Int
    /// Highest zoom that clusters; `maxZoom + 1` holds the points alone.
    public var maxZoom: Int
    /// Points in a leaf of each level's KD-tree.
    public var nodeSize: Int

    /// The highest `maxZoom`: a cluster id keeps `zoom + 1` in 5 bits.
    public static let zoomLimit = 24

    public init(
        radius: Double = 40, extent: Double = 512, minPoints: Int = 2, minZoom: Int = 0, maxZoom: Int = 16,
        nodeSize: Int = 64
    ) {
        self.radius = radius
        self.extent = extent
        self.minPoints = minPoints
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.nodeSize = nodeSize
    }

    /// What is wrong with these options, as a usage error naming the parameter (`radius-px`,
    /// `extent`, `min-points`, `min-zoom`, `max-zoom`); nil when nothing is.
    public var problem: RequestError? {
        if !(radius.isFinite && radius > 0) {
            return RequestError(parameter: "radius-px", reason: "\(radius) is not a positive number of pixels")
        }
        if !(extent.isFinite && extent > 0) {
            return RequestError(parameter: "extent", reason: "\(extent) is not a positive number of pixels")
        }
        if minPoints < 1 { return RequestError(parameter: "min-points", reason: "\(minPoints) is below 1") }
        if !(0...Self.zoomLimit).contains(maxZoom) {
            return RequestError(parameter: "max-zoom", reason: "\(maxZoom) is outside 0…\(Self.zoomLimit)")
        }
        if !(0...maxZoom).contains(minZoom) {
            return RequestError(parameter: "min-zoom", reason: "\(minZoom) is outside 0…\(maxZoom) (max-zoom)")
        }
        if nodeSize < 1 { return RequestError(parameter: "node-size", reason: "\(nodeSize) is below 1") }
        return nil
    }
}

/// One entry of a zoom level: a cluster (`count` > 1, `id` its cluster id) or a point alone
/// (`count` 1, `id` its index in the arrays the index was built from).
public struct ClusterItem: Sendable, Hashable {
    public let id: Int
    public let count: Int
    /// A cluster's weighted centroid, a point's own coordinates.
    public let lon: Double
    public let lat: Double
    /// The same position in Web-Mercator [0, 1]² (x east, y south), as the levels hold it.
    public let x: Double
    public let y: Double
    public var isCluster: Bool { count > 1 }

    /// supercluster's `point_count_abbreviated`: 1234 → "1.2k", 12345 → "12k".
    public var abbreviatedCount: String {
        if count >= 10_000 { return "\(Int((Double(count) / 1000).rounded(.toNearestOrAwayFromZero)))k" }
        if count >= 1_000 {
            let tenths = Int((Double(count) / 100).rounded(.toNearestOrAwayFromZero))
            return tenths % 10 == 0 ? "\(tenths / 10)k" : "\(tenths / 10).\(tenths % 10)k"
        }
        return String(count)
    }
}

/// A cluster id no level holds (a usage error's sibling: the id is well formed but names nothing).
public struct ClusterNotFound: NearbyError, Equatable {
    public let id: Int
    public var kind: ErrorKind { .notFound }
    public var description: String {
        "no cluster has the id \(id) (ids hold for the same points, filters and options)"
    }
}

/// Hierarchical greedy point clustering at every zoom, supercluster's algorithm (version 8) over flat
/// arrays.
///
/// Points are projected to Web-Mercator [0, 1]². Level `maxZoom + 1` holds the points; each level
/// `z` from `maxZoom` down to `minZoom` is made from the one above it: its entries are visited in
/// order, and each not yet taken takes every entry not yet taken within r = radius / (extent · 2^z)
/// (a hashed grid of cells finds them, `MadeLevel.clustered`). When they hold more points than the
/// entry alone and at least `minPoints`, they become one cluster at their centroid weighted by point
/// counts; otherwise they pass down unchanged. The result depends only on the points, their order and
/// the options. Each level is a KD-tree, sorted when first read (`BuiltLevels`).
///
/// Cluster ids are made as supercluster makes them: `id = (i << 5) + (z + 1) + n`, where `n` is the number of points,
/// `i` the index of the cluster's first entry (the one that took the others) in level `z + 1`, and
/// `z` the zoom the cluster was made at; so `(id − n) >> 5` and `(id − n) & 31` give back the index
/// and the level of its children. Points keep their index (0 ..< n), below every cluster id.
///
/// Memory: 32 bytes an entry of each level (position 16, id, count, parent, slot 4 each) plus the
/// points' own lon/lat (16 bytes a point).
public final class ClusterIndex: @unchecked Sendable {
    // @unchecked: a level's memory is written only while it is sorted, under its holder's lock
    // (`BuiltLevels`, or `MappedLevels` for a kept file's levels).
    public let options: ClusterOptions
    /// Points given (`lons.count`), valid or not.
    public let pointCount: Int
    /// The levels and points built in memory (nil: read from a file, `mapped`).
    private let built: (levels: BuiltLevels, lons: [Double], lats: [Double])?
    /// The levels and points of a kept file, verified as they are first read (`ClusterFile.read`).
    private let mapped: MappedLevels?

    /// One zoom's entries, stored in KD-tree order (`k`); `slot[i]` is where entry `i` (the order the
    /// level was made in, which cluster ids count) lies. Its arrays lie in one block of 32 bytes an
    /// entry, in the order of a `ClusterFile` section: coordinates x, y interleaved (16), ids, counts,
    /// parents, slots (4 each); memory it owns, or a section of a mapped file used in place.
    struct Level: @unchecked Sendable {
        let count: Int
        /// x, y of each entry, interleaved, in tree order.
        let coords: UnsafePointer<Double>
        /// A point's index or a cluster's id.
        let ids: UnsafePointer<UInt32>
        let counts: UnsafePointer<UInt32>
        /// The id of the cluster that took the entry in the level below (`UInt32.max`: none); mutable
        /// only while the level is sorted, which uses it as scratch space.
        let parents: UnsafeMutablePointer<UInt32>
        let slot: UnsafePointer<UInt32>
        let nodeSize: Int
        /// The block (32 bytes an entry), and what keeps it alive.
        let bytes: UnsafeRawBufferPointer
        let owner: AnyObject

        /// A level over `bytes` (32 · count bytes, 8-aligned) that `owner` keeps alive.
        init(count: Int, bytes: UnsafeRawBufferPointer, owner: AnyObject, nodeSize: Int) {
            precondition(bytes.count == 32 * count && (count == 0 || Int(bitPattern: bytes.baseAddress!) % 8 == 0))
            let start = bytes.baseAddress ?? UnsafeRawPointer(LevelStorage.empty.pointer)
            let base = UnsafeMutableRawPointer(mutating: start)
            self.count = count
            coords = UnsafePointer(base.assumingMemoryBound(to: Double.self))
            ids = UnsafePointer((base + 16 * count).assumingMemoryBound(to: UInt32.self))
            counts = UnsafePointer((base + 20 * count).assumingMemoryBound(to: UInt32.self))
            parents = (base + 24 * count).assumingMemoryBound(to: UInt32.self)
            slot = UnsafePointer((base + 28 * count).assumingMemoryBound(to: UInt32.self))
            self.nodeSize = nodeSize
            self.bytes = bytes
            self.owner = owner
        }
    }

    /// Builds every level. Points with a non-finite coordinate are left out of all of them.
    /// Takes at most 2^26 points, as supercluster's 32-bit ids do.
    public init(lons: [Double], lats: [Double], options: ClusterOptions = ClusterOptions()) {
        precondition(lons.count == lats.count, "one latitude per longitude")
        precondition(options.problem == nil, "\(options.problem!)")
        precondition(lons.count < 1 << 26, "at most 2^26 points")
        self.options = options
        let n = lons.count
        pointCount = n
        var level = MadeLevel(capacity: n)
        for i in 0..<n where lons[i].isFinite && lats[i].isFinite {
            level.append(x: Self.x(lon: lons[i]), y: Self.y(lat: lats[i]), id: UInt32(i), count: 1)
        }
        var made: [MadeLevel] = []
        for z in stride(from: options.maxZoom, through: options.minZoom, by: -1) {
            let next = level.clustered(zoom: z, options: options, pointCount: n)
            made.append(level)
            level = next
        }
        level.parents = [UInt32](repeating: .max, count: level.count)
        made.append(level)
        built = (BuiltLevels(made.reversed(), nodeSize: options.nodeSize), lons, lats)
        mapped = nil
    }

    /// An index over the levels and points of a kept file (`ClusterFile.read`), verified as read.
    init(options: ClusterOptions, pointCount: Int, mapped: MappedLevels) {
        self.options = options
        self.pointCount = pointCount
        built = nil
        self.mapped = mapped
    }

    /// Sorts every level a build made into its KD-tree now rather than on its first read.
    public func sortLevels() {
        for l in 0..<levelCount { _ = level(l) }
    }

    /// Level `l` (zoom `minZoom + l`): a built one sorted, a mapped one verified, on its first read.
    @inline(__always) func level(_ l: Int) -> Level { built?.levels.level(l) ?? mapped!.level(l) }

    /// The longitude and latitude point `i` was given.
    @inline(__always) func point(_ i: Int) -> (lon: Double, lat: Double) {
        if let built { return (built.lons[i], built.lats[i]) }
        return mapped!.point(i)
    }

    /// Number of levels (`maxZoom + 2 − minZoom`).
    var levelCount: Int { options.maxZoom + 2 - options.minZoom }

    /// Calls `body` with the points' longitudes and latitudes as bytes (what `ClusterFile` writes).
    func withPointBytes<R>(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let built {
            return try built.lons.withUnsafeBytes { x in try built.lats.withUnsafeBytes { y in try body(x, y) } }
        }
        return try mapped!.withPointBytes(body)
    }

    /// Bytes held by the levels and the points' coordinates.
    public var byteCount: Int {
        levelCounts.reduce(16 * pointCount) { $0 + 32 * $1 }
    }

    /// Entries of each level, from `minZoom` to `maxZoom + 1`.
    public var levelCounts: [Int] { built?.levels.counts ?? mapped!.counts }

    // MARK: Queries

    /// The level a zoom reads: `zoom` clamped to `minZoom … maxZoom + 1`.
    public func levelZoom(_ zoom: Int) -> Int { max(options.minZoom, min(zoom, options.maxZoom + 1)) }

    /// Clusters and points at `zoom` inside the box (degrees; `minLon > maxLon` crosses the
    /// antimeridian, a box 360° wide or more is every longitude), as supercluster's `getClusters`.
    public func clusters(minLon: Double, minLat: Double, maxLon: Double, maxLat: Double, zoom: Int) -> [ClusterItem] {
        var west =
            ((minLon + 180).truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) - 180
        let south = max(-90, min(90, minLat))
        var east =
            maxLon == 180
            ? 180
            : ((maxLon + 180).truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) - 180
        let north = max(-90, min(90, maxLat))
        if maxLon - minLon >= 360 {
            west = -180
            east = 180
        } else if west > east {
            return clusters(minLon: west, minLat: south, maxLon: 180, maxLat: north, zoom: zoom)
                + clusters(minLon: -180, minLat: south, maxLon: east, maxLat: north, zoom: zoom)
        }
        let level = level(levelZoom(zoom) - options.minZoom)
        var out: [ClusterItem] = []
        level.range(
            minX: Self.x(lon: west), minY: Self.y(lat: north), maxX: Self.x(lon: east), maxY: Self.y(lat: south)
        ) {
            out.append(item(level, $0))
        }
        return out
    }

    /// Every entry of the level `zoom` reads, in the order it was made.
    public func level(zoom: Int) -> [ClusterItem] {
        let level = level(levelZoom(zoom) - options.minZoom)
        return (0..<level.count).map { item(level, Int(level.slot[$0])) }
    }

    /// The zoom a cluster was made at (`originZoom − 1` in supercluster's words), or nil when `id`
    /// decodes to no level.
    public func zoom(ofCluster id: Int) -> Int? {
        guard id >= pointCount else { return nil }
        let z = (id - pointCount) & 31 - 1
        return (options.minZoom...options.maxZoom).contains(z) ? z : nil
    }

    /// The entries a cluster took, in the level below it (`getChildren`).
    public func children(of id: Int) throws(ClusterNotFound) -> [ClusterItem] {
        guard let z = zoom(ofCluster: id) else { throw ClusterNotFound(id: id) }
        let level = level(z + 1 - options.minZoom)
        let origin = (id - pointCount) >> 5
        guard origin < level.count else { throw ClusterNotFound(id: id) }
        let k = Int(level.slot[origin])
        let r = options.radius / (options.extent * pow(2, Double(z)))
        var out: [ClusterItem] = []
        level.within(x: level.coords[2 * k], y: level.coords[2 * k + 1], r: r) { j in
            if level.parents[j] == UInt32(id) { out.append(item(level, j)) }
        }
        guard !out.isEmpty else { throw ClusterNotFound(id: id) }
        return out
    }

    /// The points of a cluster, `limit` of them (0: all) after skipping `offset`, in the order of its
    /// children, depth first (`getLeaves`).
    public func leaves(of id: Int, limit: Int = 10, offset: Int = 0) throws(ClusterNotFound) -> [ClusterItem] {
        var out: [ClusterItem] = []
        var skipped = 0
        try appendLeaves(&out, id, limit <= 0 ? Int.max : limit, max(0, offset), &skipped)
        return out
    }

    private func appendLeaves(_ out: inout [ClusterItem], _ id: Int, _ limit: Int, _ offset: Int, _ skipped: inout Int)
        throws(ClusterNotFound)
    {
        for child in try children(of: id) {
            if child.isCluster {
                if skipped + child.count <= offset {
                    skipped += child.count
                } else {
                    try appendLeaves(&out, child.id, limit, offset, &skipped)
                }
            } else if skipped < offset {
                skipped += 1
            } else {
                out.append(child)
            }
            if out.count == limit { break }
        }
    }

    /// The zoom at which a cluster splits into more than one entry (`getClusterExpansionZoom`).
    public func expansionZoom(of id: Int) throws(ClusterNotFound) -> Int {
        guard let z = zoom(ofCluster: id) else { throw ClusterNotFound(id: id) }
        var expansion = z
        var current = id
        while expansion <= options.maxZoom {
            let children = try self.children(of: current)
            expansion += 1
            if children.count != 1 { break }
            current = children[0].id
        }
        return expansion
    }

    private func item(_ level: Level, _ k: Int) -> ClusterItem {
        let count = Int(level.counts[k])
        let id = Int(level.ids[k])
        let x = level.coords[2 * k]
        let y = level.coords[2 * k + 1]
        if count > 1 { return ClusterItem(id: id, count: count, lon: Self.lon(x: x), lat: Self.lat(y: y), x: x, y: y) }
        let p = point(id)
        return ClusterItem(id: id, count: 1, lon: p.lon, lat: p.lat, x: x, y: y)
    }

    // MARK: Projection

    static func x(lon: Double) -> Double { lon / 360 + 0.5 }

    /// Web-Mercator y of a latitude, clamped to [0, 1] (beyond ±85.05°) as supercluster does.
    static func y(lat: Double) -> Double {
        let s = sin(lat * .pi / 180)
        let y = 0.5 - 0.25 * log((1 + s) / (1 - s)) / .pi
        return y < 0 ? 0 : y > 1 ? 1 : y
    }

    static func lon(x: Double) -> Double { (x - 0.5) * 360 }

    static func lat(y: Double) -> Double {
        let y2 = (180 - y * 360) * .pi / 180
        return 360 * atan(exp(y2)) / .pi - 90
    }
}

/// Memory a built level owns (`ClusterIndex.Level`): 8-aligned, at least one byte.
final class LevelStorage: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    init(byteCount: Int) { pointer = .allocate(byteCount: max(8, byteCount), alignment: 8) }
    deinit { pointer.deallocate() }
    /// What an empty level points at.
    static let empty = LevelStorage(byteCount: 8)
}

extension ClusterIndex.Level {
    /// A level of entries given in the order they were made (coordinates interleaved), sorted into a
    /// KD-tree (kdbush's layout: the median of each range on alternating axes, ranges of `nodeSize`
    /// or fewer left as they are), in memory it owns.
    init(coords made: [Double], ids: [UInt32], counts: [UInt32], parents madeParents: [UInt32], nodeSize: Int) {
        let n = ids.count
        let storage = LevelStorage(byteCount: 32 * n)
        self.init(
            count: n, bytes: UnsafeRawBufferPointer(start: storage.pointer, count: 32 * n), owner: storage,
            nodeSize: nodeSize)
        let coords = UnsafeMutablePointer(mutating: self.coords)
        made.withUnsafeBufferPointer { coords.update(from: $0.baseAddress!, count: 2 * n) }
        // The tree order's entry i is made entry order[i]; `parents` holds the order while sorting.
        let order = parents
        for i in 0..<n { order[i] = UInt32(i) }
        if n > 0 { KDSorter(coords: coords, order: order, nodeSize: nodeSize).sort(0, n - 1, 0) }
        let treeIds = UnsafeMutablePointer(mutating: self.ids)
        let treeCounts = UnsafeMutablePointer(mutating: self.counts)
        let slot = UnsafeMutablePointer(mutating: self.slot)
        ids.withUnsafeBufferPointer { ids in
            counts.withUnsafeBufferPointer { counts in
                for k in 0..<n {
                    let i = Int(order[k])
                    treeIds[k] = ids[i]
                    treeCounts[k] = counts[i]
                    slot[i] = UInt32(k)
                }
            }
        }
        for i in 0..<n { parents[Int(slot[i])] = madeParents[i] }
    }

    /// Calls `visit` with the tree position of every entry within `r` of (x, y) (distance ≤ r), depth
    /// first, a node's median before its left half, the left half before the right (the order
    /// neighbours are summed in, as pysupercluster's). `stack` is scratch space.
    @inline(__always)
    func within(x qx: Double, y qy: Double, r: Double, stack: inout [Int32], _ visit: (Int) -> Void) {
        guard count > 0 else { return }
        let r2 = r * r
        let c = coords
        stack.removeAll(keepingCapacity: true)
        stack.append(0)
        stack.append(Int32(count - 1))
        stack.append(0)
        while let axis = stack.popLast() {
            let right = Int(stack.removeLast())
            let left = Int(stack.removeLast())
            if right - left <= nodeSize {
                for i in left...right {
                    let dx = c[2 * i] - qx
                    let dy = c[2 * i + 1] - qy
                    if dx * dx + dy * dy <= r2 { visit(i) }
                }
                continue
            }
            let m = (left + right) >> 1
            let x = c[2 * m]
            let y = c[2 * m + 1]
            let dx = x - qx
            let dy = y - qy
            if dx * dx + dy * dy <= r2 { visit(m) }
            // Right pushed first, so the left half is visited first.
            if axis == 0 ? qx + r >= x : qy + r >= y {
                stack.append(Int32(m + 1))
                stack.append(Int32(right))
                stack.append(1 - axis)
            }
            if axis == 0 ? qx - r <= x : qy - r <= y {
                stack.append(Int32(left))
                stack.append(Int32(m - 1))
                stack.append(1 - axis)
            }
        }
    }

    /// `within` with its own scratch space.
    func within(x: Double, y: Double, r: Double, _ visit: (Int) -> Void) {
        var stack: [Int32] = []
        within(x: x, y: y, r: r, stack: &stack, visit)
    }

    /// Calls `visit` with the tree position of every entry inside the box (edges included).
    func range(minX: Double, minY: Double, maxX: Double, maxY: Double, _ visit: (Int) -> Void) {
        guard count > 0 else { return }
        let c = coords
        func walk(_ left: Int, _ right: Int, _ axis: Int) {
            if right - left <= nodeSize {
                for i in left...right {
                    let x = c[2 * i]
                    let y = c[2 * i + 1]
                    if x >= minX && x <= maxX && y >= minY && y <= maxY { visit(i) }
                }
                return
            }
            let m = (left + right) >> 1
            let x = c[2 * m]
            let y = c[2 * m + 1]
            if x >= minX && x <= maxX && y >= minY && y <= maxY { visit(m) }
            if axis == 0 ? minX <= x : minY <= y { walk(left, m - 1, 1 - axis) }
            if axis == 0 ? maxX >= x : maxY >= y { walk(m + 1, right, 1 - axis) }
        }
        walk(0, count - 1, 0)
    }

    /// Whether every slot names a position and every point's id a point (what a query indexes by).
    func isConsistent(pointCount: Int) -> Bool {
        let c = UInt32(count)
        let n = UInt32(pointCount)
        var bad = false
        for k in 0..<count {
            bad = bad || slot[k] >= c || (counts[k] <= 1 && ids[k] >= n)
        }
        return !bad
    }
}

/// kdbush's in-place sort: Floyd–Rivest selection of each range's median on one axis, then the halves
/// on the other.
private struct KDSorter {
    let coords: UnsafeMutablePointer<Double>
    let order: UnsafeMutablePointer<UInt32>
    let nodeSize: Int

    func sort(_ left: Int, _ right: Int, _ axis: Int) {
        if right - left <= nodeSize { return }
        let m = (left + right) >> 1
        select(m, left, right, axis)
        sort(left, m - 1, 1 - axis)
        sort(m + 1, right, 1 - axis)
    }

    func select(_ k: Int, _ left: Int, _ right: Int, _ axis: Int) {
        var left = left
        var right = right
        while right > left {
            if right - left > 600 {
                let n = Double(right - left + 1)
                let m = Double(k - left + 1)
                let z = log(n)
                let s = 0.5 * exp(2 * z / 3)
                let sd = 0.5 * (z * s * (n - s) / n).squareRoot() * (m - n / 2 < 0 ? -1 : 1)
                let newLeft = max(left, Int((Double(k) - m * s / n + sd).rounded(.down)))
                let newRight = min(right, Int((Double(k) + (n - m) * s / n + sd).rounded(.down)))
                select(k, newLeft, newRight, axis)
            }
            let t = coords[2 * k + axis]
            var i = left
            var j = right
            swapItem(left, k)
            if coords[2 * right + axis] > t { swapItem(left, right) }
            while i < j {
                swapItem(i, j)
                i += 1
                j -= 1
                while coords[2 * i + axis] < t { i += 1 }
                while coords[2 * j + axis] > t { j -= 1 }
            }
            if coords[2 * left + axis] == t {
                swapItem(left, j)
            } else {
                j += 1
                swapItem(j, right)
            }
            if j <= k { left = j + 1 }
            if k <= j { right = j - 1 }
        }
    }

    @inline(__always) func swapItem(_ i: Int, _ j: Int) {
        let o = order[i]
        order[i] = order[j]
        order[j] = o
        let x = coords[2 * i]
        let y = coords[2 * i + 1]
        coords[2 * i] = coords[2 * j]
        coords[2 * i + 1] = coords[2 * j + 1]
        coords[2 * j] = x
        coords[2 * j + 1] = y
    }
}
