import Foundation

/// Great-circle distance from one centre (the `haversine` model) with box bounds for `PackedRTree`.
///
/// `distance` is `Haversine.distance` itself (with the centre's cosine computed once), so the index answers exactly what a brute-force scan
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
///   is at the nearer latitude edge. Exact in real arithmetic. Trigonometry only where needed: straight
///   north or south of the box it is the meridian arc R·Δφ, and at the interior minimum the distance
///   to the meridian's great circle, sin d = cos φ sin Δλ.
/// - Upper bound: the farthest point of a box from the centre is its closest point to the antipode,
///   since d(c, p) + d(−c, p) = πR for every p; so h_max = 1 − h_min(antipode). Exact too; the four
///   corners would not do (an edge along a parallel bulges away from the centre).
/// - Rounding: `Haversine.distance` and the bounds are different formulas, so their rounding differs.
///   Every term of h is at most 1 and carries a few ulps of error, or about 1e-16 absolute from cos of
///   a latitude rounded to radians near the poles, so h errs by at most ~1e-15; the bounds move h by
///   `hSlack` = 1e-14 (10× that) before converting to metres, which also covers the √ amplification near
///   0 and near the antipode (up to ~0.1 m there); then the metres get a relative 1e-12 (1000× the few
///   ulps of sin/atan2/√); the meridian-arc case gets the relative 1e-12 and 1 µm (1000× the ~1e-9 m
///   that rounding latitudes to radians can move a distance). Cost: lower bounds up to about 1.3 m short near 0 (2R·√1e-14), a micrometre
///   per kilometre elsewhere: nothing for pruning, and the bounds stay sound for exact counts and ties.
public struct HaversineMetric: SpatialMetric, Sendable {
    public let lat: Double
    public let lon: Double
    @usableFromInline let phi: Double
    @usableFromInline let cosPhi: Double
    @usableFromInline let sinPhi: Double
    @usableFromInline let tanPhi: Double
    /// Longitude of the antipode, in −180…180.
    @usableFromInline let antipodeLon: Double

    /// Absolute slack in haversine space; see the type's documentation.
    @usableFromInline static let hSlack = 1e-14
    /// Relative slack in metres; see the type's documentation.
    @usableFromInline static let relativeSlack = 1e-12
    /// Absolute slack of the meridian-arc lower bound, metres: 1000× the ~1e-9 m that rounding
    /// latitudes to radians can move a distance.
    @usableFromInline static let metreSlack = 1e-6

    /// A centre at `lat` (−90…90) and `lon` (−180…180) in degrees.
    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
        phi = lat * (Double.pi / 180)
        cosPhi = cos(phi)  // exactly Haversine's cos(lat1 * rad), so distances stay bit-identical
        sinPhi = sin(phi)
        // One call less per query than tan: the bounds only place their vertex with it (see `closestHav`).
        tanPhi = sinPhi / cosPhi
        antipodeLon = lon > 0 ? lon - 180 : lon + 180
    }

    /// Box tests in haversine space against thresholds made once per query (`HaversineCircle`).
    @inlinable
    public func circle(radius: Double, searchBox: (minX: Double, minY: Double, maxX: Double, maxY: Double)?)
        -> HaversineCircle
    {
        HaversineCircle(self, radius: radius, searchBox: searchBox)
    }

    @inlinable
    public func distance(x: Double, y: Double) -> Double { distance(x: x, y: y, cosY: Haversine.cosLat(y)) }

    @inlinable
    public func distance(x: Double, y: Double, cosY: Double) -> Double {
        Haversine.metres(hav: Haversine.hav(lat1: lat, lon1: lon, cosLat1: cosPhi, lat2: y, lon2: x, cosLat2: cosY))
    }

    @inlinable
    public func lowerBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
        let gap = Self.longitudeGap(lon, minLon: minX, maxLon: maxX)
        if gap == 0 {
            // Straight north or south of the box: the meridian arc, no trigonometry needed.
            let rad = Double.pi / 180
            let dPhi = max(minY * rad - phi, phi - maxY * rad, 0)
            return max(0, Haversine.earthRadius * dPhi * (1 - Self.relativeSlack) - Self.metreSlack)
        }
        let h = Self.closestHav(phi: phi, cosPhi: cosPhi, tanPhi: tanPhi, gap: gap, minLat: minY, maxLat: maxY)
        return Self.metres(h - Self.hSlack) * (1 - Self.relativeSlack)
    }

    @inlinable
    public func upperBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
        let gap = Self.longitudeGap(antipodeLon, minLon: minX, maxLon: maxX)
        let h = 1 - Self.closestHav(phi: -phi, cosPhi: cosPhi, tanPhi: -tanPhi, gap: gap, minLat: minY, maxLat: maxY)
        return Self.metres(h + Self.hSlack) * (1 + Self.relativeSlack)
    }

    /// The latitude band φ ± r/R and, when the circle holds no pole and does not cross ±180, the
    /// longitude span λ ± asin(sin(r/R) / cos φ) (the meridians tangent to the circle; J. P. Matuschek,
    /// "Finding points within a distance of a latitude/longitude", 2010). Widened by 1e-9 relative and
    /// 1e-9° (0.1 mm), far more than `Haversine.distance`'s rounding away from the antipode; circles
    /// that reach it hold a pole and keep every longitude.
    public func searchBox(radius: Double) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        let delta = radius / Haversine.earthRadius * (1 + 1e-9)
        guard delta < .pi / 2 else { return nil }
        let deg = 180 / Double.pi
        let slack = 1e-9
        let minLat = lat - delta * deg - slack
        let maxLat = lat + delta * deg + slack
        guard minLat > -90 && maxLat < 90 else { return (-180, max(-90, minLat), 180, min(90, maxLat)) }
        let dLon = asinAbove(delta) * deg * (1 + 1e-9) + slack
        guard lon - dLon > -180 && lon + dLon < 180 else { return (-180, minLat, 180, maxLat) }
        return (lon - dLon, minLat, lon + dLon, maxLat)
    }

    /// A value no less than asin(sin δ / cos φ): with x = δ / cos φ ≥ sin δ / cos φ, for x < 1/4 the series
    /// bound asin x ≤ x + x³ / (6(1 − x²)) (no coefficient of asin's series past x exceeds 1/6), so a
    /// small circle's box costs no trigonometric call; else asin(min(1, sin δ / cos φ)) itself.
    func asinAbove(_ delta: Double) -> Double {
        let x = delta / cosPhi
        guard x < 0.25 else { return asin(min(1, sin(delta) / cosPhi)) }
        let x2 = x * x
        return x + x * x2 / (6 * (1 - x2))
    }

    /// Degrees from `lon` to the span minLon…maxLon the short way round (east to its west edge or
    /// west to its east edge), 0 when inside; at most 180.
    @inlinable
    static func longitudeGap(_ lon: Double, minLon: Double, maxLon: Double) -> Double {
        if lon >= minLon && lon <= maxLon { return 0 }
        var east = minLon - lon
        var west = lon - maxLon
        if east < 0 { east += 360 }
        if west < 0 { west += 360 }
        return min(east, west)
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

    /// Haversine of the distance from latitude `phi` (radians) to the closest point of the box
    /// minLat…maxLat (degrees) whose nearer meridian edge is `gap` degrees of longitude away.
    @inlinable
    static func closestHav(
        phi: Double, cosPhi: Double, tanPhi: Double, gap: Double, minLat: Double, maxLat: Double
    ) -> Double {
        let rad = Double.pi / 180
        let lo = minLat * rad
        let hi = maxLat * rad
        if gap == 0 { return phi < lo ? hav(lo - phi) : phi > hi ? hav(phi - hi) : 0 }
        let sinGap = sin(gap * rad)
        let cosGap = cos(gap * rad)
        // hav(gap) without cancellation on either side of 90°.
        let havGap = cosGap > 0 ? sinGap * sinGap / (2 * (1 + cosGap)) : (1 - cosGap) / 2
        func at(_ psi: Double) -> Double { hav(psi - phi) + cosPhi * cos(psi) * havGap }
        guard cosGap > 0 else { return min(at(lo), at(hi)) }
        let vertex = atan(tanPhi / cosGap)
        if vertex >= hi { return at(hi) }
        if vertex <= lo { return at(lo) }
        // At the vertex the distance is that to the meridian's great circle: sin d = cos φ · sin gap,
        // and hav d = sin²d / (2(1 + cos d)).
        let sinD = cosPhi * sinGap
        return sinD * sinD / (2 * (1 + (1 - sinD * sinD).squareRoot()))
    }
}

/// One circle of a `HaversineMetric`, tested against boxes and points in haversine space,
/// h = hav(d/R), with no trigonometry per box and none for most points outside the circle: the
/// tree's box tests and the points a leaf holds beyond the circle would otherwise be most of a small
/// query's trigonometric calls (`lowerBound` and `upperBound` together make up to eleven, with two arc
/// tangents).
///
/// Bounds: for a point p, h(p) = hav(Δφ) + cos φ₁ cos φ₂ hav(Δλ), and each factor is bounded on its
/// own, by polynomials: x²/4 · (1 − x²/12) ≤ hav(x) ≤ x²/4 for 0 ≤ x ≤ π (from y − y³/6 ≤ sin y ≤ y),
/// taken at the least and the greatest latitude gap and longitude gap the short way round
/// (hav(Δλ) = hav(2π − Δλ)); and, with Δ the greatest latitude gap from the centre,
/// cos φ₁ (1 − Δ²/2) − |sin φ₁| Δ ≤ cos φ₂ ≤ cos φ₁ + |sin φ₁| Δ (from cos(φ₁ + δ) = cos φ₁ cos δ −
/// sin φ₁ sin δ), and 0 ≤ cos φ₂ ≤ 1. Sound in real arithmetic; looser than the exact bounds by terms
/// in the gaps (x²/12, and about 2 tan φ₁ Δ of the longitude term: 0.05 % for a box 2 km from a centre
/// at 37°), which only leaves boxes that nearly touch the circle partial instead of outside or inside.
///
/// Thresholds: a box or point is outside when its least h, less `HaversineMetric.hSlack`, exceeds
/// hav(θ(1 + 1e-9)) with θ = r/R; a box is inside when its greatest h, plus `hSlack`, is at most
/// hav(θ(1 − 1e-9)). `hSlack` (1e-14) is ten times the rounding of these few products and sums of
/// values below 2.5 and of the `a` that `Haversine.distance` computes (both below 1e-15, see
/// `HaversineMetric`); the relative 1e-9 on θ is a million times the few ulps by which sin, the arc
/// tangent of `Haversine.distance` and its last products can move an angle for θ ≤ 3. So a point of
/// an outside box measures more than r, and one of an inside box at most r, bit for bit as
/// `Haversine.distance` rounds. Below θ = 0.01 (64 km) the thresholds are the polynomial bounds of
/// hav at those angles instead (the outside one above, the inside one below hav), which costs no sine
/// and only leaves a box within about 1e-5 of the threshold partial. Past θ = 3 (19,113 km) hav flattens towards its maximum and the
/// circle uses the metre bounds, which hold everywhere.
///
/// Small plain circles (θ < 0.01 and a search box that holds no pole and does not cross ±180, most
/// queries) fold those bounds into one quadratic form in degrees: four products and no branch before
/// the comparison, where the bounds above take a dozen products and two branches. Inside the search
/// box the latitude gap is at most X_φ and the longitude gap at most X_λ (its half extents, in
/// radians), so hav(x) ≥ x²/4 · (1 − X²/12) for each gap and cos φ₂ ≥ cosBelow(X_φ):
/// h ≥ A·Δφ² + B·Δλ² (gaps in degrees), A = (π/180)²/4 · (1 − X_φ²/12) and
/// B = (π/180)²/4 · cos φ₁ · cosBelow(X_φ) · (1 − X_λ²/12). Outside the search box nothing is inside the
/// circle, so there any answer of "outside" is right, whatever the form says. Looser than the bounds above
/// by terms in X (about tan φ₁ · X_φ of the longitude term: 0.02 % for 2 km at 37°): only points within
/// that of the circle's edge are measured for nothing.
public struct HaversineCircle: CircleTest {
    @usableFromInline let metric: HaversineMetric
    @usableFromInline let radius: Double
    @usableFromInline let inHavSpace: Bool
    /// hav(θ(1 + 1e-9)) and hav(θ(1 − 1e-9)).
    @usableFromInline let outsideHav: Double
    @usableFromInline let insideHav: Double
    /// |sin φ₁|, for the bounds of cos φ₂.
    @usableFromInline let sinPhi: Double
    /// The quadratic form of a small plain circle (see the type's documentation): A, B, and
    /// `outsideHav` + `hSlack`; `isFlat` false for other circles.
    @usableFromInline let isFlat: Bool
    @usableFromInline let flatA: Double, flatB: Double, flatOutside: Double

    @inlinable
    init(
        _ metric: HaversineMetric, radius: Double, searchBox: (minX: Double, minY: Double, maxX: Double, maxY: Double)?
    ) {
        self.metric = metric
        self.radius = radius
        let theta = radius / Haversine.earthRadius
        inHavSpace = theta * (1 + 1e-9) <= 3
        if theta < 0.01 {
            // x²/4 · (1 − x²/12) ≤ hav x ≤ x²/4: the outside threshold a little higher and the inside one a
            // little lower than hav itself (relatively θ²/12 < 1e-5), so both stay sound, without a sine.
            let far = theta * (1 + 1e-9)
            let near = theta * (1 - 1e-9)
            outsideHav = far * far * 0.25
            insideHav = Self.havBelow(near)
        } else {
            outsideHav = HaversineMetric.hav(theta * (1 + 1e-9))
            insideHav = HaversineMetric.hav(theta * (1 - 1e-9))
        }
        sinPhi = abs(metric.sinPhi)
        flatOutside = outsideHav + HaversineMetric.hSlack
        if theta * (1 + 1e-9) < 0.01, let box = searchBox, box.maxX - box.minX < 360 {
            let rad = Double.pi / 180
            let xPhi = max(metric.lat - box.minY, box.maxY - metric.lat) * rad
            let xLambda = max(metric.lon - box.minX, box.maxX - metric.lon) * rad
            let quarter = rad * rad * 0.25
            isFlat = true
            flatA = quarter * (1 - xPhi * xPhi * (1.0 / 12))
            flatB =
                quarter * metric.cosPhi * Self.cosBelow(xPhi, cosPhi: metric.cosPhi, sinPhi: sinPhi)
                * (1 - xLambda * xLambda * (1.0 / 12))
        } else {
            isFlat = false
            flatA = 0
            flatB = 0
        }
    }

    /// x²/4 · (1 − x²/12) ≤ hav(x), for 0 ≤ x ≤ π. The division is a product with 1/12 rounded (an ulp of
    /// one term, inside `hSlack`): it runs on every point a leaf holds in the search box, twice, and a
    /// division is several times a product's latency.
    @inlinable static func havBelow(_ x: Double) -> Double {
        let x2 = x * x
        return x2 * 0.25 * (1 - x2 * (1.0 / 12))
    }

    /// The least cos φ₂ over latitudes at most `gap` radians from the centre's.
    @inlinable func cosBelow(_ gap: Double) -> Double { Self.cosBelow(gap, cosPhi: metric.cosPhi, sinPhi: sinPhi) }

    @inlinable static func cosBelow(_ gap: Double, cosPhi: Double, sinPhi: Double) -> Double {
        max(0, cosPhi * (1 - gap * gap * 0.5) - sinPhi * gap)
    }

    @inlinable
    public func isOutside(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Bool {
        if isFlat {
            let m = metric
            let dy = max(max(0, minY - m.lat), m.lat - maxY)
            let dx = max(max(0, minX - m.lon), m.lon - maxX)
            return flatA * dy * dy + flatB * dx * dx > flatOutside
        }
        guard inHavSpace else { return metric.lowerBound(minX: minX, minY: minY, maxX: maxX, maxY: maxY) > radius }
        let rad = Double.pi / 180
        let phi = metric.phi
        let lo = minY * rad
        let hi = maxY * rad
        let latGap = phi < lo ? lo - phi : phi > hi ? phi - hi : 0
        var h = Self.havBelow(latGap)
        if h - HaversineMetric.hSlack > outsideHav { return true }
        let gap = HaversineMetric.longitudeGap(metric.lon, minLon: minX, maxLon: maxX)
        guard gap > 0 else { return false }
        h += metric.cosPhi * cosBelow(max(abs(lo - phi), abs(hi - phi))) * Self.havBelow(gap * rad)
        return h - HaversineMetric.hSlack > outsideHav
    }

    @inlinable
    public func isInside(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Bool {
        guard inHavSpace else { return metric.upperBound(minX: minX, minY: minY, maxX: maxX, maxY: maxY) <= radius }
        let rad = Double.pi / 180
        let phi = metric.phi
        let latGap = max(abs(minY * rad - phi), abs(maxY * rad - phi))
        var h = latGap * latGap * 0.25
        if h + HaversineMetric.hSlack > insideHav { return false }
        let far = Self.farthestLongitudeGap(metric.lon, minLon: minX, maxLon: maxX) * rad
        h += metric.cosPhi * min(1, metric.cosPhi + sinPhi * latGap) * far * far * 0.25
        return h + HaversineMetric.hSlack <= insideHav
    }

    /// `distance` for points within the radius; infinity for a point the bounds above (or, nearer,
    /// its a = hav(d/R) itself) put beyond hav(θ(1 + 1e-9)), without the arc tangent and roots.
    @inlinable
    public func distance(x: Double, y: Double) -> Double {
        measure(x: x, y: y, cosY: { Haversine.cosLat(y) })
    }

    @inlinable
    public func distance(x: Double, y: Double, cosY: Double) -> Double {
        measure(x: x, y: y, cosY: { cosY })
    }

    /// `distance`, asking for the point's cosine only once the bounds have not rejected it.
    @inlinable @inline(__always)
    func measure(x: Double, y: Double, cosY: () -> Double) -> Double {
        let m = metric
        if isFlat {
            let dy = y - m.lat
            let dx = x - m.lon
            if flatA * dy * dy + flatB * dx * dx > flatOutside { return .infinity }
        } else if inHavSpace {
            let rad = Double.pi / 180
            let dLat = abs(y - m.lat) * rad
            var dLon = abs(x - m.lon)
            if dLon > 180 { dLon = 360 - dLon }
            let below = Self.havBelow(dLat) + m.cosPhi * cosBelow(dLat) * Self.havBelow(dLon * rad)
            if below - HaversineMetric.hSlack > outsideHav { return .infinity }
        }
        let a = Haversine.hav(lat1: m.lat, lon1: m.lon, cosLat1: m.cosPhi, lat2: y, lon2: x, cosLat2: cosY())
        return inHavSpace && a > outsideHav ? .infinity : Haversine.metres(hav: a)
    }

    /// Degrees from `lon` to the farthest meridian of minLon…maxLon the short way round: 180 when
    /// the span holds the antipode's meridian (either of ±180 for a centre on 0), else the farther edge.
    @inlinable
    static func farthestLongitudeGap(_ lon: Double, minLon: Double, maxLon: Double) -> Double {
        let west = lon - 180
        let east = lon + 180
        if (west >= minLon && west <= maxLon) || (east >= minLon && east <= maxLon) { return 180 }
        func gap(_ x: Double) -> Double {
            let d = abs(x - lon)
            return d > 180 ? 360 - d : d
        }
        return max(gap(minLon), gap(maxLon))
    }
}
