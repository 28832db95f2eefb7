import Foundation
import Testing

@testable import NearbyCore

@Suite struct HaversineMetricTests {
    let R = Haversine.earthRadius

    @Test func distanceIsHaversineItself() {
        var g = SeededGenerator(seed: 3)
        let (xs, ys) = TestPoints.uniformOnSphere(500, &g)
        let m = HaversineMetric(lat: 37.5665, lon: 126.978)
        for (x, y) in zip(xs, ys) {
            #expect(m.distance(x: x, y: y) == Haversine.distance(lat1: 37.5665, lon1: 126.978, lat2: y, lon2: x))
        }
    }

    /// The `b`th random box (sizes from a micrometre-degree to the whole sphere, some touching a pole or
    /// ±180) and points in it: its corners, edge midpoints and `interiorPoints` random ones.
    static func randomBox(_ b: Int, interiorPoints: Int, _ g: inout SeededGenerator)
        -> (x0: Double, y0: Double, x1: Double, y1: Double, points: [(Double, Double)])
    {
        let size = [1e-6, 1e-3, 0.1, 5, 60, 360][b % 6]
        var x0 = Double.random(in: -180...180, using: &g)
        var y0 = Double.random(in: -90...90, using: &g)
        if b % 7 == 0 { y0 = 90 - size / 2 }
        if b % 11 == 0 { x0 = 180 - size }
        let x1 = min(180, x0 + Double.random(in: 0...size, using: &g))
        let y1 = min(90, y0 + Double.random(in: 0...size / 2, using: &g))
        x0 = max(-180, x0)
        y0 = max(-90, y0)
        var points = [(x0, y0), (x1, y1), (x0, y1), (x1, y0), ((x0 + x1) / 2, y0), ((x0 + x1) / 2, y1)]
        for _ in 0..<interiorPoints {
            points.append((Double.random(in: x0...x1, using: &g), Double.random(in: y0...y1, using: &g)))
        }
        return (x0, y0, x1, y1, points)
    }

    /// lowerBound ≤ distance ≤ upperBound for random boxes (small to hemisphere-sized, touching the
    /// poles and ±180), points inside them (corners, edges, interior) and centres anywhere, including
    /// near the box, on the poles, on ±180 and near the antipode of the box.
    @Test func boundsContainEveryDistance() {
        var g = SeededGenerator(seed: 11)
        var checked = 0
        var failures: [String] = []
        for b in 0..<1000 {
            let (x0, y0, x1, y1, points) = Self.randomBox(b, interiorPoints: 6, &g)
            var centres: [(lat: Double, lon: Double)] = [(90, 0), (-90, 33), (0, 180), (y0, -180), (y1, x0)]
            let px = points[6].0
            let py = points[6].1
            centres.append((py + Double.random(in: -1e-5...1e-5, using: &g), px))  // almost on a point
            centres.append((-py, px > 0 ? px - 180 : px + 180))  // its antipode
            centres.append((-py + 1e-7, px > 0 ? px - 180 + 1e-7 : px + 180 - 1e-7))  // next to the antipode
            for _ in 0..<4 {
                let u = TestPoints.uniformOnSphere(1, &g)
                centres.append((u.ys[0], u.xs[0]))
            }
            for c in centres {
                let m = HaversineMetric(lat: c.lat, lon: min(180, max(-180, c.lon)))
                let lb = m.lowerBound(minX: x0, minY: y0, maxX: x1, maxY: y1)
                let ub = m.upperBound(minX: x0, minY: y0, maxX: x1, maxY: y1)
                for (x, y) in points {
                    let d = m.distance(x: x, y: y)
                    if !(lb <= d && d <= ub) {
                        failures.append("c=\(c) box=\(x0),\(y0),\(x1),\(y1) p=\(x),\(y) lb=\(lb) d=\(d) ub=\(ub)")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked > 140_000)
        #expect(failures.isEmpty, "\(failures.count) unsound bounds, e.g. \(failures.prefix(3))")
    }

    /// The circle's box tests never call a box outside that holds a point within the radius, nor inside
    /// one that holds a point beyond it, and its point distance is the metric's within the radius:
    /// random boxes and centres as above, radii exactly at the boxes' points' distances, an ulp either
    /// side of them, 0, and past the haversine-space limit (θ > 3).
    @Test func circleTestsAreSound() {
        var g = SeededGenerator(seed: 29)
        var failures: [String] = []
        var outside = 0
        var inside = 0
        for b in 0..<600 {
            let (x0, y0, x1, y1, points) = Self.randomBox(b, interiorPoints: 4, &g)
            let px = points[6].0
            let py = points[6].1
            var centres: [(lat: Double, lon: Double)] = [(90, 0), (-90, 33), (0, 180), (y0, -180), (y1, x0)]
            centres.append((py + Double.random(in: -1e-5...1e-5, using: &g), px))
            centres.append((-py, px > 0 ? px - 180 : px + 180))
            for _ in 0..<3 {
                let u = TestPoints.uniformOnSphere(1, &g)
                centres.append((u.ys[0], u.xs[0]))
            }
            for c in centres {
                let m = HaversineMetric(lat: c.lat, lon: min(180, max(-180, c.lon)))
                let distances: [Double] = points.map { m.distance(x: $0.0, y: $0.1) }
                var radii: [Double] = [0, 19_200_000, 2e7]
                for d in distances { radii += [d, d.nextDown, d.nextUp] }
                radii += [distances.min()! * 0.999, distances.max()! * 1.001]
                for r in radii {
                    let circle = m.circle(radius: r, searchBox: m.searchBox(radius: r))
                    let isOutside = circle.isOutside(minX: x0, minY: y0, maxX: x1, maxY: y1)
                    let isInside = circle.isInside(minX: x0, minY: y0, maxX: x1, maxY: y1)
                    if isOutside { outside += 1 }
                    if isInside { inside += 1 }
                    for ((x, y), d) in zip(points, distances) {
                        let fromCircle = circle.distance(x: x, y: y)
                        if Self.isUnsound(d, radius: r, fromCircle: fromCircle, outside: isOutside, inside: isInside) {
                            failures.append(
                                "c=\(c) box=\(x0),\(y0),\(x1),\(y1) p=\(x),\(y) r=\(r) d=\(d) circle=\(fromCircle) outside=\(isOutside) inside=\(isInside)"
                            )
                        }
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) unsound answers, e.g. \(failures.prefix(3))")
        // Not vacuous: many boxes were decided without their points.
        #expect(outside > 1000 && inside > 1000, "outside \(outside), inside \(inside)")
    }

    /// Whether a circle's answers about one point of a box at exact distance `d` are wrong: the box called
    /// outside (or inside) though the point is within (or beyond) `r`, or the point's distance from the
    /// circle not `d` within the radius, or not beyond it outside.
    static func isUnsound(_ d: Double, radius r: Double, fromCircle: Double, outside: Bool, inside: Bool = false)
        -> Bool
    {
        (outside && d <= r) || (inside && d > r) || (d <= r ? fromCircle != d : !(fromCircle > r))
    }

    /// Small plain circles (the quadratic form in degrees, `HaversineCircle.isFlat`) stay sound: boxes
    /// and points around centres from the equator to 89.9°, near ±180 and near the poles (where the
    /// form is not used), radii from 0 to 63 km and radii equal to a point's distance and an ulp either
    /// side; boxes straddling the search box's edge and the circle's. Most circles use the form, and it
    /// decides boxes outside and points beyond the circle without an exact distance.
    @Test func smallCircleFormIsSound() {
        var g = SeededGenerator(seed: 41)
        var failures: [String] = []
        var flat = 0
        var outside = 0
        var rejected = 0
        for i in 0..<400 {
            let lat = [0, 37.5665, -62, 89.9, -89.99][i % 5] + Double.random(in: -0.01...0.01, using: &g)
            let lon = i % 7 == 0 ? 179.999 : Double.random(in: -180...180, using: &g)
            let m = HaversineMetric(lat: min(90, max(-90, lat)), lon: min(180, lon))
            let reach = [1.0, 100, 2000, 20000, 63000][i % 5]
            for _ in 0..<8 {
                // A box within about two radii of the centre, from a point to a few radii wide.
                let degLat = reach / 111_195 * 2
                let degLon = min(180, degLat / max(0.01, cos(m.phi)))
                let cx = m.lon + Double.random(in: -degLon...degLon, using: &g)
                let cy = min(90, max(-90, m.lat + Double.random(in: -degLat...degLat, using: &g)))
                let w = Double.random(in: 0...degLon, using: &g)
                let h = Double.random(in: 0...degLat, using: &g)
                let x0 = max(-180, min(180, cx - w / 2))
                let x1 = max(x0, min(180, cx + w / 2))
                let y0 = max(-90, cy - h / 2)
                let y1 = min(90, max(y0, cy + h / 2))
                var points = [(x0, y0), (x1, y1), (x0, y1), (x1, y0)]
                for _ in 0..<4 {
                    points.append((Double.random(in: x0...x1, using: &g), Double.random(in: y0...y1, using: &g)))
                }
                let distances = points.map { m.distance(x: $0.0, y: $0.1) }
                var radii = [0, reach, Double.random(in: 0...reach, using: &g)]
                for d in distances where d < 63_000 { radii += [d, d.nextDown, d.nextUp] }
                for r in radii {
                    let circle = m.circle(radius: r, searchBox: m.searchBox(radius: r))
                    if circle.isFlat { flat += 1 }
                    let isOutside = circle.isOutside(minX: x0, minY: y0, maxX: x1, maxY: y1)
                    if isOutside { outside += 1 }
                    for ((x, y), d) in zip(points, distances) {
                        let fromCircle = circle.distance(x: x, y: y)
                        if fromCircle == .infinity && d > r { rejected += 1 }
                        if Self.isUnsound(d, radius: r, fromCircle: fromCircle, outside: isOutside) {
                            failures.append(
                                "c=\(m.lat),\(m.lon) box=\(x0),\(y0),\(x1),\(y1) p=\(x),\(y) r=\(r) d=\(d) circle=\(fromCircle) outside=\(isOutside)"
                            )
                        }
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) unsound answers, e.g. \(failures.prefix(3))")
        #expect(
            flat > 10_000 && outside > 3000 && rejected > 10_000,
            "flat \(flat), outside \(outside), rejected \(rejected)")
    }

    /// The circle's tests decide the boxes a city-sized query meets, and skip the exact distance of a
    /// point beyond it.
    @Test func circleTestsDecideNearbyBoxes() {
        let m = HaversineMetric(lat: 37.5665, lon: 126.978)
        let circle = m.circle(radius: 1000, searchBox: m.searchBox(radius: 1000))
        // About 200 m around the centre: inside; 5 km east: outside; straddling the circle: neither.
        #expect(circle.isInside(minX: 126.9758, minY: 37.5647, maxX: 126.9802, maxY: 37.5683))
        #expect(circle.isOutside(minX: 127.03, minY: 37.56, maxX: 127.04, maxY: 37.57))
        #expect(!circle.isOutside(minX: 126.98, minY: 37.56, maxX: 126.995, maxY: 37.57))
        #expect(!circle.isInside(minX: 126.98, minY: 37.56, maxX: 126.995, maxY: 37.57))
        // A box just beyond the circle, diagonally: outside, though it meets the circle's search box.
        let box = m.searchBox(radius: 1000)!
        #expect(circle.isOutside(minX: box.maxX - 0.0005, minY: box.maxY - 0.0005, maxX: box.maxX, maxY: box.maxY))
        #expect(circle.distance(x: 126.98, y: 37.57) == m.distance(x: 126.98, y: 37.57))
        #expect(circle.distance(x: 127.0, y: 37.5665) == .infinity)
        // Radius 0: only the centre itself, at distance 0.
        let zero = m.circle(radius: 0, searchBox: m.searchBox(radius: 0))
        #expect(zero.distance(x: 126.978, y: 37.5665) == 0)
        #expect(zero.distance(x: 126.978, y: 37.5665.nextUp) > 0)
    }

    /// Every point within the radius lies in `searchBox`, for circles near the poles and ±180, and
    /// points right on the circle; the box is not trivially the whole Earth for small circles.
    @Test func searchBoxHoldsTheCircle() {
        var g = SeededGenerator(seed: 17)
        var failures: [String] = []
        for i in 0..<400 {
            let c =
                i % 4 == 0
                ? (lat: Double.random(in: 85...90, using: &g), lon: Double.random(in: 179...180, using: &g))
                : (
                    lat: asin(Double.random(in: -1...1, using: &g)) * 180 / .pi,
                    lon: Double.random(in: -180...180, using: &g)
                )
            let m = HaversineMetric(lat: c.lat, lon: c.lon)
            let radius = pow(10, Double.random(in: 0...7.3, using: &g))
            guard let box = m.searchBox(radius: radius) else { continue }
            let (xs, ys) = TestPoints.uniformOnSphere(300, &g)
            // Points on the circle itself: go `radius` along random bearings (spherical destination formula).
            var px = xs
            var py = ys
            let phi = c.lat * .pi / 180
            let delta = radius / R
            for _ in 0..<300 {
                let bearing = Double.random(in: 0..<2 * .pi, using: &g)
                let lat2 = asin(sin(phi) * cos(delta) + cos(phi) * sin(delta) * cos(bearing))
                let dLon = atan2(sin(bearing) * sin(delta) * cos(phi), cos(delta) - sin(phi) * sin(lat2))
                var lon2 = c.lon + dLon * 180 / .pi
                if lon2 > 180 { lon2 -= 360 }
                if lon2 < -180 { lon2 += 360 }
                px.append(lon2)
                py.append(lat2 * 180 / .pi)
            }
            for (x, y) in zip(px, py) where m.distance(x: x, y: y) <= radius {
                if !(x >= box.minX && x <= box.maxX && y >= box.minY && y <= box.maxY) {
                    failures.append("c=\(c) r=\(radius) p=\(x),\(y) box=\(box)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) points outside, e.g. \(failures.prefix(3))")
        let seoul = HaversineMetric(lat: 37.5665, lon: 126.978).searchBox(radius: 1000)!
        #expect(abs((seoul.maxY - seoul.minY) - 2000 / R * 180 / .pi) < 1e-6)
        #expect(seoul.maxX - seoul.minX < 0.03)
        #expect(HaversineMetric(lat: 0, lon: 0).searchBox(radius: 20_037_508) == nil)
    }

    /// The bounds are tight, not merely sound: they reach the true closest and farthest points,
    /// including a farthest point in the middle of an edge (so corners alone would be wrong).
    @Test func boundsAreTight() {
        let equator = HaversineMetric(lat: 0, lon: 0)
        // Closest point on the west edge at the centre's latitude.
        let lb = equator.lowerBound(minX: 10, minY: -5, maxX: 20, maxY: 5)
        #expect(abs(lb - R * 10 * .pi / 180) < 2)
        // Inside the box: 0.
        #expect(equator.lowerBound(minX: -1, minY: -1, maxX: 1, maxY: 1) == 0)
        // Straight north of the box through the longitude span: the latitude gap.
        let north = HaversineMetric(lat: 50, lon: 15)
        #expect(abs(north.lowerBound(minX: 10, minY: -5, maxX: 20, maxY: 5) - R * 45 * .pi / 180) < 2)
        // Closest point of a meridian edge is poleward of the centre's latitude (the great circle bulges).
        let high = HaversineMetric(lat: 60, lon: 0)
        let vertex = atan(tan(60 * Double.pi / 180) / cos(30 * Double.pi / 180)) * 180 / .pi
        let exact = Haversine.distance(lat1: 60, lon1: 0, lat2: vertex, lon2: 30)
        #expect(vertex > 60 && vertex < 70)
        #expect(abs(high.lowerBound(minX: 30, minY: 50, maxX: 40, maxY: 70) - exact) < 2)
        #expect(
            high.lowerBound(minX: 30, minY: 50, maxX: 40, maxY: 70)
                < Haversine.distance(lat1: 60, lon1: 0, lat2: 60, lon2: 30))
        // Across the antimeridian, the short way round: 179.5 to −180 (= 180) is half a degree.
        let east = HaversineMetric(lat: 0, lon: 179.5)
        #expect(abs(east.lowerBound(minX: -180, minY: -1, maxX: -179.5, maxY: 1) - R * 0.5 * .pi / 180) < 2)
        #expect(abs(east.lowerBound(minX: -179, minY: -1, maxX: -170, maxY: 1) - R * 1.5 * .pi / 180) < 2)
        #expect(HaversineMetric(lat: 0, lon: 180).lowerBound(minX: -180, minY: -1, maxX: -179, maxY: 1) < 2)
        // Farthest point in the middle of an edge: from (80, 10), the box lon −180…−160, lat 70…75 holds
        // (70, −170) on the far side of the pole, 30° away; its corners, 170° of longitude away, are nearer.
        let polar = HaversineMetric(lat: 80, lon: 10)
        let far = Haversine.distance(lat1: 80, lon1: 10, lat2: 70, lon2: -170)
        let corner = Haversine.distance(lat1: 80, lon1: 10, lat2: 70, lon2: -160)
        let ub = polar.upperBound(minX: -180, minY: 70, maxX: -160, maxY: 75)
        #expect(abs(far - R * 30 * .pi / 180) < 1e-6)
        #expect(corner < far - 1000)
        #expect(ub >= far && ub < far + 2)
        // Antipodal points are found: the distance is half the circumference, not NaN.
        #expect(
            abs(
                Haversine.distance(
                    lat1: 61.861267981629595, lon1: -61.34952836683753,
                    lat2: -61.861267981629595, lon2: 118.65047163316247) - .pi * R) < 1)
        // The whole Earth: half the circumference.
        #expect(abs(equator.upperBound(minX: -180, minY: -90, maxX: 180, maxY: 90) - .pi * R) < 2)
    }
}
