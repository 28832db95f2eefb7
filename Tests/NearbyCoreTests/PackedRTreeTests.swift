import Foundation
import Testing

@testable import NearbyCore

/// SplitMix64 (Steele, Lea, Flood 2014): a seeded generator, so every failure reproduces.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Generated point sets (lon = x, lat = y, degrees) covering the cases the index must get right.
enum TestPoints {
    static func uniformOnSphere(_ n: Int, _ g: inout SeededGenerator) -> (xs: [Double], ys: [Double]) {
        var xs: [Double] = []
        var ys: [Double] = []
        for _ in 0..<n {
            xs.append(Double.random(in: -180...180, using: &g))
            ys.append(asin(Double.random(in: -1...1, using: &g)) * 180 / .pi)
        }
        return (xs, ys)
    }

    /// Towns around Korea: a few dense clusters of a few hundred metres to tens of kilometres.
    static func korea(_ n: Int, _ g: inout SeededGenerator) -> (xs: [Double], ys: [Double]) {
        let towns = (0..<12).map { _ in
            (
                lon: Double.random(in: 126.0...129.5, using: &g), lat: Double.random(in: 33.2...38.5, using: &g),
                spread: [0.003, 0.03, 0.3].randomElement(using: &g)!
            )
        }
        var xs: [Double] = []
        var ys: [Double] = []
        for _ in 0..<n {
            let t = towns.randomElement(using: &g)!
            xs.append(t.lon + Double.random(in: -t.spread...t.spread, using: &g))
            ys.append(t.lat + Double.random(in: -t.spread...t.spread, using: &g))
        }
        return (xs, ys)
    }

    /// Many places at one coordinate, a few near it, and the tie-breaking by item index that follows.
    static func duplicates(_ n: Int, _ g: inout SeededGenerator) -> (xs: [Double], ys: [Double]) {
        var xs: [Double] = []
        var ys: [Double] = []
        for i in 0..<n {
            let dup = i % 4 != 3
            xs.append(dup ? 126.978 : 126.978 + Double.random(in: -0.001...0.001, using: &g))
            ys.append(dup ? 37.5665 : 37.5665 + Double.random(in: -0.001...0.001, using: &g))
        }
        return (xs, ys)
    }

    /// Points on the poles and on the antimeridian (both ±180), and a few near them.
    static func polesAndAntimeridian(_ n: Int, _ g: inout SeededGenerator) -> (xs: [Double], ys: [Double]) {
        var xs: [Double] = []
        var ys: [Double] = []
        for i in 0..<n {
            switch i % 5 {
            case 0:
                xs.append(Double.random(in: -180...180, using: &g))
                ys.append(i % 2 == 0 ? 90 : -90)
            case 1:
                xs.append(i % 2 == 0 ? 180 : -180)
                ys.append(Double.random(in: -90...90, using: &g))
            case 2:
                xs.append(Double.random(in: 179.9...180, using: &g))
                ys.append(Double.random(in: -10...10, using: &g))
            case 3:
                xs.append(Double.random(in: -180 ... -179.9, using: &g))
                ys.append(Double.random(in: -10...10, using: &g))
            default:
                xs.append(Double.random(in: -180...180, using: &g))
                ys.append(Double.random(in: 89.9...90, using: &g))
            }
        }
        return (xs, ys)
    }

    /// The point sets every query is checked on.
    enum Kind: String, CaseIterable, Sendable {
        case uniform, korea, duplicates, polesAndAntimeridian, onePoint, empty

        func make(_ g: inout SeededGenerator) -> (xs: [Double], ys: [Double]) {
            switch self {
            case .uniform: TestPoints.uniformOnSphere(3000, &g)
            case .korea: TestPoints.korea(3000, &g)
            case .duplicates: TestPoints.duplicates(600, &g)
            case .polesAndAntimeridian: TestPoints.polesAndAntimeridian(1500, &g)
            case .onePoint: ([127.0], [37.5])
            case .empty: ([], [])
            }
        }
    }
}

/// The brute-force answers the index must reproduce exactly, from every item ranked once per centre.
struct BruteForce {
    /// All items by (distance, item index).
    let ranked: [(item: Int32, distance: Double)]

    init<M: SpatialMetric>(xs: [Double], ys: [Double], _ m: M) {
        ranked = zip(xs, ys).enumerated()
            .map { (Int32($0.offset), m.distance(x: $0.element.0, y: $0.element.1)) }
            .sorted { ($0.distance, $0.item) < ($1.distance, $1.item) }
    }

    /// Items within the radius, by item index.
    func within(radius: Double) -> [(item: Int32, distance: Double)] {
        ranked.filter { $0.distance <= radius }.sorted { $0.item < $1.item }
    }

    func nearest(k: Int, maxDistance: Double = .infinity, include: (Int32) -> Bool = { _ in true })
        -> [(item: Int32, distance: Double)]
    {
        // `ranked` is by distance: the walk ends at the first item beyond `maxDistance`.
        var found: [(item: Int32, distance: Double)] = []
        for r in ranked {
            if found.count == k || r.distance > maxDistance { break }
            if include(r.item) { found.append(r) }
        }
        return found
    }
}

/// Query centres: uniform, on data points, next to them, on the poles and on the antimeridian.
func testCentres(_ xs: [Double], _ ys: [Double], _ g: inout SeededGenerator) -> [(lon: Double, lat: Double)] {
    var centres: [(lon: Double, lat: Double)] = [
        (0, 90), (0, -90), (180, 0), (-180, 0), (179.95, 0.5), (-179.95, -0.5),
    ]
    for i in 0..<12 {
        if !xs.isEmpty && i % 2 == 0 {
            let p = Int.random(in: 0..<xs.count, using: &g)
            let jitter = i % 4 == 0 ? 0 : 0.01
            centres.append(
                (
                    min(180, max(-180, xs[p] + Double.random(in: -jitter...jitter, using: &g))),
                    min(90, max(-90, ys[p] + Double.random(in: -jitter...jitter, using: &g)))
                ))
        } else {
            let u = TestPoints.uniformOnSphere(1, &g)
            centres.append((u.xs[0], u.ys[0]))
        }
    }
    return centres
}

/// Radii: 0, from a metre to 1,000 km, and beyond half the Earth's circumference.
func testRadii(_ g: inout SeededGenerator) -> [Double] {
    [0, 20_037_508 + 1, .pi * Haversine.earthRadius, 10_000_000]
        + (0..<6).map { _ in pow(10, Double.random(in: 0...6, using: &g)) }
}

func sameAnswers(_ a: [(item: Int32, distance: Double)], _ b: [(item: Int32, distance: Double)]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.item == $1.item && $0.distance == $1.distance }
}

/// within (as a set, with distances), count and nearest (exact order, with and without a filter)
/// against brute force for one centre and radius.
func expectBruteForceAnswers<M: SpatialMetric>(
    _ tree: PackedRTree, _ m: M, _ brute: BruteForce, radius: Double, ks: [Int], _ what: String
) {
    var got: [(item: Int32, distance: Double)] = []
    tree.within(m, radius: radius) { got.append(($0, $1)) }
    got.sort { $0.item < $1.item }
    let expected = brute.within(radius: radius)
    #expect(sameAnswers(got, expected), "within \(what) r=\(radius)")
    #expect(tree.count(m, radius: radius) == expected.count, "count \(what) r=\(radius)")
    var first: [(item: Int32, distance: Double)] = []
    let (total, complete) = tree.firstMatches(m, radius: radius, budget: expected.count) { first.append(($0, $1)) }
    first.sort { $0.item < $1.item }
    #expect(total == expected.count && complete && sameAnswers(first, expected), "firstMatches \(what) r=\(radius)")
    if !expected.isEmpty {
        var handed = 0
        let over = tree.firstMatches(m, radius: radius, budget: expected.count - 1) { _, _ in handed += 1 }
        #expect(over.total == expected.count && !over.complete, "firstMatches over budget \(what) r=\(radius)")
        #expect(
            handed <= expected.count - 1, "firstMatches handed \(handed) matches over a budget of \(expected.count - 1)"
        )
    }
    let include: (Int32) -> Bool = { $0 % 3 != 1 }
    for k in ks {
        #expect(
            sameAnswers(tree.nearest(m, k: k, maxDistance: radius), brute.nearest(k: k, maxDistance: radius)),
            "nearest \(what) r=\(radius) k=\(k)")
        #expect(
            sameAnswers(
                tree.nearest(m, k: k, maxDistance: radius, where: include),
                brute.nearest(k: k, maxDistance: radius, include: include)),
            "filtered nearest \(what) r=\(radius) k=\(k)")
    }
}

@Suite struct PackedRTreeTests {
    @Test func hilbertFillsTheCornerSquareContinuously() {
        // The first 4ᵏ curve positions fill the 2ᵏ × 2ᵏ corner, each a step away from the previous.
        let side: UInt32 = 16
        var cell = [Int: (UInt32, UInt32)]()
        for x in 0..<side { for y in 0..<side { cell[Int(hilbertIndex(x: x, y: y))] = (x, y) } }
        #expect(cell.keys.sorted() == Array(0..<Int(side * side)))
        for h in 1..<Int(side * side) {
            let (x0, y0) = cell[h - 1]!
            let (x1, y1) = cell[h]!
            #expect(abs(Int(x0) - Int(x1)) + abs(Int(y0) - Int(y1)) == 1)
        }
        #expect(hilbertIndex(x: 0, y: 0) == 0)
        #expect(hilbertIndex(x: 65535, y: 0) == UInt32.max)
    }

    @Test func structureCoversEveryItemOnce() {
        var g = SeededGenerator(seed: 1)
        for n in [0, 1, 15, 16, 17, 256, 257, 4097] {
            let (xs, ys) = TestPoints.uniformOnSphere(n, &g)
            let tree = PackedRTree(xs: xs, ys: ys, nodeSize: 16)
            #expect(tree.count == n)
            #expect(tree.items!.sorted() == (0..<Int32(n)).map { $0 })
            var seen: [Int32] = []
            tree.search(minX: -180, minY: -90, maxX: 180, maxY: 90) { seen.append($0) }
            #expect(seen.sorted() == (0..<Int32(n)).map { $0 })
            // Every node's box contains the points it covers.
            tree.withView { v in
                for level in 1..<v.top + 1 {
                    for j in 0..<v.levels[3 * level + 1] {
                        v.withBox(level, j) { x0, y0, x1, y1 in
                            for pos in v.pointRange(level, j) {
                                #expect(v.x(pos) >= x0 && v.x(pos) <= x1 && v.y(pos) >= y0 && v.y(pos) <= y1)
                            }
                        }
                    }
                }
                #expect(v.levels[3 * v.top + 1] == (n == 0 ? 0 : 1))
            }
        }
    }

    @Test(arguments: TestPoints.Kind.allCases)
    func haversineQueriesMatchBruteForce(kind: TestPoints.Kind) {
        var g = SeededGenerator(seed: 42)
        let (xs, ys) = kind.make(&g)
        let radii = testRadii(&g)
        // Trees that store their points' cosines must give the brute force's distances bit for bit too.
        for (nodeSize, cosines) in [(16, false), (16, true), (3, true)] {
            let tree = PackedRTree(xs: xs, ys: ys, nodeSize: nodeSize, cosines: cosines)
            #expect((tree.cosines != nil) == cosines)
            for c in testCentres(xs, ys, &g) {
                let m = HaversineMetric(lat: c.lat, lon: c.lon)
                let brute = BruteForce(xs: xs, ys: ys, m)
                // Radii exactly at a point's distance and one ulp short of it: points on the circle.
                let onCircle =
                    brute.ranked.isEmpty
                    ? []
                    : [0, brute.ranked.count / 3, brute.ranked.count - 1].flatMap {
                        [brute.ranked[$0].distance, brute.ranked[$0].distance.nextDown]
                    }
                for radius in radii + onCircle {
                    expectBruteForceAnswers(
                        tree, m, brute, radius: radius, ks: [1, 30, xs.count + 5],
                        "\(kind.rawValue) \(c) node size \(nodeSize), cosines \(cosines)")
                }
                #expect(
                    sameAnswers(
                        tree.nearest(m, k: 7),
                        brute.nearest(k: 7)))
                #expect(tree.nearest(m, k: 0).isEmpty)
            }
        }
    }

    @Test(arguments: TestPoints.Kind.allCases)
    func boxSearchMatchesBruteForce(kind: TestPoints.Kind) {
        var g = SeededGenerator(seed: 7)
        let (xs, ys) = kind.make(&g)
        let tree = PackedRTree(xs: xs, ys: ys)
        var boxes: [(Double, Double, Double, Double)] = [
            (-180, -90, 180, 90), (170, -20, -170, 20), (180, -90, 180, 90),
        ]
        for i in 0..<200 {
            if i % 3 == 0 && !xs.isEmpty {
                // A box whose edges are data coordinates, to exercise the inclusive edges.
                let a = Int.random(in: 0..<xs.count, using: &g)
                let b = Int.random(in: 0..<xs.count, using: &g)
                boxes.append((min(xs[a], xs[b]), min(ys[a], ys[b]), max(xs[a], xs[b]), max(ys[a], ys[b])))
            } else {
                // Random boxes, about a third of them crossing the antimeridian (minLon > maxLon).
                let lat0 = Double.random(in: -90...90, using: &g)
                let lat1 = Double.random(in: -90...90, using: &g)
                boxes.append(
                    (
                        Double.random(in: -180...180, using: &g), min(lat0, lat1),
                        Double.random(in: -180...180, using: &g), max(lat0, lat1)
                    ))
            }
        }
        for (minLon, minLat, maxLon, maxLat) in boxes {
            var got: [Int32] = []
            tree.searchLonLat(minLon: minLon, minLat: minLat, maxLon: maxLon, maxLat: maxLat) { got.append($0) }
            let expected = xs.indices.filter { i in
                let lonIn = minLon <= maxLon ? xs[i] >= minLon && xs[i] <= maxLon : xs[i] >= minLon || xs[i] <= maxLon
                return lonIn && ys[i] >= minLat && ys[i] <= maxLat
            }.map { Int32($0) }
            #expect(got.sorted() == expected, "box \(minLon),\(minLat),\(maxLon),\(maxLat)")
        }
    }

    /// The work the index saves, measured by counting the metric's calls: whole subtrees inside the
    /// circle are counted without distances, and best-first nearest stops long before every point.
    @Test func countAndNearestSkipWork() {
        final class Calls { var distances = 0 }
        struct Counting: SpatialMetric {
            let m: HaversineMetric, calls: Calls
            func distance(x: Double, y: Double) -> Double {
                calls.distances += 1
                return m.distance(x: x, y: y)
            }
            func lowerBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
                m.lowerBound(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
            }
            func upperBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
                m.upperBound(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
            }
        }
        var g = SeededGenerator(seed: 21)
        let (xs, ys) = TestPoints.korea(20_000, &g)
        let tree = PackedRTree(xs: xs, ys: ys)
        let calls = Calls()
        let m = Counting(m: HaversineMetric(lat: ys[0], lon: xs[0]), calls: calls)
        #expect(tree.count(m, radius: 20_037_508) == xs.count)
        #expect(calls.distances == 0)
        let inRange = tree.count(m.m, radius: 30_000)
        calls.distances = 0
        #expect(tree.count(m, radius: 30_000) == inRange)
        #expect(inRange > 1000 && calls.distances < inRange / 2)
        calls.distances = 0
        #expect(tree.nearest(m, k: 30, maxDistance: 30_000).count == 30)
        #expect(calls.distances < 300)
    }

    /// `firstMatches` keeps 64 unopened subtrees on the stack and measures later ones at once: answers
    /// with far more of them are still every match, once each, and over budget still incomplete.
    @Test func firstMatchesWithManyUnopenedSubtrees() {
        // Uniform in a square of about 44 × 55 km, circles around its middle: a long edge through dense leaves.
        var g = SeededGenerator(seed: 23)
        let xs = (0..<20_000).map { _ in Double.random(in: 127...127.5, using: &g) }
        let ys = (0..<20_000).map { _ in Double.random(in: 37...37.5, using: &g) }
        let tree = PackedRTree(xs: xs, ys: ys, nodeSize: 2)
        let m = HaversineMetric(lat: 37.25, lon: 127.25)
        let brute = BruteForce(xs: xs, ys: ys, m)
        var mostRuns = 0
        for radius in [2_000, 6_000, 12_000].map({ brute.ranked[$0].distance }) {
            var runs = 0
            _ = tree.count(m, radius: radius, found: { _, _ in }, contained: { _ in runs += 1 })
            mostRuns = max(mostRuns, runs)
            let expected = brute.within(radius: radius)
            for budget in [expected.count, expected.count + 1, .max] {
                var first: [(item: Int32, distance: Double)] = []
                let (total, complete) = tree.firstMatches(m, radius: radius, budget: budget) { first.append(($0, $1)) }
                first.sort { $0.item < $1.item }
                #expect(
                    total == expected.count && complete && sameAnswers(first, expected), "r=\(radius) budget \(budget)")
            }
            var handed = 0
            let over = tree.firstMatches(m, radius: radius, budget: expected.count - 1) { _, _ in handed += 1 }
            #expect(over.total == expected.count && !over.complete && handed <= expected.count - 1)
        }
        #expect(mostRuns > 64, "at most \(mostRuns) unopened subtrees")
    }

    @Test func planarQueriesMatchBruteForce() {
        var g = SeededGenerator(seed: 99)
        // Projected metres: a dense cluster, a sparse field and duplicates.
        var xs: [Double] = []
        var ys: [Double] = []
        for i in 0..<2000 {
            let spread = i % 3 == 0 ? 100.0 : 50_000
            xs.append(i % 7 == 0 ? 950_000 : 950_000 + Double.random(in: -spread...spread, using: &g))
            ys.append(i % 7 == 0 ? 1_950_000 : 1_950_000 + Double.random(in: -spread...spread, using: &g))
        }
        let tree = PackedRTree(xs: xs, ys: ys)
        for q in 0..<60 {
            let m =
                q % 4 == 0
                ? PlanarMetric(x: 950_000, y: 1_950_000)
                : PlanarMetric(
                    x: 950_000 + Double.random(in: -60_000...60_000, using: &g),
                    y: 1_950_000 + Double.random(in: -60_000...60_000, using: &g))
            let brute = BruteForce(xs: xs, ys: ys, m)
            for radius in [0, 10, 1_000, 20_000, 1e9] {
                expectBruteForceAnswers(tree, m, brute, radius: radius, ks: [30], "planar \(q)")
            }
        }
    }

    @Test func planarBoundsAreSound() {
        var g = SeededGenerator(seed: 5)
        for _ in 0..<2000 {
            let x0 = Double.random(in: -1e6...1e6, using: &g)
            let y0 = Double.random(in: -1e6...1e6, using: &g)
            let x1 = x0 + Double.random(in: 0...1e4, using: &g)
            let y1 = y0 + Double.random(in: 0...1e4, using: &g)
            let m = PlanarMetric(
                x: Double.random(in: -1.1e6...1.1e6, using: &g),
                y: Double.random(in: -1.1e6...1.1e6, using: &g))
            let lb = m.lowerBound(minX: x0, minY: y0, maxX: x1, maxY: y1)
            let ub = m.upperBound(minX: x0, minY: y0, maxX: x1, maxY: y1)
            for (px, py) in [
                (x0, y0), (x1, y1), (x0, y1), (x1, y0),
                (Double.random(in: x0...x1, using: &g), Double.random(in: y0...y1, using: &g)),
            ] {
                let d = m.distance(x: px, y: py)
                #expect(lb <= d && d <= ub)
            }
        }
    }
}
