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

/// The formats places are written in (export, and query results).
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    case jsonl, geojson
}

/// Streams places to stdout in `format`, writing in blocks of about 1 MB.
struct PlaceOutput {
    private let format: OutputFormat
    private let fields: PlaceJSON.Selection
    private var geoJSON: GeoJSONWriter
    private var buffer: [UInt8] = []
    private static let blockSize = 1 << 20

    init(format: OutputFormat, fields: PlaceJSON.Selection = .all) {
        self.format = format
        self.fields = fields
        geoJSON = GeoJSONWriter(fields: fields)
        buffer.reserveCapacity(Self.blockSize + 4096)
        if format == .geojson { geoJSON.begin(to: &buffer) }
    }

    mutating func append(_ place: Place, distance: Double? = nil) throws {
        switch format {
        case .jsonl:
            PlaceJSON.append(place, distance: distance, fields: fields, to: &buffer)
            buffer.append(0x0A)
        case .geojson:
            geoJSON.append(place, distance: distance, to: &buffer)
        }
        if buffer.count >= Self.blockSize { try flush() }
    }

    /// Ends the document (GeoJSON) and writes what is buffered.
    mutating func finish() throws {
        if format == .geojson { geoJSON.end(to: &buffer) }
        try flush()
    }

    private mutating func flush() throws {
        try FileHandle.standardOutput.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
