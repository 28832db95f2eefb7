import Foundation
import NearbyCore
import Testing

/// The geodesic metric's bounds must be conservative, or index answers stop being exact.
@Suite struct GeodesicMetricTests {
    @Test func factorsAreTheExtremeRadiiOfCurvatureOverR() {
        // WGS84 meridional radius at the equator a(1−e²) = 6,335,439.327 m and polar radius of
        // curvature a²/b = 6,399,593.626 m (NIMA TR8350.2, table 3.3: c = 6,399,593.6258 m).
        #expect(abs(GeodesicMetric.lowerFactor * Haversine.earthRadius - 6_335_439.327) < 1e-3)
        #expect(abs(GeodesicMetric.upperFactor * Haversine.earthRadius - 6_399_593.626) < 1e-3)
    }

    /// Ratios geodesic / haversine over random pairs of every kind. Observed (docs/distance-models.md):
    /// 0.9944169795 … 1.0044867031 against the factors 0.9944169795 and 1.0044867032.
    @Test func ratioStaysInsideTheFactors() {
        var rng = SeededGenerator(seed: 42)
        var low = Double.infinity
        var high = -Double.infinity
        func check(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) {
            let h = Haversine.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            guard h > 0 else { return }
            let ratio = Geodesic.wgs84.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2) / h
            low = min(low, ratio)
            high = max(high, ratio)
        }
        func uniformLat() -> Double { asin(Double.random(in: -1...1, using: &rng)) * 180 / .pi }
        for _ in 0..<10_000 {  // uniform on the sphere
            check(
                uniformLat(), .random(in: -180...180, using: &rng), uniformLat(), .random(in: -180...180, using: &rng))
        }
        for _ in 0..<3_000 {  // nearly antipodal: within 1° of the spherical antipode
            let lat = uniformLat()
            let lon = Double.random(in: -180...180, using: &rng)
            check(
                lat, lon, max(-90, min(90, -lat + .random(in: -1...1, using: &rng))),
                lon + 180 + .random(in: -1...1, using: &rng))
        }
        for _ in 0..<3_000 {  // short: 1 m to 10 km in any direction, anywhere
            let lat = uniformLat()
            let lon = Double.random(in: -180...180, using: &rng)
            let step = pow(10, Double.random(in: -5 ... -1, using: &rng))
            let angle = Double.random(in: 0..<(2 * .pi), using: &rng)
            check(lat, lon, max(-90, min(90, lat + step * cos(angle))), lon + step * sin(angle))
        }
        // Where the extremes are reached: north–south at the equator, east–west near a pole.
        check(0, 10, 0.001, 10)
        check(89.99, 0, 89.99, 0.01)
        #expect(low >= GeodesicMetric.lowerFactor && high <= GeodesicMetric.upperFactor, "observed \(low)…\(high)")
        #expect(
            low < GeodesicMetric.lowerFactor + 1e-6 && high > GeodesicMetric.upperFactor - 1e-6, "factors are tight")
    }

    /// lowerBound ≤ geodesic distance ≤ upperBound for random centres (poles and ±180 included) and
    /// random boxes, at the boxes' corners, edges and inside.
    @Test func boundsHoldForRandomBoxes() {
        var rng = SeededGenerator(seed: 3)
        var violations = 0
        for trial in 0..<2_000 {
            let centre: (lat: Double, lon: Double) =
                switch trial % 5 {
                case 0: (90, .random(in: -180...180, using: &rng))
                case 1: (.random(in: -90...90, using: &rng), 180 - .random(in: 0..<0.01, using: &rng))
                default: (.random(in: -90...90, using: &rng), .random(in: -180...180, using: &rng))
                }
            let metric = GeodesicMetric(lat: centre.lat, lon: centre.lon)
            let size = pow(10, Double.random(in: -4...2.3, using: &rng))
            let minX = Double.random(in: -180...(180 - min(size, 360)), using: &rng)
            let maxX = min(180, minX + size)
            let minY = Double.random(in: -90...(90 - min(size, 180)), using: &rng)
            let maxY = min(90, minY + size)
            let lower = metric.lowerBound(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
            let upper = metric.upperBound(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
            let xs = [minX, maxX] + (0..<6).map { _ in Double.random(in: minX...maxX, using: &rng) }
            let ys = [minY, maxY] + (0..<6).map { _ in Double.random(in: minY...maxY, using: &rng) }
            for x in xs {
                for y in ys {
                    let d = metric.distance(x: x, y: y)
                    if d < lower || d > upper { violations += 1 }
                }
            }
        }
        #expect(violations == 0)
    }

    /// End to end: the packed R-tree with the geodesic metric answers radius, count and k-nearest
    /// queries exactly as a brute-force scan does.
    @Test func treeQueriesMatchBruteForce() {
        var rng = SeededGenerator(seed: 11)
        // Half the points in Korea, half anywhere (poles and the antimeridian included), some duplicates.
        var lats: [Double] = []
        var lons: [Double] = []
        for i in 0..<3_000 {
            if i % 2 == 0 {
                lats.append(.random(in: 33...38.6, using: &rng))
                lons.append(.random(in: 124.5...131, using: &rng))
            } else {
                lats.append(.random(in: -90...90, using: &rng))
                lons.append(.random(in: -180...180, using: &rng))
            }
        }
        lats += [90, -90, 10, 10, 10]
        lons += [0, 0, 180, -180, 180]
        let tree = PackedRTree(xs: lons, ys: lats)
        let centres: [(Double, Double)] = [
            (37.5665, 126.978), (35.1796, 129.0756), (89.9, 0), (-89.99, 100),
            (10, 179.99), (0, -180), (-37.5665, -53.022),
        ]
        for (lat, lon) in centres {
            let metric = GeodesicMetric(lat: lat, lon: lon)
            let exact = lats.indices.map { metric.distance(x: lons[$0], y: lats[$0]) }
            for radius in [0, 500, 20_000, 300_000, 5_000_000, 20_003_931.5, 3e7] {
                var found: [Int32] = []
                tree.within(metric, radius: radius) { item, d in
                    found.append(item)
                    #expect(d == exact[Int(item)])
                }
                let expected = exact.indices.filter { exact[$0] <= radius }.map(Int32.init)
                #expect(found.sorted() == expected, "centre \(lat) \(lon) radius \(radius)")
                #expect(tree.count(metric, radius: radius) == expected.count)
            }
            let order = exact.indices.sorted { (exact[$0], $0) < (exact[$1], $1) }
            for k in [1, 10, 100] {
                let nearest = tree.nearest(metric, k: k).map { Int($0.item) }
                #expect(nearest == Array(order.prefix(k)), "centre \(lat) \(lon) k \(k)")
            }
        }
    }
}
