import ArgumentParser
import Foundation
import NearbyCore
import NearbyStore

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every cached place to stdout, ordered by id.",
        discussion: """
            JSON lines (one place a line, the same fields `nearby import` reads) or one GeoJSON \
            FeatureCollection of Points. Exporting a cache and importing the output into a new cache \
            gives back every place exactly.

            Examples:
              nearby export > places.jsonl
              nearby export --format geojson --db trip.sqlite > trip.geojson
              nearby export --db a.sqlite | nearby import --db b.sqlite -
            """)

    @OptionGroup var cache: CacheOptions

    @Option(help: "jsonl (one place a line) or geojson (a FeatureCollection).")
    var format: OutputFormat = .jsonl

    func run() throws {
        let cache = try cache.open(readOnly: true)
        var output = PlaceOutput(format: format)
        try cache.forEachPlaceByID { try output.append($0) }
        try output.finish()
    }
}

/// The formats `nearby export` writes.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    case jsonl, geojson
}

/// Streams places to stdout in `format`.
struct PlaceOutput {
    private let format: OutputFormat
    private var geoJSON = GeoJSONWriter(fields: .all)
    private var out = StdoutBlocks()

    init(format: OutputFormat) {
        self.format = format
        if format == .geojson { geoJSON.begin(to: &out.bytes) }
    }

    mutating func append(_ place: Place) throws {
        switch format {
        case .jsonl:
            PlaceJSON.append(place, to: &out.bytes)
            out.bytes.append(0x0A)
        case .geojson:
            geoJSON.append(place, distance: nil, to: &out.bytes)
        }
        try out.flushIfFull()
    }

    /// Ends the document (GeoJSON) and writes what is buffered.
    mutating func finish() throws {
        if format == .geojson { geoJSON.end(to: &out.bytes) }
        try out.flush()
    }
}
