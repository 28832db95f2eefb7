import Foundation

/// One level as the greedy pass makes it, in the order its entries were made: coordinates x, y
/// interleaved, ids, counts, and the cluster that took each entry in the level below (`UInt32.max`:
/// none; set while that level is made).
struct MadeLevel {
    var coords: [Double] = []
    var ids: [UInt32] = []
    var counts: [UInt32] = []
    var parents: [UInt32] = []
    var count: Int { ids.count }

    init(capacity: Int) {
        coords.reserveCapacity(2 * capacity)
        ids.reserveCapacity(capacity)
        counts.reserveCapacity(capacity)
    }

    @inline(__always) mutating func append(x: Double, y: Double, id: UInt32, count: UInt32) {
        coords.append(x)
        coords.append(y)
        ids.append(id)
        counts.append(count)
    }

    /// Level `zoom` made from this one (level `zoom + 1`), whose `parents` this sets: each entry not
    /// yet taken, in order, takes every entry not yet taken within r = radius / (extent · 2^zoom).
    /// The entries it takes are summed, and passed down when too few to cluster, in the order they were
    /// made (supercluster: the order its KD-tree visits them), so a centroid can differ from
    /// supercluster's in its last bits and, with `minPoints` above 2, a level's order (and so ids).
    mutating func clustered(zoom: Int, options: ClusterOptions, pointCount: Int) -> MadeLevel {
        let r = options.radius / (options.extent * pow(2, Double(zoom)))
        let n = count
        parents = [UInt32](repeating: .max, count: n)
        var made = MadeLevel(capacity: n)
        var taken = [Bool](repeating: false, count: n)
        var neighbours: [Int32] = []
        coords.withUnsafeBufferPointer { coords in
            let grid = CellGrid(coords: coords, radius: r)
            for i in 0..<n where !taken[i] {
                taken[i] = true
                let x = coords[2 * i]
                let y = coords[2 * i + 1]
                neighbours.removeAll(keepingCapacity: true)
                grid.within(x: x, y: y) { j in if !taken[j] { neighbours.append(Int32(j)) } }
                if neighbours.isEmpty {
                    made.append(x: x, y: y, id: ids[i], count: counts[i])
                    continue
                }
                neighbours.sort()
                let own = Int(counts[i])
                var total = own
                for j in neighbours { total += Int(counts[Int(j)]) }
                for j in neighbours { taken[Int(j)] = true }
                if total >= options.minPoints {
                    var wx = x * Double(own)
                    var wy = y * Double(own)
                    let id = UInt32((i << 5) + (zoom + 1) + pointCount)
                    for j in neighbours {
                        let j = Int(j)
                        let c = Double(counts[j])
                        wx += coords[2 * j] * c
                        wy += coords[2 * j + 1] * c
                        parents[j] = id
                    }
                    parents[i] = id
                    made.append(x: wx / Double(total), y: wy / Double(total), id: id, count: UInt32(total))
                } else {
                    made.append(x: x, y: y, id: ids[i], count: counts[i])
                    for j in neighbours {
                        let j = Int(j)
                        made.append(x: coords[2 * j], y: coords[2 * j + 1], id: ids[j], count: counts[j])
                    }
                }
            }
        }
        return made
    }
}

/// A level's entries bucketed by a hashed grid of square cells 2r wide (plus a margin), for the
/// greedy pass's queries of radius r: the disc around a point lies within the two columns and two rows
/// of cells its edges fall in, so a query reads at most four buckets. Building it is a counting sort,
/// O(n), where a KD-tree sorts (O(n log n)); with a table of at least n buckets a bucket holds about
/// one cell.
///
/// Its memory is one block it owns: bucket b's entries are `entries[start[b] ..< start[b + 1]]`, in
/// the order they were made, and `xy` holds their coordinates in the same order.
final class CellGrid {
    private let r2: Double
    /// The query's reach beyond r (r · 1e-6): far above rounding, far below r, so a neighbour exactly r
    /// away is never in a cell the query leaves out.
    private let reach: Double
    private let cell: Double
    private let shift: UInt64
    private let block: UnsafeMutableRawPointer
    private let start: UnsafeMutablePointer<UInt32>
    private let entries: UnsafeMutablePointer<UInt32>
    private let xy: UnsafeMutablePointer<Double>

    init(coords: UnsafeBufferPointer<Double>, radius r: Double) {
        let n = coords.count / 2
        r2 = r * r
        reach = r * (1 + 1e-6)
        cell = 2.0001 * r
        var bits: UInt64 = 1
        while 1 << bits < n { bits += 1 }
        shift = 64 - bits
        let buckets = 1 << Int(bits)
        // xy (16 bytes an entry) first, so every part is aligned; then entries, then start.
        block = .allocate(byteCount: 20 * n + 4 * (buckets + 1), alignment: 8)
        xy = block.bindMemory(to: Double.self, capacity: 2 * n)
        entries = (block + 16 * n).bindMemory(to: UInt32.self, capacity: n)
        start = (block + 20 * n).bindMemory(to: UInt32.self, capacity: buckets + 1)
        start.initialize(repeating: 0, count: buckets + 1)
        // `entries` holds each entry's bucket until the entries are placed.
        for i in 0..<n {
            let b = bucket(Self.cell(coords[2 * i] / cell), Self.cell(coords[2 * i + 1] / cell))
            entries[i] = UInt32(b)
            start[b + 1] += 1
        }
        for b in 0..<buckets { start[b + 1] += start[b] }
        let next = UnsafeMutablePointer<UInt32>.allocate(capacity: buckets)
        defer { next.deallocate() }
        next.initialize(from: start, count: buckets)
        let bucketOf = UnsafeMutablePointer<UInt32>.allocate(capacity: max(1, n))
        defer { bucketOf.deallocate() }
        bucketOf.initialize(from: entries, count: n)
        for i in 0..<n {
            let b = Int(bucketOf[i])
            let p = Int(next[b])
            next[b] += 1
            entries[p] = UInt32(i)
            xy[2 * p] = coords[2 * i]
            xy[2 * p + 1] = coords[2 * i + 1]
        }
    }

    deinit { block.deallocate() }

    /// A cell's column or row: truncated, which is monotonic as the queries need (a longitude far
    /// outside ±180° is clamped rather than trapping; its x only meets others as far out).
    @inline(__always) private static func cell(_ v: Double) -> Int { Int(max(-1e15, min(1e15, v))) }

    @inline(__always) private func bucket(_ cx: Int, _ cy: Int) -> Int {
        let h =
            (UInt64(bitPattern: Int64(cx)) &* 0x9E37_79B9_7F4A_7C15)
            ^ (UInt64(bitPattern: Int64(cy)) &* 0xC2B2_AE3D_27D4_EB4F)
        return Int(h >> shift)
    }

    /// Calls `visit` with every entry within r of (x, y) (distance ≤ r), each once, in no set order.
    @inline(__always) func within(x: Double, y: Double, _ visit: (Int) -> Void) {
        let x0 = Self.cell((x - reach) / cell)
        let x1 = Self.cell((x + reach) / cell)
        let y0 = Self.cell((y - reach) / cell)
        let y1 = Self.cell((y + reach) / cell)
        // At most two columns and two rows; cells that share a bucket are read once.
        var seen = (-1, -1, -1)
        var k = 0
        for cy in y0...y1 {
            for cx in x0...x1 {
                let b = bucket(cx, cy)
                if b == seen.0 || b == seen.1 || b == seen.2 { continue }
                switch k {
                case 0: seen.0 = b
                case 1: seen.1 = b
                default: seen.2 = b
                }
                k += 1
                for p in Int(start[b])..<Int(start[b + 1]) {
                    let dx = xy[2 * p] - x
                    let dy = xy[2 * p + 1] - y
                    if dx * dx + dy * dy <= r2 { visit(Int(entries[p])) }
                }
            }
        }
    }
}

/// The levels a build made, each sorted into its KD-tree (`ClusterIndex.Level`) when first read: a
/// request for one zoom of a hierarchy built for it sorts that level alone.
final class BuiltLevels: @unchecked Sendable {
    // @unchecked: `made` and `sorted` are read and written under `lock`.
    private let lock = NSLock()
    private var made: [MadeLevel?]
    private var sorted: [ClusterIndex.Level?]
    let counts: [Int]
    private let nodeSize: Int

    /// `levels` from `minZoom` to `maxZoom + 1`.
    init(_ levels: [MadeLevel], nodeSize: Int) {
        made = levels
        sorted = Array(repeating: nil, count: levels.count)
        counts = levels.map(\.count)
        self.nodeSize = nodeSize
    }

    func level(_ l: Int) -> ClusterIndex.Level {
        lock.lock()
        defer { lock.unlock() }
        if let level = sorted[l] { return level }
        let m = made[l]!
        let level = ClusterIndex.Level(
            coords: m.coords, ids: m.ids, counts: m.counts, parents: m.parents, nodeSize: nodeSize)
        sorted[l] = level
        made[l] = nil
        return level
    }
}
