import Foundation

/// A region's boundary as a GeoJSON Feature (RFC 7946: longitude first, shells counter-clockwise,
/// holes clockwise) with a MultiPolygon geometry. A 읍면동 or 리 is its own polygon; a 시군구 or 시도
/// is dissolved from its towns: arcs shared by two of its towns are inner borders and drop out, the
/// rest are chained into rings (the arcs are shared exactly, so no slivers remain).
extension RegionIndex {
    public func geoJSON(_ region: Region) -> String {
        let polygons = self.polygons(region)
        var out =
            "{\"type\":\"Feature\",\"properties\":{\"code\":\"\(region.code)\",\"name\":\(Self.quoted(region.name)),"
        out += "\"fullName\":\(Self.quoted(region.fullName)),\"level\":\"\(region.level)\"},"
        out += "\"geometry\":{\"type\":\"MultiPolygon\",\"coordinates\":["
        out += polygons.map { polygon in
            "["
                + polygon.map { ring in
                    "[" + ring.map { "[\(Self.degrees($0.x)),\(Self.degrees($0.y))]" }.joined(separator: ",") + "]"
                }.joined(separator: ",") + "]"
        }.joined(separator: ",")
        out += "]}}"
        return out
    }

    /// The region's boundary as polygons, each its shell then its holes, every ring closed, (lon, lat)
    /// degrees: shells counter-clockwise, holes clockwise. A 시군구 or 시도 is dissolved from its towns.
    public func polygons(_ region: Region) -> [[[SIMD2<Double>]]] {
        let faces = shapeFaces(region)
        return region.level == .emd || region.level == .ri ? faces.flatMap { rings(face: $0) } : dissolve(faces)
    }

    /// Polygons (shell, holes…) of the union of faces that share arcs exactly.
    private func dissolve(_ faces: [Int]) -> [[[SIMD2<Double>]]] {
        let allRings = faces.flatMap { self.rings(face: $0).flatMap { $0 } }
        // Directed edges, minus the pairs a→b, b→a that two faces share.
        struct Key: Hashable { var a: SIMD2<Double>, b: SIMD2<Double> }
        var count: [Key: Int] = [:]
        for ring in allRings {
            for i in 0..<(ring.count - 1) where ring[i] != ring[i + 1] {
                let key = Key(a: ring[i], b: ring[i + 1])
                let back = Key(a: ring[i + 1], b: ring[i])
                if let n = count[back], n > 0 { count[back] = n - 1 } else { count[key, default: 0] += 1 }
            }
        }
        var next: [SIMD2<Double>: [SIMD2<Double>]] = [:]
        for (key, n) in count where n > 0 { for _ in 0..<n { next[key.a, default: []].append(key.b) } }
        // In a fixed order (the dictionary's is per process), so that the rings, and the bytes of the
        // GeoJSON and of vector tiles made from them, are the same in every run.
        for key in next.keys { next[key]!.sort { ($0.x, $0.y) > ($1.x, $1.y) } }
        var outRings: [[SIMD2<Double>]] = []
        for start in next.keys.sorted(by: { ($0.x, $0.y) < ($1.x, $1.y) }) {
            while let first = next[start]?.popLast() {
                var ring = [start, first]
                var at = first
                while at != start, let step = next[at]?.popLast() {
                    ring.append(step)
                    at = step
                }
                if ring.last != start { ring.append(start) }
                if ring.count >= 4 { outRings.append(ring) }
            }
        }
        let shells = outRings.filter { Self.signedArea($0) > 0 }
        var polygons = shells.map { [$0] }
        for hole in outRings where Self.signedArea(hole) <= 0 {
            // The smallest shell around the hole's first vertex.
            var best: Int?
            for (i, shell) in shells.enumerated() where Self.ring(shell, contains: hole[0]) {
                if best == nil || abs(Self.signedArea(shell)) < abs(Self.signedArea(shells[best!])) { best = i }
            }
            if let best { polygons[best].append(hole) }
        }
        return polygons
    }

    private static func signedArea(_ ring: [SIMD2<Double>]) -> Double {
        var sum = 0.0
        for i in 0..<(ring.count - 1) { sum += ring[i].x * ring[i + 1].y - ring[i + 1].x * ring[i].y }
        return sum / 2
    }

    /// Crossing-number test (the ray to +x), for placing holes.
    private static func ring(_ ring: [SIMD2<Double>], contains p: SIMD2<Double>) -> Bool {
        var inside = false
        for i in 0..<(ring.count - 1) {
            let a = ring[i]
            let b = ring[i + 1]
            if (a.y > p.y) != (b.y > p.y), p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y) { inside.toggle() }
        }
        return inside
    }

    /// Degrees with 6 decimals (the file's own resolution), trailing zeros dropped.
    static func degrees(_ value: Double) -> String {
        var text = String(format: "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
