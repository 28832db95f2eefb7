import Foundation

/// The formats answers and exports are written in. This one list drives the CLI's `--format`, the
/// server's `format=` parameter and `Accept` negotiation, and the OpenAPI document: a new case is
/// served everywhere once `PlaceWriter` writes it (the compiler asks for its branch there).
public enum OutputFormat: String, CaseIterable, Sendable {
    /// One JSON object a line (the default on the command line): streams, and other programs read it line by line.
    case jsonl
    /// One JSON array; with a meta line, one object `{…meta, "places": […]}` (over HTTP, `{total, page, next, places}`).
    case json
    /// One GeoJSON FeatureCollection of Points.
    case geojson
    /// Aligned columns for a person at a terminal.
    case table
    /// A header row, then one place a line, tab-separated.
    case tsv

    /// The HTTP media type of an answer in this format.
    public var mediaType: String {
        switch self {
        case .jsonl: "application/x-ndjson"
        case .json: "application/json; charset=utf-8"
        case .geojson: "application/geo+json"
        case .table: "text/plain; charset=utf-8"
        case .tsv: "text/tab-separated-values; charset=utf-8"
        }
    }

    /// The names a `format=` parameter accepts for it: its own, and the common alias of JSON lines.
    public var names: [String] { self == .jsonl ? [rawValue, "ndjson"] : [rawValue] }

    /// One line for help texts and the OpenAPI document.
    public var summary: String {
        switch self {
        case .jsonl: "one JSON object a line"
        case .json: "one JSON document"
        case .geojson: "a GeoJSON FeatureCollection of Points"
        case .table: "aligned columns for a person"
        case .tsv: "a header row, then one place a line, tab-separated"
        }
    }

    /// The format named `name` (`names`), nil for none.
    public init?(named name: String) {
        guard let f = Self.allCases.first(where: { $0.names.contains(name) }) else { return nil }
        self = f
    }

    /// The format an `Accept` header asks for: the first format (in `allCases` order) whose media
    /// type, without parameters, it names; nil when it names none (then the caller's default).
    public init?(accept: String) {
        let asked = Set(
            accept.split(separator: ",").map { $0.split(separator: ";")[0].trimmingCharacters(in: .whitespaces) })
        guard let f = Self.allCases.first(where: { asked.contains($0.bareMediaType) }) else { return nil }
        self = f
    }

    /// The media type without its parameters (`application/json`).
    public var bareMediaType: String { String(mediaType.split(separator: ";")[0]) }
}
