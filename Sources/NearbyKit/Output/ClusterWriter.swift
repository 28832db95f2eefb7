import NearbyCore

/// How clusters are written: a GeoJSON FeatureCollection in supercluster's shape, or JSON lines.
public enum ClusterFormat: String, CaseIterable, Sendable {
    case geojson, jsonl

    public var mediaType: String {
        switch self {
        case .geojson: "application/geo+json; charset=utf-8"
        case .jsonl: "application/x-ndjson; charset=utf-8"
        }
    }
}

/// Writes clusters and places alone: clusters as supercluster's features (`GeoJSONWriter.appendCluster`)
/// or JSON lines `{"cluster":true,"cluster_id","point_count","point_count_abbreviated","expansion_zoom","lon","lat"}`;
/// places as the GeoJSON writer and `PlaceJSON` write them (all their fields, or `fields`).
///
/// Usage: `write` the entries, then `finish` once.
public struct ClusterWriter {
    public let format: ClusterFormat
    private let fields: PlaceJSON.Selection
    private var out: StdoutBlocks
    private var geoJSON: GeoJSONWriter

    public init(format: ClusterFormat, fields: PlaceJSON.Selection = .all, to out: StdoutBlocks = StdoutBlocks()) {
        self.format = format
        self.fields = fields
        self.out = out
        geoJSON = GeoJSONWriter(fields: fields)
        if format == .geojson { geoJSON.begin(to: &self.out.bytes) }
    }

    /// Writes `items` in order; `places` are the records of the points among them, in their order
    /// (`PlaceClusters.rows(of:)` with records); `index` gives each cluster's expansion zoom.
    public mutating func write(_ items: [ClusterItem], places: PlaceRows, index: ClusterIndex) throws {
        var records: [Place] = []
        records.reserveCapacity(places.count)
        try places.forEachRow { _, p in records.append(p.pointee) }
        var next = 0
        for item in items {
            if item.isCluster {
                let zoom = try index.expansionZoom(of: item.id)
                switch format {
                case .geojson:
                    geoJSON.appendCluster(item, expansionZoom: zoom, to: &out.bytes)
                case .jsonl:
                    var extra = Array(#","lon":"#.utf8)
                    JSONNumber.append(item.lon, to: &extra)
                    extra.append(contentsOf: #","lat":"#.utf8)
                    JSONNumber.append(item.lat, to: &extra)
                    GeoJSONWriter.appendClusterProperties(item, expansionZoom: zoom, extra: extra, to: &out.bytes)
                    out.bytes.append(0x0A)
                }
            } else {
                precondition(next < records.count, "one record a point")
                switch format {
                case .geojson: geoJSON.append(records[next], to: &out.bytes)
                case .jsonl:
                    PlaceJSON.append(records[next], fields: fields, to: &out.bytes)
                    out.bytes.append(0x0A)
                }
                next += 1
            }
            try out.flushIfFull()
        }
    }

    /// Ends the document (GeoJSON) and writes what is buffered.
    public mutating func finish() throws {
        if format == .geojson { geoJSON.end(to: &out.bytes) }
        try out.flush()
    }
}
