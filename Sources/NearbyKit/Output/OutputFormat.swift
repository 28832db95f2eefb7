/// The formats answers and exports are written in.
public enum OutputFormat: String, CaseIterable, Sendable {
    /// One JSON object a line (the default): streams, and other programs read it line by line.
    case jsonl
    /// One JSON array; with a meta line, one object `{…meta, "places": […]}`.
    case json
    /// One GeoJSON FeatureCollection of Points.
    case geojson
    /// Aligned columns for a person at a terminal.
    case table
    /// A header row, then one place a line, tab-separated.
    case tsv
}
