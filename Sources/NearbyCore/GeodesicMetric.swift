import Foundation

/// `SpatialMetric` for the `geodesic` model: exact WGS84 geodesic distances from one centre, with box
/// bounds taken from the spherical (haversine) bounds scaled by proven factors.
///
/// Why the factors hold (docs/distance-models.md, "Geodesic bounds"): map the ellipsoid to the sphere of
/// radius R = 6,371,008.8 m by keeping (geodetic latitude, longitude), the coordinates haversine uses.
/// The ellipsoid's line element is ds² = M(φ)²dφ² + N(φ)²cos²φ dλ² with meridional radius
/// M = a(1−e²)/W³ and prime-vertical radius N = a/W (W² = 1 − e²sin²φ); the sphere's is
/// R²(dφ² + cos²φ dλ²). Since a(1−e²) = M(0) ≤ M(φ) ≤ N(φ) ≤ N(90°) = a/√(1−e²), every curve's
/// ellipsoidal length is between `lowerFactor` = M(0)/R and `upperFactor` = N(90°)/R times its spherical
/// length. Applied to the shortest curve of each surface, the same holds for the distances:
/// lowerFactor·haversine ≤ geodesic ≤ upperFactor·haversine for every pair of points, nearly antipodal ones
/// included (no special case is needed: the bound concerns lengths, not where the antipodes are).
/// For WGS84 the factors are 0.994417 and 1.004487; a random sample of pairs, antipodal ones included,
/// stays inside them (GeodesicMetricTests). A relative 1e-12 and 1 µm of slack cover rounding.
public struct GeodesicMetric: SpatialMetric, Sendable {
    public let lat: Double
    public let lon: Double
    private let geodesic = Geodesic.wgs84

    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
    }

    /// M(0)/R = a(1−e²)/R: the smallest ratio of WGS84 geodesic to haversine distance (0.9944170...).
    public static let lowerFactor: Double = {
        let a = 6_378_137.0, f = 1 / 298.257223563, e2 = f * (2 - f)
        return a * (1 - e2) / Haversine.earthRadius
    }()

    /// N(90°)/R = a/(√(1−e²)·R): the largest ratio of WGS84 geodesic to haversine distance (1.0044868...).
    public static let upperFactor: Double = {
        let a = 6_378_137.0, f = 1 / 298.257223563, e2 = f * (2 - f)
        return a / (1 - e2).squareRoot() / Haversine.earthRadius
    }()

    /// Exact WGS84 distance in metres from the centre to (x, y) = (lon, lat).
    @inline(__always)
    public func distance(x: Double, y: Double) -> Double {
        geodesic.distance(lat1: lat, lon1: lon, lat2: y, lon2: x)
    }

    public func lowerBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
        let spherical = SphericalBoxBounds.lower(lat: lat, lon: lon, minX: minX, minY: minY, maxX: maxX, maxY: maxY)
        return max(0, spherical * Self.lowerFactor * (1 - 1e-12) - 1e-6)
    }

    public func upperBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
        let spherical = SphericalBoxBounds.upper(lat: lat, lon: lon, minX: minX, minY: minY, maxX: maxX, maxY: maxY)
        return spherical * Self.upperFactor * (1 + 1e-12) + 1e-6
    }
}

/// Exact great-circle (haversine) distance bounds from a point to a longitude/latitude box
/// (minX ≤ maxX in degrees; a box may extend past ±180).
///
/// Stand-in until the index's `HaversineMetric` is merged. For a fixed latitude of the box point the
/// distance grows with the longitude gap (cos d = sinφ sinφ' + cosφ cosφ' cosΔλ), so the nearest
/// (farthest) box point lies on the edge meridian with the smallest (largest) gap; along that meridian
/// cos d = C·cos(φ' − φ*) with φ* = atan2(sinφ, cosφ cosΔλ), so the extremes are at the box's latitude
/// edges or at φ*, φ* ± 180° when those fall inside.
enum SphericalBoxBounds {
    static func lower(lat: Double, lon: Double, minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
        if containsLongitude(lon, minX: minX, maxX: maxX) {
            return max(minY - lat, lat - maxY, 0) * (Double.pi / 180) * Haversine.earthRadius
        }
        let edge = gap(lon, minX) <= gap(lon, maxX) ? minX : maxX
        return extreme(lat: lat, lon: lon, edge: edge, minY: minY, maxY: maxY, nearest: true)
    }

    static func upper(lat: Double, lon: Double, minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
        let antipode = lon + 180
        let edge = containsLongitude(antipode, minX: minX, maxX: maxX)
            ? antipode : (gap(lon, minX) >= gap(lon, maxX) ? minX : maxX)
        return extreme(lat: lat, lon: lon, edge: edge, minY: minY, maxY: maxY, nearest: false)
    }

    /// Whether lon + 360k lies in [minX, maxX] for some integer k.
    private static func containsLongitude(_ lon: Double, minX: Double, maxX: Double) -> Bool {
        if maxX - minX >= 360 { return true }
        var t = (lon - minX).truncatingRemainder(dividingBy: 360)
        if t < 0 { t += 360 }
        return t <= maxX - minX
    }

    /// Circular longitude gap in [0, 180].
    private static func gap(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 360)
        return d > 180 ? 360 - d : d
    }

    /// Smallest or largest distance from (lat, lon) to the meridian segment lon = edge, lat in [minY, maxY].
    private static func extreme(lat: Double, lon: Double, edge: Double, minY: Double, maxY: Double, nearest: Bool)
        -> Double
    {
        let rad = Double.pi / 180
        let critical = atan2(sin(lat * rad), cos(lat * rad) * cos((edge - lon) * rad)) / rad
        var best = Haversine.distance(lat1: lat, lon1: lon, lat2: minY, lon2: edge)
        func consider(_ candidate: Double) {
            guard candidate >= minY && candidate <= maxY else { return }
            let d = Haversine.distance(lat1: lat, lon1: lon, lat2: candidate, lon2: edge)
            best = nearest ? min(best, d) : max(best, d)
        }
        consider(maxY)
        consider(critical)
        consider(critical - 180)
        consider(critical + 180)
        return best
    }
}
