import NearbyCore

/// Writes places as a GeoJSON (RFC 7946) FeatureCollection of Points, one feature per line, streaming.
///
/// Each feature: `"id"` the place id, `geometry` `[lon, lat]`, `properties` the place's `PlaceJSON` members
/// without `lat`/`lon` (plus `distance` in metres when given). `GeoJSONReader` reads it back exactly.
///
///     var writer = GeoJSONWriter()
///     var out: [UInt8] = []
///     writer.begin(to: &out)
///     for p in places { writer.append(p, to: &out) }
///     writer.end(to: &out)
public struct GeoJSONWriter: Sendable {
    private let properties: PlaceJSON.Selection
    private var count = 0

    /// `fields` selects the properties (coordinates are always written).
    public init(fields: PlaceJSON.Selection = .all) {
        properties = fields.removing(.lat).removing(.lon)
    }

    public func begin(to out: inout [UInt8]) {
        out.append(contentsOf: #"{"type":"FeatureCollection","features":["#.utf8)
        out.append(0x0A)
    }

    public mutating func append(_ place: Place, distance: Double? = nil, to out: inout [UInt8]) {
        if count > 0 { out.append(contentsOf: ",\n".utf8) }
        count += 1
        out.append(contentsOf: #"{"type":"Feature","id":"#.utf8)
        JSONWriter.appendString(place.id, to: &out)
        out.append(contentsOf: #","geometry":{"type":"Point","coordinates":["#.utf8)
        JSONNumber.append(place.lon, to: &out)
        out.append(UInt8(ascii: ","))
        JSONNumber.append(place.lat, to: &out)
        out.append(contentsOf: #"]},"properties":"#.utf8)
        PlaceJSON.append(place, distance: distance, fields: properties, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// A cluster as supercluster writes it: `id` and `cluster_id` its id, `geometry` its centroid, and
    /// `properties` `cluster`, `cluster_id`, `point_count`, `point_count_abbreviated`, `expansion_zoom`.
    public mutating func appendCluster(_ item: ClusterItem, expansionZoom: Int, to out: inout [UInt8]) {
        if count > 0 { out.append(contentsOf: ",\n".utf8) }
        count += 1
        out.append(contentsOf: #"{"type":"Feature","id":"#.utf8)
        JSONNumber.append(item.id, to: &out)
        out.append(contentsOf: #","geometry":{"type":"Point","coordinates":["#.utf8)
        JSONNumber.append(item.lon, to: &out)
        out.append(UInt8(ascii: ","))
        JSONNumber.append(item.lat, to: &out)
        out.append(contentsOf: #"]},"properties":"#.utf8)
        Self.appendClusterProperties(item, expansionZoom: expansionZoom, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// `{"cluster":true,"cluster_id":…,"point_count":…,"point_count_abbreviated":…,"expansion_zoom":…`,
    /// then `extra` members (written as they are) and `}`: a number below 1000 abbreviated is the
    /// number, as in supercluster.
    public static func appendClusterProperties(
        _ item: ClusterItem, expansionZoom: Int, extra: [UInt8] = [], to out: inout [UInt8]
    ) {
        out.append(contentsOf: #"{"cluster":true,"cluster_id":"#.utf8)
        JSONNumber.append(item.id, to: &out)
        out.append(contentsOf: #","point_count":"#.utf8)
        JSONNumber.append(item.count, to: &out)
        out.append(contentsOf: #","point_count_abbreviated":"#.utf8)
        if item.count < 1000 {
            JSONNumber.append(item.count, to: &out)
        } else {
            JSONWriter.appendString(item.abbreviatedCount, to: &out)
        }
        out.append(contentsOf: #","expansion_zoom":"#.utf8)
        JSONNumber.append(expansionZoom, to: &out)
        out.append(contentsOf: extra)
        out.append(UInt8(ascii: "}"))
    }

    public func end(to out: inout [UInt8]) {
        if count > 0 { out.append(0x0A) }
        out.append(contentsOf: "]}\n".utf8)
    }
}
