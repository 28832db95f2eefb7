import ArgumentParser
import NearbyKit

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add, update and remove cached places from files.",
        discussion: """
            Reads canonical JSON lines, TourAPI items wherever they sit in JSON (responses, bare \
            arrays, collector and capture wrappers, one item per line), Kakao Local search responses, \
            CSV/TSV with a header row, and GeoJSON FeatureCollections of Points. \
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

    @Argument(help: ArgumentHelp("Files to import; - reads standard input (so do pipes and <(…)).", valueName: "file"))
    var files: [String]

    /// Bad records printed in full before the rest are only counted.
    static let shownErrors = 20

    func run() throws {
        var importer = Importer(format: format, strict: strict)
        var shown = 0
        importer.onRejected = { error in
            if shown < Self.shownErrors { StandardError.write(error.description) }
            shown += 1
        }
        importer.onProgress = StandardError.progress
        let summary: ImportSummary
        do {
            summary = try importer.importFiles(files, into: try cache.open(readOnly: false))
            StandardError.progress("")
        } catch let error as UnreadableInputError {
            throw UsageError(error.description)
        } catch {
            StandardError.write("nearby import: \(error)")
            StandardError.write("nearby import: nothing was imported; the cache is unchanged")
            throw ExitCode.failure
        }
        if shown > Self.shownErrors { StandardError.write("nearby import: ... and \(shown - Self.shownErrors) more bad records") }
        print(summary.json())
    }
}

extension ImportFormat: ExpressibleByArgument {}
