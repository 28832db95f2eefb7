import ArgumentParser
import Foundation
import NearbyKit
import NearbyPostGIS

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Find cached places around a point, in a box or everywhere: filtered, sorted, paged.",
        discussion: """
            Writes one JSON line per place with all its fields, and `distance` in metres when there is \
            a centre. --meta first writes a line {"total","page","limit","returned","nextCursor","tookMs"}; \
            --explain (also a batch line's "explain":true) a line {"plan","rowsTouched"}: how the engine \
            found the answer (spatial index first, order walk, column scan; total from statistics, a \
            key range or a count) and the rows it read. --total none leaves the total out (null): a \
            sorted page then stops once it is full instead of counting every match. \
            Nothing else goes to stdout; an empty answer is not an error. Usage errors: one line on \
            stderr, exit code 2.

            Shapes: --radius (a circle), --knn (the k nearest; with --radius, at most that far), \
            none (every place, narrowed by --bbox and the filters). Filters combine with AND. Dates \
            are inclusive: --created-until 20250101 includes all of that day.

            Order: --sort keys, comma-separated, - for descending (--sort title,-modified), or TourAPI's \
            --arrange code. Ties are always broken by id (integer ids as numbers, then other ids by bytes). \
            Pages: --limit and --page, or --cursor with the nextCursor of the previous page (refused \
            after the cache changes).

            Batch: --queries FILE answers many queries in one process: TSV whose header names the \
            columns (qid and option names; an empty cell leaves an option unset; the benchmark's \
            qid lat lon radius_m limit reads as a radius query) or JSON lines of query objects whose \
            keys are this command's option names (plus qid), e.g. \
            {"qid":"a","lat":37.5665,"lon":126.978,"radius":2000,"category":"12,39","sort":"title"}. \
            Options on the command line apply to every query that does not set them. Each output line \
            starts with the query's qid; --fields qid,id,distance keeps large outputs lean.

            Values may start with -: --lat -33.8688 --lon 151.2093, --sort -created,title.

            Examples:
              nearby query --lat 37.5665 --lon 126.9780 --radius 2000 --format table
              nearby query --lat 37.5665 --lon 126.9780 --radius 2000 \\
                --category 12,39 --sort distance --limit 30
              nearby query --lat 37.5665 --lon 126.9780 --knn 10 --distance geodesic
              nearby query --bbox 126.9,37.5,127.1,37.6 --keyword ㄱㅂㄱ --arrange A
              nearby query --lat 35.18 --lon 129.08 --radius 20000 --date 2025-05-05
              nearby query --areacode 1 --accessible infants --pet all,some --format table
              nearby query --queries /tmp/w1m.queries.tsv --fields qid,id,distance \\
                --db /tmp/w1m.sqlite
            """)

    @OptionGroup var options: QueryOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup var postgis: PostGISOptions

    @Option(
        help: ArgumentHelp(
            "Answer every query of this file (benchmark TSV or JSON lines, see above).", valueName: "file"))
    var queries: String?

    @Option(
        help:
            "snapshot (the index file beside the cache, mapped; the default), memory (load the cache and index it), sqlite (straight from the cache's R*Tree) or postgis (the --pg database; the default with --pg)."
    )
    var engine: EngineKind?

    @Option(help: "jsonl, json (one array, or one object with --meta), geojson, tsv or table (for humans).")
    var format: OutputFormat = .jsonl

    @Option(help: ArgumentHelp("Output fields, e.g. qid,id,title,distance (default: all).", valueName: "names"))
    var fields: String?

    @Flag(
        help:
            "Write a first line with total, page, limit, returned, nextCursor and tookMs (one per query in batch mode)."
    )
    var meta = false

    func validate() throws {
        if format == .table && fields != nil {
            throw ValidationError("--fields picks JSON fields; --format table has fixed columns")
        }
        if format == .geojson && meta {
            throw ValidationError("--meta has no place in a GeoJSON FeatureCollection; use --format json or jsonl")
        }
        if postgis.pg != nil && engine != nil && engine != .postgis {
            throw ValidationError("--pg names a database: use it with --engine postgis")
        }
        if queries != nil && format != .jsonl && format != .tsv {
            throw ValidationError("--queries writes JSON lines or TSV only")
        }
        if options.explain && format != .jsonl {
            throw ValidationError("--explain writes the plan as a JSON line: use --format jsonl")
        }
    }

    func run() throws {
        let selection: PlaceJSON.Selection
        var personalFields: [PersonalField]?
        do {
            selection =
                try fields.map {
                    var names = $0.split(separator: ",").map(String.init)
                    personalFields = names.compactMap(PersonalField.init(rawValue:))
                    names.removeAll { PersonalField(rawValue: $0) != nil }
                    return try PlaceJSON.Selection(
                        names: names.isEmpty && !(personalFields ?? []).isEmpty ? ["id"] : names, extraKeys: ["qid"])
                } ?? .all
        } catch { throw UsageError("--fields: \(error)") }
        let jobs: [BatchQueries.Job]
        if let queries {
            guard let bytes = FileManager.default.contents(atPath: queries) else {
                throw UsageError("\(queries): cannot read the file")
            }
            jobs = try BatchQueries.read([UInt8](bytes), file: queries, defaults: options.parameters)
        } else {
            do {
                jobs = [
                    BatchQueries.Job(
                        qid: nil, query: try QueryParameters.parse(options.parameters, areas: RegionAreas.shared))
                ]
            } catch {
                throw UsageError(error)
            }
        }
        // The personal layer: each query's user data read once before it runs, keywords recorded after.
        // A cache in a read-only folder still answers; its history is then not recorded (said on stderr).
        let personalWanted = !(personalFields ?? []).isEmpty
        var personalCache: (any PersonalStorage)?
        // A batch file (`--queries`, the benchmarks' path) records no history: one write per query would
        // cost more than its answer.
        let recordsHistory = queries == nil
        if engine == .postgis, postgis.url(db: cache.db) == nil {
            throw UsageError("--engine postgis needs a database: --pg URL or $NEARBY_PG")
        }
        let pgURL = engine == nil || engine == .postgis ? postgis.url(db: cache.db) : nil
        if personalWanted
            || jobs.contains(where: { $0.query.usesPersonalData || (recordsHistory && $0.query.filter.keyword != nil) })
        {
            // The personal tables beside the places: the database's with --pg, else the cache's.
            if let pgURL {
                personalCache = try PostGISStore(url: pgURL, readOnly: true)
            } else {
                personalCache = try (try? cache.open(readOnly: false)) ?? cache.open(readOnly: true)
            }
        }
        let queryEngine: any QueryEngine
        if let url = pgURL {
            if jobs.contains(where: { $0.query.language != .ko }) {
                throw UsageError("--lang: the PostGIS engine holds the Korean places only; query the cache")
            }
            queryEngine = try PostGISEngine.open(url: url)
        } else {
            // Korean queries on the engine asked for, another language's on that language's places.
            let opened = try cache.open(readOnly: true)
            queryEngine = LanguageEngines(path: opened.path).dispatching(
                try (self.engine ?? .snapshot).open(opened) { StandardError.write("nearby query: \($0)") })
        }
        var out = PlaceWriter(format: format, fields: selection, meta: meta)
        out.personalFields = personalFields
        for job in jobs {
            let start = DispatchTime.now().uptimeNanoseconds
            var query = job.query
            if let personalCache { try PersonalLayer.attach(&query, from: personalCache, always: personalWanted) }
            let answer: QueryAnswer
            do { answer = try queryEngine.run(query) } catch let e as RequestError {
                throw UsageError(job.source.map { "\($0): \(e.message())" } ?? UsageError(e).description)
            }
            let tookMs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            try out.write(answer, query: query, qid: job.qid, tookMs: tookMs)
            if let personalCache, recordsHistory {
                do { try PersonalLayer(store: personalCache).recordSearch(of: query) } catch {
                    StandardError.write("nearby query: the search history was not updated: \(error)")
                }
            }
        }
        try out.finish()
    }
}

extension EngineKind: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {}
