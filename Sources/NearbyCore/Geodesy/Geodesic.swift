import CPROJ

/// Geodesics on an ellipsoid of revolution (the `geodesic` distance model uses WGS84).
///
/// Algorithm: C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87, 43–55 (2013),
/// doi:10.1007/s00190-012-0578-z, as implemented by PROJ's `geodesic.h` (`geod_inverse`).
/// Accuracy: about 15 nanometres for any pair of points on WGS84, including nearly antipodal ones.
///
/// A value type holding PROJ's read-only `geod_geodesic` coefficients, so it is `Sendable` and safe to
/// use from any number of threads. Cost: about a microsecond per `inverse` (see docs/distance-models.md).
public struct Geodesic: @unchecked Sendable {
    // @unchecked: a plain C struct of doubles that `geod_inverse` only reads.
    private let g: geod_geodesic
    /// PROJ's `geod_inverse`, kept here so the hot loop calls it without a lookup.
    private let inverseFunction:
        @convention(c) (
            UnsafePointer<geod_geodesic>?, Double, Double, Double, Double,
            UnsafeMutablePointer<Double>?, UnsafeMutablePointer<Double>?, UnsafeMutablePointer<Double>?
        ) -> Void

    /// Equatorial radius `a` in metres and flattening `f`.
    public init(a: Double, f: Double) {
        let proj = PROJLibrary.functions
        var g = geod_geodesic()
        proj.geodInit(&g, a, f)
        self.g = g
        inverseFunction = proj.geodInverse
    }

    /// The WGS84 ellipsoid: a = 6,378,137 m, f = 1/298.257223563.
    public static let wgs84 = Geodesic(a: 6_378_137, f: 1 / 298.257223563)

    public var equatorialRadius: Double { g.a }
    public var flattening: Double { g.f }

    /// The inverse problem: distance in metres and the forward azimuths (degrees clockwise from north)
    /// at both ends. Latitudes in [-90, 90]; longitudes any finite value (they are reduced mod 360).
    public func inverse(lat1: Double, lon1: Double, lat2: Double, lon2: Double)
        -> (distance: Double, azimuth1: Double, azimuth2: Double)
    {
        var s12 = 0.0
        var azi1 = 0.0
        var azi2 = 0.0
        withUnsafePointer(to: g) { inverseFunction($0, lat1, lon1, lat2, lon2, &s12, &azi1, &azi2) }
        return (s12, azi1, azi2)
    }

    /// Distance only, in metres.
    @inline(__always)
    public func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        var s12 = 0.0
        withUnsafePointer(to: g) { inverseFunction($0, lat1, lon1, lat2, lon2, &s12, nil, nil) }
        return s12
    }
}
