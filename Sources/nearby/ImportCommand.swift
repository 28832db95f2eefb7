import ArgumentParser
import Dispatch
import Foundation
import NearbyKit
import NearbyPostGIS

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add, update and remove cached places from files.",
        discussion: """
            Reads canonical JSON lines, TourAPI items wherever they sit in JSON (responses, bare \
            arrays, collector and capture wrappers, one item per line), Kakao Local search responses, \
            CSV/TSV with a header row, and GeoJSON FeatureCollections of Points. \
            The format is detected from each file's content; --format forces one for every input. \
            Text is UTF-8, or CP949 (EUC-KR, Korean Excel's CSV) when it is not; --encoding forces one.

            A record replaces the cached place with the same id only when its `modified` is not older \
            (a record without `modified` counts as the oldest). A TourAPI sync-list item with showflag 0 \
            removes the place. TourAPI details without coordinates (detailWithTour2: barrier-free \
            facilities; detailPetTour2: pets) merge into the place with their contentid; a detail whose \
            place is not cached yet waits and is merged when the place is imported.

            All inputs are imported in one transaction: if anything fails, or the process is \
            interrupted, the cache is exactly as it was. Bad records (file:line: field: reason) are \
            reported on stderr, skipped and counted; with --strict the first one stops the import and \
            nothing changes.

            stdout gets one JSON line: {"inserted":..,"updated":..,"unchanged":..,"older":..,\
            "deleted":..,"rejected":..,"pending":..,"files":[{"file":..,"format":..,"records":..,"rejected":..}]}. \
            `unchanged` counts records identical to the cached place (and deletes of absent ids), \
            `older` records kept out by a newer cached place, `pending` details waiting for their place.

            Examples:
              nearby import places.jsonl
              nearby import --db trip.sqlite areaBasedList-*.json festivals.json
              nearby import detailWithTour2-*.json detailPetTour2.jsonl
              curl -s "$TOURAPI_URL" | nearby import --strict -
              nearby import --pg postgresql://app@db:5432/nearby *.json
            """)

    @OptionGroup var cache: CacheOptions
    @OptionGroup var postgis: PostGISOptions

    @Option(help: "Read every input as this format instead of detecting it.")
    var format: ImportFormat?

    @Option(
        help: ArgumentHelp(
            "Text encoding of every input: utf-8 or cp949 (also euc-kr); detected by default.", valueName: "name"),
        transform: { name in
            guard let e = TextEncoding(name: name) else {
                throw ValidationError("unknown encoding '\(name)' (use utf-8 or cp949)")
            }
            return e
        })
    var encoding: TextEncoding?

    @Flag(help: "Stop at the first bad record and change nothing.")
    var strict = false

    @Option(
        help: ArgumentHelp(
            "The largest record read, in bytes (a line of JSON lines, CSV or TSV; one item of a JSON or GeoJSON document); a larger one stops the import and nothing changes. The default, 1 MiB, is some hundred times the largest real place and keeps one record's parsing to a few MB.",
            valueName: "bytes"))
    var maxRecordBytes = PlaceParser.defaultMaxRecordBytes

    func validate() throws {
        guard maxRecordBytes > 0 else { throw ValidationError("--max-record-bytes must be at least 1") }
    }

    @Flag(
        help:
            "Print on stderr when each step begins (seconds since the start): reading, committing, the index snapshot.")
    var verbose = false

    @Argument(help: ArgumentHelp("Files to import; - reads standard input (so do pipes and <(…)).", valueName: "file"))
    var files: [String]

    /// Bad records printed in full before the rest are only counted.
    static let shownErrors = 20

    func run() throws {
        var importer = Importer(format: format, strict: strict)
        importer.encoding = encoding
        importer.maxRecordBytes = maxRecordBytes
        var shown = 0
        importer.onRejected = { error in
            if shown < Self.shownErrors { StandardError.write(error.description) }
            shown += 1
        }
        importer.onProgress = StandardError.progress
        if verbose {
            let start = DispatchTime.now().uptimeNanoseconds
            importer.onStep = { step in
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                StandardError.write("nearby import: \(String(format: "%.3f", seconds)) s: \(step)")
            }
        }
        importer.onWarning = { StandardError.write("nearby import: \($0)") }
        var codeWarnings = 0
        importer.regions = RegionData.index
        importer.onCodeWarning = { warning in
            StandardError.write(warning.description)
            codeWarnings += 1
        }
        let summary: ImportSummary
        do {
            if let url = postgis.url(db: cache.db) {
                summary = try importer.importFiles(files, into: try PostGISStore(url: url, readOnly: false))
            } else {
                summary = try importer.importFiles(files, into: try cache.open(readOnly: false))
            }
            StandardError.progress("")
        } catch let error as UnreadableInputError {
            throw UsageError(error.description)
        } catch {
            StandardError.write("nearby import: \(error)")
            StandardError.write(
                "nearby import: nothing was imported; the \(postgis.url(db: cache.db) == nil ? "cache" : "database") is unchanged"
            )
            throw ExitCode.failure
        }
        if shown > Self.shownErrors {
            StandardError.write("nearby import: ... and \(shown - Self.shownErrors) more bad records")
        }
        if codeWarnings > 0 {
            StandardError.write(
                "nearby import: warning: \(codeWarnings) place\(codeWarnings == 1 ? "'s" : "s'") lDongRegnCd/lDongSignguCd disagree with their coordinates (imported as given)"
            )
        }
        print(summary.json())
        if summary.counts.rejected > 0, summary.files.allSatisfy({ $0.records == 0 }) {
            StandardError.write("nearby import: every record was rejected; nothing was imported")
            throw ExitCode.failure
        }
    }
}

extension ImportFormat: ExpressibleByArgument {}
