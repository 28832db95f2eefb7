/// `SpatialMetric` for the `geodesic` model: exact WGS84 geodesic distances from one centre, with box
/// bounds taken from `HaversineMetric`'s spherical box bounds scaled by proven factors.
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
/// For WGS84 the factors are 0.9944169795 and 1.0044867032; a random sample of pairs, antipodal ones included,
/// stays inside them (GeodesicMetricTests). A relative 1e-12 and 1 µm of slack cover rounding.
public struct GeodesicMetric: SpatialMetric, Sendable {
    public let lat: Double
    public let lon: Double
    private let geodesic = Geodesic.wgs84
    private let spherical: HaversineMetric

    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
        spherical = HaversineMetric(lat: lat, lon: lon)
    }

    /// M(0)/R = a(1−e²)/R: the smallest ratio of WGS84 geodesic to haversine distance (0.9944169795).
    public static let lowerFactor: Double = {
        let a = 6_378_137.0
        let f = 1 / 298.257223563
        let e2 = f * (2 - f)
        return a * (1 - e2) / Haversine.earthRadius
    }()

    /// N(90°)/R = a/(√(1−e²)·R): the largest ratio of WGS84 geodesic to haversine distance (1.0044867032).
    public static let upperFactor: Double = {
        let a = 6_378_137.0
        let f = 1 / 298.257223563
        let e2 = f * (2 - f)
        return a / (1 - e2).squareRoot() / Haversine.earthRadius
    }()

    /// Exact WGS84 distance in metres from the centre to (x, y) = (lon, lat).
    @inline(__always)
    public func distance(x: Double, y: Double) -> Double {
        geodesic.distance(lat1: lat, lon1: lon, lat2: y, lon2: x)
    }

    public func lowerBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
        let h = spherical.lowerBound(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
        return max(0, h * Self.lowerFactor * (1 - 1e-12) - 1e-6)
    }

    public func upperBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
        let h = spherical.upperBound(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
        return h * Self.upperFactor * (1 + 1e-12) + 1e-6
    }

    /// geodesic ≤ r implies haversine ≤ r / lowerFactor, so the spherical search box of that radius holds
    /// every match.
    public func searchBox(radius: Double) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        spherical.searchBox(radius: radius / Self.lowerFactor * (1 + 1e-12) + 1e-6)
    }
}
