import Foundation

/// Great-circle distance from one centre (the `haversine` model) with box bounds for `PackedRTree`.
///
/// `distance` is `Haversine.distance` itself, so the index answers exactly what a brute-force scan
/// with `Haversine.distance` answers. Boxes are (minLon, minLat, maxLon, maxLat) in degrees with
/// minLon ≤ maxLon inside −180…180 (tree boxes never wrap); the centre may sit anywhere, including
/// near ±180, and longitude gaps are measured the short way round.
///
/// Bounds work in haversine space, h = hav(d/R) = sin²(d/2R), where
/// h = hav(Δφ) + cos φ₁ cos φ₂ hav(Δλ) (Sinnott 1984) and hav(π − θ) = 1 − hav(θ).
/// - Lower bound: the distance to the box's closest point (mourner's geokdbush `boxDist`,
///   github.com/mourner/geokdbush, also used by geoflatbush). Distance grows with |Δλ| at any fixed
///   latitude, so the closest point lies on the meridian of the box nearest in longitude (or, when the
///   centre's longitude is inside the span, straight north or south of it). Along that half meridian,
///   at longitude gap Δλ, the distance has a single minimum at the latitude where the centre projects
///   onto the meridian's plane, tan ψ = tan φ / cos Δλ (for cos Δλ > 0; otherwise the projection is on
///   the opposite half and the minimum is at a pole); if that latitude is outside the box, the minimum
///   is at the nearer latitude edge. Exact in real arithmetic.
/// - Upper bound: the farthest point of a box from the centre is its closest point to the antipode,
///   since d(c, p) + d(−c, p) = πR for every p; so h_max = 1 − h_min(antipode). Exact too; the four
///   corners would not do (an edge along a parallel bulges away from the centre).
/// - Rounding: `Haversine.distance` and the bounds are different formulas, so their rounding differs.
///   Every term of h is at most 1 and carries a few ulps of error, or about 1e-16 absolute from cos of
///   a latitude rounded to radians near the poles, so h errs by at most ~1e-15; the bounds move h by
///   `hSlack` = 1e-14 (10× that) before converting to metres, which also covers the √ amplification near
///   0 and near the antipode (up to ~0.1 m there); then the metres get a relative 1e-12 (1000× the few
///   ulps of sin/atan2/√). Cost: lower bounds up to about 1.3 m short near 0 (2R·√1e-14), a micrometre
///   per kilometre elsewhere: nothing for pruning, and the bounds stay sound for exact counts and ties.
public struct HaversineMetric: SpatialMetric, Sendable {
    public let lat: Double
    public let lon: Double
    @usableFromInline let phi: Double
    @usableFromInline let cosPhi: Double
    @usableFromInline let tanPhi: Double
    /// Longitude of the antipode, in −180…180.
    @usableFromInline let antipodeLon: Double

    /// Absolute slack in haversine space; see the type's documentation.
    @usableFromInline static let hSlack = 1e-14
    /// Relative slack in metres; see the type's documentation.
    @usableFromInline static let relativeSlack = 1e-12

    /// A centre at `lat` (−90…90) and `lon` (−180…180) in degrees.
    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
        phi = lat * .pi / 180
        cosPhi = cos(phi)
        tanPhi = tan(phi)
        antipodeLon = lon > 0 ? lon - 180 : lon + 180
    }

    @inlinable
    public func distance(x: Double, y: Double) -> Double {
        Haversine.distance(lat1: lat, lon1: lon, lat2: y, lon2: x)
    }

    @inlinable
    public func lowerBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
        let h = Self.closestHav(phi: phi, cosPhi: cosPhi, tanPhi: tanPhi, lon: lon,
                                minLon: minX, minLat: minY, maxLon: maxX, maxLat: maxY)
        return Self.metres(h - Self.hSlack) * (1 - Self.relativeSlack)
    }

    @inlinable
    public func upperBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
        let h = 1 - Self.closestHav(phi: -phi, cosPhi: cosPhi, tanPhi: -tanPhi, lon: antipodeLon,
                                    minLon: minX, minLat: minY, maxLon: maxX, maxLat: maxY)
        return Self.metres(h + Self.hSlack) * (1 + Self.relativeSlack)
    }

    /// Great-circle distance in metres for haversine value `h` (clamped to 0…1), in the same
    /// `2·atan2(√h, √(1−h))` form as `Haversine.distance`.
    @inlinable
    static func metres(_ h: Double) -> Double {
        let h = min(max(h, 0), 1)
        return 2 * Haversine.earthRadius * atan2(h.squareRoot(), (1 - h).squareRoot())
    }

    @inlinable
    static func hav(_ theta: Double) -> Double {
        let s = sin(theta * 0.5)
        return s * s
    }

    /// Haversine of the distance from (phi radians, lon degrees) to the closest point of the box.
    @inlinable
    static func closestHav(
        phi: Double, cosPhi: Double, tanPhi: Double, lon: Double,
        minLon: Double, minLat: Double, maxLon: Double, maxLat: Double
    ) -> Double {
        let rad = Double.pi / 180
        let lo = minLat * rad, hi = maxLat * rad
        // Longitude gap to the span, the short way round: east to its west edge or west to its east edge.
        var east = minLon - lon, west = lon - maxLon
        if east < 0 { east += 360 }
        if west < 0 { west += 360 }
        if lon >= minLon && lon <= maxLon || min(east, west) == 0 {
            return phi < lo ? hav(lo - phi) : phi > hi ? hav(phi - hi) : 0
        }
        let havDLon = hav(min(east, west) * rad)
        let cosDLon = 1 - 2 * havDLon
        func at(_ psi: Double) -> Double { hav(psi - phi) + cosPhi * cos(psi) * havDLon }
        let vertex = cosDLon > 0 ? atan(tanPhi / cosDLon) : (phi > 0 ? Double.pi / 2 : -Double.pi / 2)
        if vertex > lo && vertex < hi { return at(vertex) }
        return min(at(lo), at(hi))
    }
}
