/// Polygon geometry for a tile: Douglas–Peucker simplification, Sutherland–Hodgman clipping to the
/// buffered tile, rounding to integer pixels and the winding the specification asks for.
public enum TileClip {
    /// The ring simplified by Douglas–Peucker: every vertex dropped lies within `tolerance` of the
    /// kept line. `ring` is closed (first == last); so is the answer (at least its first, farthest and
    /// last points, or the ring itself when it has fewer than 4).
    public static func simplify(_ ring: [SIMD2<Double>], tolerance: Double) -> [SIMD2<Double>] {
        let n = ring.count
        guard n > 4, tolerance > 0 else { return ring }
        var keep = [Bool](repeating: false, count: n)
        keep[0] = true
        keep[n - 1] = true
        // A closed ring's base segment is a point: split at the vertex farthest from it first.
        var far = 0
        var farDistance = -1.0
        for i in 1..<(n - 1) {
            let d = lengthSquared(ring[i] - ring[0])
            if d > farDistance { (far, farDistance) = (i, d) }
        }
        keep[far] = true
        let tolerance2 = tolerance * tolerance
        var stack = [(0, far), (far, n - 1)]
        while let (a, b) = stack.popLast() {
            guard b - a > 1 else { continue }
            var best = -1
            var bestDistance = tolerance2
            for i in (a + 1)..<b {
                let d = segmentDistanceSquared(ring[i], ring[a], ring[b])
                if d > bestDistance { (best, bestDistance) = (i, d) }
            }
            if best >= 0 {
                keep[best] = true
                stack.append((a, best))
                stack.append((best, b))
            }
        }
        var out: [SIMD2<Double>] = []
        for i in 0..<n where keep[i] { out.append(ring[i]) }
        return out
    }

    @inline(__always) static func lengthSquared(_ v: SIMD2<Double>) -> Double { v.x * v.x + v.y * v.y }

    @inline(__always) static func segmentDistanceSquared(_ p: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>)
        -> Double
    {
        let ab = b - a
        let l = lengthSquared(ab)
        guard l > 0 else { return lengthSquared(p - a) }
        let t = min(1, max(0, ((p - a) * ab).sum() / l))
        return lengthSquared(p - (a + t * ab))
    }

    /// The ring (closed or open) clipped to the square `min…max` on both axes (Sutherland–Hodgman): an
    /// open ring, empty when nothing of it is inside. A concave ring may come back with edges along
    /// the square's sides joining its parts, which fill nothing.
    public static func clip(_ ring: [SIMD2<Double>], min lo: Double, max hi: Double) -> [SIMD2<Double>] {
        var points = ring
        if points.count > 1, points.first == points.last { points.removeLast() }
        // Each of the four edges: inside test and the crossing point on it.
        for edge in 0..<4 {
            guard !points.isEmpty else { break }
            let axis = edge / 2
            let bound = edge % 2 == 0 ? lo : hi
            @inline(__always) func inside(_ p: SIMD2<Double>) -> Bool {
                edge % 2 == 0 ? p[axis] >= bound : p[axis] <= bound
            }
            var out: [SIMD2<Double>] = []
            out.reserveCapacity(points.count + 4)
            var previous = points[points.count - 1]
            var previousInside = inside(previous)
            for p in points {
                let pInside = inside(p)
                if pInside != previousInside {
                    let t = (bound - previous[axis]) / (p[axis] - previous[axis])
                    var crossing = previous + t * (p - previous)
                    crossing[axis] = bound
                    out.append(crossing)
                }
                if pInside { out.append(p) }
                previous = p
                previousInside = pInside
            }
            points = out
        }
        return points
    }

    /// Twice the ring's signed area by the surveyor's formula (open or closed ring).
    public static func doubleArea(_ ring: [SIMD2<Int32>]) -> Int64 {
        guard ring.count >= 3 else { return 0 }
        var sum: Int64 = 0
        var previous = ring[ring.count - 1]
        for p in ring {
            sum += Int64(previous.x) * Int64(p.y) - Int64(p.x) * Int64(previous.y)
            previous = p
        }
        return sum
    }

    /// Polygons (each a shell then its holes, rings closed or open, in tile pixels unrounded) as a
    /// tile's polygon geometry: each ring clipped to the tile and its `buffer`, rounded, repeated points
    /// dropped, rings of no area dropped (a hole with them, a polygon whose shell went), shells wound
    /// to a positive area and holes to a negative one. Nil when nothing is left.
    public static func polygon(_ polygons: [[[SIMD2<Double>]]], extent: Int, buffer: Int) -> TileGeometry? {
        let lo = Double(-buffer)
        let hi = Double(extent + buffer)
        var rings: [[SIMD2<Int32>]] = []
        for polygon in polygons {
            for (i, ring) in polygon.enumerated() {
                var r = rounded(clip(ring, min: lo, max: hi))
                let area = doubleArea(r)
                if area == 0 || r.count < 3 {
                    if i == 0 { break }  // no shell: its holes go too
                    continue
                }
                if (i == 0) != (area > 0) { r.reverse() }
                rings.append(r)
            }
        }
        return rings.isEmpty ? nil : .polygon(rings)
    }

    /// Rounded to integer pixels, consecutive repeats and the closing point dropped.
    static func rounded(_ ring: [SIMD2<Double>]) -> [SIMD2<Int32>] {
        var out: [SIMD2<Int32>] = []
        out.reserveCapacity(ring.count)
        for p in ring {
            let q = SIMD2(Int32(p.x.rounded()), Int32(p.y.rounded()))
            if out.last != q { out.append(q) }
        }
        while out.count > 1, out.first == out.last { out.removeLast() }
        return out
    }
}
