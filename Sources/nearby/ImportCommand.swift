import ArgumentParser
import Foundation
import NearbyCore
import NearbyStore

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add, update and remove cached places from files.",
        discussion: """
            Reads canonical JSON lines, raw TourAPI responses (KorService1/KorService2 list, search, \
            festival and sync lists), CSV/TSV with a header row, and GeoJSON FeatureCollections of Points. \
            The format is detected from each file's content; --format forces one for every input.

            A record replaces the cached place with the same id only when its `modified` is not older \
            (a record without `modified` counts as the oldest). A TourAPI sync-list item with showflag 0 \
            removes the place.

            All inputs are imported in one transaction: if anything fails, or the process is \
            interrupted, the cache is exactly as it was. Bad records (file:line: field: reason) are \
            reported on stderr, skipped and counted; with --strict the first one stops the import and \
            nothing changes.

            stdout gets one JSON line: {"inserted":..,"updated":..,"unchanged":..,"older":..,\
            "deleted":..,"rejected":..,"files":[{"file":..,"format":..,"records":..,"rejected":..}]}. \
            `unchanged` counts records identical to the cached place (and deletes of absent ids), \
            `older` records kept out by a newer cached place.

            Examples:
              nearby import places.jsonl
              nearby import --db trip.sqlite areaBasedList-*.json festivals.json
              curl -s "$TOURAPI_URL" | nearby import --strict -
            """)

    @OptionGroup var cache: CacheOptions

    @Option(help: "Read every input as this format instead of detecting it.")
    var format: ImportFormat?

    @Flag(help: "Stop at the first bad record and change nothing.")
    var strict = false

    @Argument(help: ArgumentHelp("Files to import; - reads standard input.", valueName: "file"))
    var files: [String]

    /// Bad records printed in full before the rest are only counted.
    static let shownErrors = 20

    func validate() throws {
        for file in files where file != "-" && !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("\(file): no such readable file")
        }
    }

    func run() throws {
        let summary: ImportSummary
        do {
            let cache = try cache.open(readOnly: false)
            summary = try cache.write { writer in try importAll(into: writer) }
            CacheSnapshot.update(cache) { StandardError.write("nearby import: \($0)") }
            StandardError.progress("")
        } catch {
            StandardError.write("nearby import: \(error)")
            StandardError.write("nearby import: nothing was imported; the cache is unchanged")
            throw ExitCode.failure
        }
        if summary.hiddenErrors > 0 {
            StandardError.write("nearby import: ... and \(summary.hiddenErrors) more bad records")
        }
        print(summary.json())
    }

    /// Parses and writes every input, in order, through one writer (one transaction).
    private func importAll(into writer: PlaceCacheWriter) throws -> ImportSummary {
        var summary = ImportSummary()
        for file in files {
            let name = file == "-" ? "<stdin>" : file
            StandardError.progress("\(name): reading")
            let bytes = try file == "-"
                ? [UInt8](FileHandle.standardInput.readDataToEndOfFile())
                : [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
            StandardError.progress("\(name): parsing \(bytes.count) bytes")
            let parsed = try PlaceParser.parse(bytes, file: name, format: format, strict: strict)
            for error in parsed.errors {
                if summary.shownErrors < Self.shownErrors {
                    StandardError.write(error.description)
                    summary.shownErrors += 1
                } else {
                    summary.hiddenErrors += 1
                }
            }
            for (i, item) in parsed.records.enumerated() {
                switch item.record {
                case .upsert(let place): try writer.upsert(place)
                case .delete(let id): try writer.delete(id: id)
                }
                if i % 100_000 == 99_999 { StandardError.progress("\(name): \(i + 1)/\(parsed.records.count) records") }
            }
            summary.files.append(.init(
                name: name, format: parsed.format, records: parsed.records.count, rejected: parsed.errors.count))
        }
        StandardError.progress("updating the spatial index and committing")
        summary.counts = writer.counts
        summary.counts.rejected = summary.files.reduce(0) { $0 + $1.rejected }
        return summary
    }
}

extension ImportFormat: ExpressibleByArgument {}

/// What one `nearby import` did, for its stdout line.
struct ImportSummary {
    struct File {
        var name: String
        var format: ImportFormat
        var records: Int
        var rejected: Int
    }

    var counts = WriteCounts()
    var files: [File] = []
    var shownErrors = 0, hiddenErrors = 0

    func json() -> String {
        let c = counts
        var out = Array("""
            {"inserted":\(c.inserted),"updated":\(c.updated),"unchanged":\(c.unchanged),"older":\(c.older),\
            "deleted":\(c.deleted),"rejected":\(c.rejected),"files":[
            """.utf8)
        for (i, file) in files.enumerated() {
            out.append(contentsOf: (i == 0 ? "{\"file\":" : ",{\"file\":").utf8)
            JSONWriter.appendString(file.name, to: &out)
            out.append(contentsOf: """
                ,"format":"\(file.format.rawValue)","records":\(file.records),"rejected":\(file.rejected)}
                """.utf8)
        }
        out.append(contentsOf: "]}".utf8)
        return String(decoding: out, as: UTF8.self)
    }
}
