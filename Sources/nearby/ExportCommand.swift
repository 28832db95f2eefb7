import ArgumentParser
import Foundation
import NearbyKit
import NearbyPostGIS

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
              nearby export --pg postgresql://app@db/nearby > all.jsonl
            """)

    @OptionGroup var cache: CacheOptions
    @OptionGroup var postgis: PostGISOptions

    @Option(help: "jsonl (one place a line), json (one array), geojson (a FeatureCollection) or tsv.")
    var format: OutputFormat = .jsonl

    func validate() throws {
        if format == .table {
            throw ValidationError("--format table is for query answers; export writes jsonl, json, geojson or tsv")
        }
    }

    func run() throws {
        var output = PlaceWriter(format: format)
        if let url = postgis.url(db: cache.db) {
            try PostGISStore(url: url).forEachPlaceByID { try output.append($0) }
        } else {
            try cache.open(readOnly: true).forEachPlaceByID { try output.append($0) }
        }
        try output.finish()
    }
}
