import CPROJ
import Foundation

/// The projected coordinate reference system of the `projected[:CRS]` distance model.
public enum ProjectedCRS: Sendable, Hashable, CustomStringConvertible {
    /// Any projected CRS in PROJ's EPSG database, by code.
    case epsg(Int)
    /// The UTM zone (WGS84, EPSG:326zz north / 327zz south) of the query point.
    case utm

    /// Korea 2000 / Unified CS (EPSG:5179), the default: transverse Mercator on GRS80, central
    /// meridian 127.5°E, scale 0.9996, covering the whole peninsula and Jeju.
    public static let korea2000 = ProjectedCRS.epsg(5179)

    /// `EPSG:5179` or `utm`.
    public var description: String {
        switch self {
        case .epsg(let code): "EPSG:\(code)"
        case .utm: "utm"
        }
    }

    /// The EPSG code to use for a query centred at (lat, lon): the code itself, or the UTM zone there.
    public func epsgCode(lat: Double, lon: Double) -> Int {
        switch self {
        case .epsg(let code): code
        case .utm: Self.utmEPSG(lat: lat, lon: lon)
        }
    }

    /// WGS84 / UTM zone EPSG code: 32600 + zone in the northern hemisphere (lat ≥ 0), 32700 + zone south.
    public static func utmEPSG(lat: Double, lon: Double) -> Int {
        (lat >= 0 ? 32600 : 32700) + utmZone(lat: lat, lon: lon)
    }

    /// UTM zone 1...60 of a point: 6° bands eastwards from 180°W, with the two exceptions of the UTM grid
    /// (as in MGRS): band V (56°N–64°N) zone 32 is widened to 3°E–12°E (south-western Norway), and band X
    /// (72°N–84°N) uses only zones 31 (0°–9°E), 33 (9°–21°E), 35 (21°–33°E) and 37 (33°–42°E) (Svalbard).
    /// UTM is defined for 80°S–84°N; beyond that (the UPS polar zones) the longitude zone is still returned
    /// and distances there carry the zone's growing scale error.
    public static func utmZone(lat: Double, lon: Double) -> Int {
        var lon = (lon + 180).truncatingRemainder(dividingBy: 360)
        if lon < 0 { lon += 360 }
        lon -= 180  // now in [-180, 180)
        if lat >= 56 && lat < 64 && lon >= 3 && lon < 12 { return 32 }
        if lat >= 72 && lat < 84 && lon >= 0 && lon < 42 {
            return lon < 9 ? 31 : lon < 21 ? 33 : lon < 33 ? 35 : 37
        }
        return min(60, max(1, Int(((lon + 180) / 6).rounded(.down)) + 1))
    }
}

/// Transforms WGS84 latitude/longitude (EPSG:4326) into a projected CRS, through PROJ.
///
/// Owns one `PJ_CONTEXT` (PROJ contexts are not thread-safe) and the `PJ` transformation, destroyed
/// with the instance. Calls are serialised by a lock, so an instance may be shared between threads; for
/// parallel work make one per thread. EPSG codes are resolved from PROJ's `proj.db` with networking
/// disabled, so nothing is downloaded. Axis order is normalised with `proj_normalize_for_visualization`
/// (EPSG:4326 itself is latitude-first), so outputs are (easting, northing).
///
/// Outputs are in metres: CRS units other than the metre (US survey feet, ...) are converted.
/// A point PROJ cannot project comes back as infinite coordinates.
public final class Projection: @unchecked Sendable {
    // @unchecked: the PROJ objects are only touched under `lock`.
    /// The target CRS.
    public let epsg: Int
    /// PROJ's name of the target CRS, e.g. "Korea 2000 / Unified CS".
    public let name: String
    private let metresPerUnit: Double
    private let context: OpaquePointer
    private let transform: OpaquePointer
    /// The CRS's projection alone, as a PROJ string (`+proj=tmerc …`), for `proj_factors`: given the
    /// CRS itself, `proj_factors` builds a new transformation on every call (milliseconds).
    private let factors: OpaquePointer?
    private let lock = NSLock()
    private let proj: PROJLibrary

    /// Throws `DistanceModelError.unknownCRS` for a code PROJ does not know and `.notProjected` for a
    /// geographic, geocentric or other non-projected CRS.
    public init(epsg: Int) throws {
        let proj = try PROJLibrary.shared.get()
        self.proj = proj
        guard let context = proj.contextCreate() else { throw DistanceModelError.proj("cannot create a PROJ context") }
        _ = proj.logLevel(context, PJ_LOG_NONE)  // errors are reported by us, not printed by PROJ
        _ = proj.setEnableNetwork(context, 0)
        do {
            let crs = try Self.projectedCRS(proj, context, epsg: epsg)
            defer { _ = proj.destroy(crs) }
            name = proj.getName(crs).map { String(cString: $0) } ?? "EPSG:\(epsg)"
            metresPerUnit = Self.metresPerUnit(proj, context, crs)
            guard let raw = proj.createCRSToCRS(context, "EPSG:4326", "EPSG:\(epsg)", nil) else {
                throw DistanceModelError.proj("no transformation from EPSG:4326 to EPSG:\(epsg)")
            }
            defer { _ = proj.destroy(raw) }
            guard let normalized = proj.normalizeForVisualization(context, raw) else {
                throw DistanceModelError.proj("cannot normalise the axis order of EPSG:4326 → EPSG:\(epsg)")
            }
            transform = normalized
            factors = proj.asPROJString(context, crs, PJ_PROJ_5, nil)
                .map { String(cString: $0).replacingOccurrences(of: "+type=crs", with: "") }
                .flatMap { proj.create(context, $0) }
        } catch {
            _ = proj.contextDestroy(context)
            throw error
        }
        self.context = context
        self.epsg = epsg
    }

    deinit {
        if let factors { _ = proj.destroy(factors) }
        _ = proj.destroy(transform)
        _ = proj.contextDestroy(context)
    }

    /// Checks that PROJ knows `epsg` as a projected CRS, without building a transformation.
    public static func validate(epsg: Int) throws {
        let proj = try PROJLibrary.shared.get()
        guard let context = proj.contextCreate() else { throw DistanceModelError.proj("cannot create a PROJ context") }
        defer { _ = proj.contextDestroy(context) }
        _ = proj.logLevel(context, PJ_LOG_NONE)
        _ = proj.setEnableNetwork(context, 0)
        _ = proj.destroy(try projectedCRS(proj, context, epsg: epsg))
    }

    /// Projected (x, y) in metres of one WGS84 point.
    public func forward(lat: Double, lon: Double) -> (x: Double, y: Double) {
        let out = lock.withLock { proj.trans(transform, PJ_FWD, PROJLibrary.coord(lon, lat)) }
        return (out.xy.x * metresPerUnit, out.xy.y * metresPerUnit)
    }

    /// Projects many points in one `proj_trans_generic` call (one lock, no per-point allocation).
    /// `lats` and `lons` must have the same length.
    public func forward(lats: [Double], lons: [Double]) -> (xs: [Double], ys: [Double]) {
        precondition(lats.count == lons.count, "lats and lons differ in length")
        var xs = lons
        var ys = lats
        let n = xs.count
        guard n > 0 else { return ([], []) }
        let stride = MemoryLayout<Double>.stride
        xs.withUnsafeMutableBufferPointer { x in
            ys.withUnsafeMutableBufferPointer { y in
                _ = lock.withLock {
                    proj.transGeneric(
                        transform, PJ_FWD, x.baseAddress, stride, n, y.baseAddress, stride, n, nil, 0, 0, nil, 0, 0)
                }
            }
        }
        if metresPerUnit != 1 {
            for i in 0..<n {
                xs[i] *= metresPerUnit
                ys[i] *= metresPerUnit
            }
        }
        return (xs, ys)
    }

    /// The smallest scale factor in any direction at one point (the semi-minor axis of Tissot's
    /// indicatrix, PROJ's `proj_factors`): a short path through the point, `s` metres long on the
    /// ellipsoid, is at least `s × minimumScale` metres long in the plane. Nil where PROJ cannot tell
    /// (outside the projection's domain, or a CRS PROJ cannot write as a PROJ string). Computed on the
    /// CRS's own geographic base, which for the datums PROJ maps from WGS84 differs by at most
    /// hundreds of metres in position: a negligible change in scale.
    public func minimumScale(lat: Double, lon: Double) -> Double? {
        guard let factors else { return nil }
        let deg = Double.pi / 180
        let f = lock.withLock { () -> PJ_FACTORS in
            let f = proj.factors(factors, PROJLibrary.coord(lon * deg, lat * deg))
            _ = proj.errnoReset(factors)
            return f
        }
        let k = f.tissot_semiminor
        return k.isFinite && k > 0 ? k : nil
    }

    private static func projectedCRS(_ proj: PROJLibrary, _ context: OpaquePointer, epsg: Int) throws -> OpaquePointer {
        guard epsg > 0, let crs = proj.create(context, "EPSG:\(epsg)") else {
            throw DistanceModelError.unknownCRS("EPSG:\(epsg)")
        }
        guard proj.getType(crs) == PJ_TYPE_PROJECTED_CRS else {
            let name = proj.getName(crs).map { String(cString: $0) } ?? "?"
            _ = proj.destroy(crs)
            throw DistanceModelError.notProjected("EPSG:\(epsg)", name: name)
        }
        return crs
    }

    /// Metres per unit of the CRS's first axis (1 for metre-based CRSs).
    private static func metresPerUnit(_ proj: PROJLibrary, _ context: OpaquePointer, _ crs: OpaquePointer) -> Double {
        guard let cs = proj.crsGetCoordinateSystem(context, crs) else { return 1 }
        defer { _ = proj.destroy(cs) }
        var factor = 1.0
        guard proj.csGetAxisInfo(context, cs, 0, nil, nil, nil, &factor, nil, nil, nil) != 0, factor > 0 else {
            return 1
        }
        return factor
    }
}
