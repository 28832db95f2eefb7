/// How distances are measured: the `--distance` option of `nearby query` and `nearby distance`.
///
/// Accuracy of each model against the WGS84 geodesic, on Korean distances from 1 m to 500 km, is in
/// docs/distance-models.md.
public enum DistanceModel: Sendable, Hashable, CustomStringConvertible {
    /// Great circle on the sphere of radius 6,371,008.8 m (`Haversine`). Within about 0.5 % of the
    /// geodesic everywhere. The default.
    case haversine
    /// WGS84 ellipsoid, Karney's algorithm through PROJ (`Geodesic`). Accurate to about 15 nm.
    case geodesic
    /// Euclidean distance in the plane of a projected CRS; points are projected once per dataset.
    case projected(ProjectedCRS)

    public static let `default` = DistanceModel.haversine

    /// Parses `haversine`, `geodesic`, `projected` (EPSG:5179), `projected:EPSG:nnnn`, `projected:nnnn`
    /// or `projected:utm` (case-insensitive). An EPSG code is checked against PROJ's database: it must
    /// name a projected CRS.
    public init(parsing text: String) throws {
        let lower = text.lowercased()
        switch lower {
        case "haversine": self = .haversine
        case "geodesic": self = .geodesic
        case "projected": self = .projected(.korea2000)
        case "projected:utm": self = .projected(.utm)
        default:
            guard lower.hasPrefix("projected:") else { throw DistanceModelError.unknownModel(text) }
            var code = lower.dropFirst("projected:".count)
            if code.hasPrefix("epsg:") { code = code.dropFirst("epsg:".count) }
            guard let epsg = Int(code), epsg > 0 else {
                throw DistanceModelError.unknownCRS(String(text.dropFirst("projected:".count)))
            }
            try Projection.validate(epsg: epsg)
            self = .projected(.epsg(epsg))
        }
    }

    /// The text `init(parsing:)` reads back: `haversine`, `geodesic`, `projected:EPSG:5179`, `projected:utm`.
    public var description: String {
        switch self {
        case .haversine: "haversine"
        case .geodesic: "geodesic"
        case .projected(let crs): "projected:\(crs)"
        }
    }

    /// Distance in metres between two WGS84 points, for one-off pairs. For `.projected` this builds a
    /// PROJ transformation on every call (milliseconds); project datasets with `Projection` instead.
    /// With `.projected(.utm)` the zone is the one of the first point.
    public func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) throws -> Double {
        switch self {
        case .haversine:
            return Haversine.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
        case .geodesic:
            return Geodesic.wgs84.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
        case .projected(let crs):
            let projection = try Projection(epsg: crs.epsgCode(lat: lat1, lon: lon1))
            return try projection.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
        }
    }
}

extension Projection {
    /// Planar distance in metres between two WGS84 points after projecting both.
    /// Throws `DistanceModelError.outsideProjection` when PROJ cannot project one of them.
    public func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) throws -> Double {
        let p = forward(lat: lat1, lon: lon1)
        let q = forward(lat: lat2, lon: lon2)
        guard p.x.isFinite, p.y.isFinite else {
            throw DistanceModelError.outsideProjection(lat: lat1, lon: lon1, crs: epsg)
        }
        guard q.x.isFinite, q.y.isFinite else {
            throw DistanceModelError.outsideProjection(lat: lat2, lon: lon2, crs: epsg)
        }
        return PlanarMetric.distance(x1: p.x, y1: p.y, x2: q.x, y2: q.y)
    }
}

/// Errors of distance-model parsing and projection, with one-line messages for the CLI.
public enum DistanceModelError: NearbyError, Equatable {
    case unknownModel(String)
    case unknownCRS(String)
    case notProjected(String, name: String)
    case outsideProjection(lat: Double, lon: Double, crs: Int)
    case proj(String)

    public var description: String {
        switch self {
        case .unknownModel(let text):
            "unknown distance model \(MessageText.quoted(text)) (expected haversine, geodesic, projected, projected:EPSG:nnnn or projected:utm)"
        case .unknownCRS(let text): "unknown CRS \(MessageText.quoted(text))"
        case .notProjected(let text, let name): "CRS \(MessageText.quoted(text)) (\(name)) is not a projected CRS"
        case .outsideProjection(let lat, let lon, let crs): "cannot project (\(lat), \(lon)) into EPSG:\(crs)"
        case .proj(let message): "PROJ: \(message)"
        }
    }

    /// `.internal` when PROJ itself failed, else `.usage` (a model or CRS the caller named).
    public var kind: ErrorKind {
        if case .proj = self { .internal } else { .usage }
    }
}
