import NearbyCore

/// Measures point pairs under a distance model and writes one output line per pair, as `nearby
/// distance` prints them: the distance alone (text), or a JSON object (jsonl); with `all`, every
/// model side by side (haversine, geodesic with both azimuths, projected). Numbers carry every
/// digit needed to read back the same double. Keeps one `Projection` per EPSG code it meets.
public struct DistanceLines {
    public enum Format: String, Sendable, CaseIterable { case text, jsonl }

    /// The field names of a pair, in input order.
    public static let names = ["lat1", "lon1", "lat2", "lon2"]

    public let model: DistanceModel
    public let all: Bool
    public let format: Format
    private var projections: [Int: Projection] = [:]

    public init(model: DistanceModel, all: Bool, format: Format) {
        self.model = model
        self.all = all
        self.format = format
    }

    /// The line for one pair (lat1, lon1, lat2, lon2), without its newline. Throws when PROJ cannot
    /// project the pair.
    public mutating func line(_ p: CoordinateLine) throws(CoordinateLine.Invalid) -> String {
        let (lat1, lon1, lat2, lon2) = (p.values[0], p.values[1], p.values[2], p.values[3])
        let coordinates = "\"lat1\":\(lat1),\"lon1\":\(lon1),\"lat2\":\(lat2),\"lon2\":\(lon2)"
        guard all else {
            let d = try measure(p, model)
            return format == .text ? "\(d)" : "{\(coordinates),\"model\":\"\(model)\",\"distance\":\(d)}"
        }
        let haversine = try measure(p, .haversine)
        let g = Geodesic.wgs84.inverse(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
        let crs: ProjectedCRS = if case .projected(let crs) = model { crs } else { .korea2000 }
        let projected = try measure(p, .projected(crs))
        return format == .text
            ? "\(haversine) \(g.distance) \(g.azimuth1) \(g.azimuth2) \(projected)"
            : "{\(coordinates),\"haversine\":\(haversine),\"geodesic\":\(g.distance),\"azi1\":\(g.azimuth1),"
                + "\"azi2\":\(g.azimuth2),\"projected\":\(projected),\"crs\":\"\(crs)\"}"
    }

    private mutating func measure(_ p: CoordinateLine, _ model: DistanceModel) throws(CoordinateLine.Invalid) -> Double
    {
        let (lat1, lon1, lat2, lon2) = (p.values[0], p.values[1], p.values[2], p.values[3])
        do {
            switch model {
            case .haversine, .geodesic:
                return try model.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            case .projected(let crs):
                // The UTM zone (projected:utm) is the first point's.
                let code = crs.epsgCode(lat: lat1, lon: lon1)
                if projections[code] == nil { projections[code] = try Projection(epsg: code) }
                return try projections[code]!.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            }
        } catch {
            throw CoordinateLine.Invalid("\(error)")
        }
    }
}
