import Foundation

/// Great-circle distance on a sphere (the `haversine` distance model, Nearby's default).
///
/// Formula: R. W. Sinnott, "Virtues of the Haversine", Sky and Telescope 68(2), 1984, p. 159, in the
/// `2·atan2(√a, √(1−a))` form, which stays accurate for antipodal points where `asin` loses digits.
/// Radius: the IUGG mean Earth radius R₁ = 6,371,008.8 m (Moritz, "Geodetic Reference System 1980").
/// Accuracy against the WGS84 ellipsoid: within about 0.5 % (see ARCHITECTURE.md, "Distance models").
public enum Haversine {
    /// IUGG mean radius of the Earth, metres.
    public static let earthRadius = 6_371_008.8

    @inlinable
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        distance(lat1: lat1, lon1: lon1, cosLat1: cosLat(lat1), lat2: lat2, lon2: lon2)
    }

    /// The same distance with `cosLat1 = cos(lat1 * (Double.pi / 180))` computed once for many distances
    /// from one point (the index's query centre): bit-identical results, one cosine less per call.
    @inlinable
    public static func distance(lat1: Double, lon1: Double, cosLat1: Double, lat2: Double, lon2: Double) -> Double {
        metres(hav: hav(lat1: lat1, lon1: lon1, cosLat1: cosLat1, lat2: lat2, lon2: lon2))
    }

    /// The first half of `distance`: a = hav(d/R), the haversine of the central angle, clamped at 1.
    /// `metres(hav: a)` of it is `distance` bit for bit, so a caller may compare `a` first and convert
    /// only the values it keeps (`HaversineCircle.distance`).
    @inlinable
    public static func hav(lat1: Double, lon1: Double, cosLat1: Double, lat2: Double, lon2: Double) -> Double {
        hav(lat1: lat1, lon1: lon1, cosLat1: cosLat1, lat2: lat2, lon2: lon2, cosLat2: cosLat(lat2))
    }

    /// `hav` with both cosines given (`cosLat` of each latitude): bit-identical, no cosine computed. An
    /// index that stores its points' cosines (`PackedRTree`) measures each point with two sines and an
    /// arc tangent.
    @inlinable
    public static func hav(lat1: Double, lon1: Double, cosLat1: Double, lat2: Double, lon2: Double, cosLat2: Double)
        -> Double
    {
        let rad = Double.pi / 180
        let dLat = (lat2 - lat1) * rad
        let dLon = (lon2 - lon1) * rad
        let s1 = sin(dLat * 0.5)
        let s2 = sin(dLon * 0.5)
        // Rounding can push a past 1 for (nearly) antipodal points, which would make √(1−a) NaN.
        return min(1, s1 * s1 + cosLat1 * cosLat2 * s2 * s2)
    }

    /// The cosine of a latitude in degrees, as every haversine distance here computes it.
    @inlinable
    public static func cosLat(_ lat: Double) -> Double { cos(lat * (Double.pi / 180)) }

    /// The second half of `distance`: metres for a = hav(d/R) in 0…1.
    @inlinable
    public static func metres(hav a: Double) -> Double {
        2 * earthRadius * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}
