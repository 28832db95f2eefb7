import ArgumentParser
import Foundation
import NearbyCore
import NearbyStore

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Find cached places around a point, in a box or everywhere: filtered, sorted, paged.",
        discussion: """
            Writes one JSON line per place with all its fields, and `distance` in metres when there is \
            a centre. --meta first writes a line {"total","page","limit","returned","nextCursor","tookMs"}. \
            Nothing else goes to stdout; an empty answer is not an error. Usage errors: one line on \
            stderr, exit code 2.

            Shapes: --radius (a circle), --knn (the k nearest; with --radius, at most that far), \
            none (every place, narrowed by --bbox and the filters). Filters combine with AND. Dates \
            are inclusive: --created-until 20250101 includes all of that day.

            Order: --sort keys, comma-separated, - for descending (--sort title,-modified), or TourAPI's \
            --arrange code. Ties are always broken by id (integer ids as numbers, then other ids by bytes). \
            Pages: --limit and --page, or --cursor with the nextCursor of the previous page (refused \
            after the cache changes).

            Batch: --queries FILE answers many queries in one process: the benchmark TSV (header, then \
            qid lat lon radius_m limit: places within the radius by distance, cut to limit when > 0) or \
            JSON lines of query objects whose keys are this command's option names (plus qid), e.g. \
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
              nearby query --queries /tmp/w1m.queries.tsv --fields qid,id,distance \\
                --db /tmp/w1m.sqlite
            """)

    @OptionGroup var options: QueryOptions
    @OptionGroup var cache: CacheOptions

    @Option(help: ArgumentHelp("Answer every query of this file (benchmark TSV or JSON lines, see above).", valueName: "file"))
    var queries: String?

    @Option(help: "snapshot (the index file beside the cache, mapped), memory (load the cache and index it) or sqlite (straight from the cache's R*Tree).")
    var engine: EngineKind = .snapshot

    @Option(help: "jsonl, json (one array, or one object with --meta), geojson or table (for humans).")
    var format: QueryFormat = .jsonl

    @Option(help: ArgumentHelp("Output fields, e.g. qid,id,title,distance (default: all).", valueName: "names"))
    var fields: String?

    @Flag(help: "Write a first line with total, page, limit, returned, nextCursor and tookMs (one per query in batch mode).")
    var meta = false

    @Flag(help: .hidden)
    var timings = false

    enum EngineKind: String, ExpressibleByArgument, CaseIterable { case snapshot, memory, sqlite }
    enum QueryFormat: String, ExpressibleByArgument, CaseIterable { case jsonl, json, geojson, table }

    func run() throws {
        do {
            if format == .table && fields != nil { throw UsageError("--fields picks JSON fields; --format table has fixed columns") }
            if format == .geojson && meta { throw UsageError("--meta has no place in a GeoJSON FeatureCollection; use --format json or jsonl") }
            let selection: PlaceJSON.Selection
            do { selection = try fields.map { try PlaceJSON.Selection(names: $0.split(separator: ",").map(String.init), extraKeys: ["qid"]) } ?? .all }
            catch { throw UsageError("--fields: \(error)") }
            let jobs: [(qid: JSONScalar?, query: PlaceQuery)]
            if let queries {
                guard format == .jsonl else { throw UsageError("--queries writes JSON lines only (--format jsonl)") }
                jobs = try BatchFile.read(queries, defaults: options)
            } else {
                jobs = [(nil, try options.query())]
            }
            let engine = try makeEngine()
            var out = QueryOutput(format: format, fields: selection, meta: meta)
            for job in jobs {
                let start = DispatchTime.now().uptimeNanoseconds
                let answer: QueryAnswer
                do { answer = try engine.run(job.query) } catch let e as QueryError { throw UsageError(e.description) }
                let tookMs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                try out.write(answer, query: job.query, qid: job.qid, tookMs: tookMs)
            }
            try out.finish()
        } catch let error as UsageError {
            FileHandle.standardError.write(Data("nearby query: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }

    private func makeEngine() throws -> any QueryEngine {
        let cache = try cache.open(readOnly: true)
        switch engine {
        case .snapshot: return try CacheSnapshot.engine(for: cache) { StandardError.write("nearby query: \($0)") }
        case .sqlite: return SQLiteEngine(cache: cache)
        case .memory:
            let t0 = DispatchTime.now().uptimeNanoseconds
            let places = try cache.allPlaces()
            let t1 = DispatchTime.now().uptimeNanoseconds
            let engine = MemoryEngine(places: places, generation: try cache.generation())
            let t2 = DispatchTime.now().uptimeNanoseconds
            if timings {
                let perPlace = Double(engine.byteCount) / Double(max(1, places.count))
                StandardError.write("nearby query: read \(places.count) places in \((t1 - t0) / 1_000_000) ms, built the index in \((t2 - t1) / 1_000_000) ms, \(String(format: "%.1f", perPlace)) bytes/place")
            }
            return engine
        }
    }
}

/// A `--queries` file: the benchmark TSV or JSON lines of query objects.
enum BatchFile {
    static func read(_ path: String, defaults: QueryOptions) throws -> [(qid: JSONScalar?, query: PlaceQuery)] {
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("\(path): cannot read the file") }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let isJSON = lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }?.first == "{"
        var jobs: [(JSONScalar?, PlaceQuery)] = []
        for (n, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
            if line.trimmingCharacters(in: .whitespaces).isEmpty || (!isJSON && n == 0) { continue }
            do {
                jobs.append(isJSON ? try jsonQuery(line, defaults) : try tsvQuery(line, defaults))
            } catch let e as UsageError {
                throw UsageError("\(path):\(n + 1): \(e)")
            }
        }
        return jobs
    }

    /// `qid lat lon radius_m limit`: a radius query by distance (unless the command line sorts otherwise).
    private static func tsvQuery(_ line: String, _ defaults: QueryOptions) throws -> (JSONScalar?, PlaceQuery) {
        let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard cols.count == 5 else { throw UsageError("expected 5 tab-separated columns qid lat lon radius_m limit, found \(cols.count)") }
        var o = defaults
        o.lat = cols[1]; o.lon = cols[2]; o.radius = cols[3]; o.limit = cols[4]
        return (scalar(cols[0]), try o.query())
    }

    /// A JSON object whose keys are option names: turned into arguments and parsed like the command line.
    private static func jsonQuery(_ line: String, _ defaults: QueryOptions) throws -> (JSONScalar?, PlaceQuery) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw UsageError("not a JSON object")
        }
        var qid: JSONScalar?
        var arguments: [String] = []
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            if key == "qid" {
                qid = (value as? NSNumber).map { scalar($0.stringValue) } ?? (value as? String).map(JSONScalar.string)
                continue
            }
            let flag = "--" + (QueryOptions.jsonKeys[key] ?? key)
            if flag == "--with-image" {
                guard let on = value as? Bool else { throw UsageError("\(key): expected true or false") }
                if on { arguments.append(flag) }
                continue
            }
            switch value {
            case let list as [Any]: arguments.append("\(flag)=\(list.map { "\($0)" }.joined(separator: ","))")
            case let n as NSNumber: arguments.append("\(flag)=\(n.stringValue)")
            case let s as String: arguments.append("\(flag)=\(s)")
            default: throw UsageError("\(key): unsupported value")
            }
        }
        return (qid, try options(arguments).over(defaults).query())
    }

    /// Parses `--name=value` arguments (the `=` keeps negative numbers from reading as flags).
    private static func options(_ arguments: [String]) throws(UsageError) -> QueryOptions {
        do { return try QueryOptions.parse(arguments) } catch {
            throw UsageError(QueryOptions.message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid query")
        }
    }

    /// An integer qid stays a number in the output, anything else is a string.
    private static func scalar(_ s: String) -> JSONScalar { Int(s).map(JSONScalar.int) ?? .string(s) }
}

/// Writes answers to stdout in blocks, without Foundation's JSON coders (the batch hot path).
struct QueryOutput {
    let format: QueryCommand.QueryFormat
    let fields: PlaceJSON.Selection
    let meta: Bool
    private var out = StdoutBlocks()
    private var geoJSON: GeoJSONWriter

    init(format: QueryCommand.QueryFormat, fields: PlaceJSON.Selection, meta: Bool) {
        self.format = format; self.fields = fields; self.meta = meta
        geoJSON = GeoJSONWriter(fields: fields)
        if format == .geojson { geoJSON.begin(to: &out.bytes) }
    }

    mutating func write(_ a: QueryAnswer, query: PlaceQuery, qid: JSONScalar?, tookMs: Double) throws {
        let leading = qid.map { [(key: "qid", value: $0)] } ?? []
        switch format {
        case .jsonl:
            if meta { appendMeta(a, query, qid, tookMs); out.bytes.append(0x0A) }
            for (p, d) in zip(a.rows, a.distances) {
                PlaceJSON.append(p, leading: leading, distance: d, fields: fields, to: &out.bytes)
                out.bytes.append(0x0A)
                try out.flushIfFull()
            }
        case .json:
            if meta { appendMeta(a, query, qid, tookMs); out.bytes.removeLast(); out.bytes.append(contentsOf: ",\"places\":".utf8) }
            out.bytes.append(UInt8(ascii: "["))
            for (n, (p, d)) in zip(a.rows, a.distances).enumerated() {
                if n > 0 { out.bytes.append(UInt8(ascii: ",")) }
                PlaceJSON.append(p, distance: d, fields: fields, to: &out.bytes)
            }
            out.bytes.append(UInt8(ascii: "]"))
            if meta { out.bytes.append(UInt8(ascii: "}")) }
            out.bytes.append(0x0A)
        case .geojson:
            for (p, d) in zip(a.rows, a.distances) { geoJSON.append(p, distance: d, to: &out.bytes) }
        case .table:
            appendTable(a, query: query, tookMs: tookMs)
        }
    }

    mutating func finish() throws {
        if format == .geojson { geoJSON.end(to: &out.bytes) }
        try out.flush()
    }

    private mutating func appendMeta(_ a: QueryAnswer, _ q: PlaceQuery, _ qid: JSONScalar?, _ tookMs: Double) {
        out.bytes.append(UInt8(ascii: "{"))
        if let qid { out.bytes.append(contentsOf: "\"qid\":".utf8); qid.append(to: &out.bytes); out.bytes.append(UInt8(ascii: ",")) }
        out.bytes.append(contentsOf: "\"total\":".utf8); JSONNumber.append(a.total, to: &out.bytes)
        out.bytes.append(contentsOf: ",\"page\":".utf8); JSONNumber.append(a.page, to: &out.bytes)
        out.bytes.append(contentsOf: ",\"limit\":".utf8); JSONNumber.append(q.limit, to: &out.bytes)
        out.bytes.append(contentsOf: ",\"returned\":".utf8); JSONNumber.append(a.rows.count, to: &out.bytes)
        out.bytes.append(contentsOf: ",\"nextCursor\":".utf8)
        (a.nextCursor.map(JSONScalar.string) ?? .null).append(to: &out.bytes)
        out.bytes.append(contentsOf: ",\"tookMs\":".utf8); JSONNumber.append((tookMs * 1000).rounded() / 1000, to: &out.bytes)
        out.bytes.append(UInt8(ascii: "}"))
    }

    /// Aligned columns for a person: distance (when there is a centre), category, id, title. Columns
    /// are as wide as their widest value (nothing is cut), measured in terminal columns: Hangul and
    /// other East Asian wide characters take two.
    private mutating func appendTable(_ a: QueryAnswer, query: PlaceQuery, tookMs: Double) {
        var text = "\(a.total) match\(a.total == 1 ? "" : "es"), page \(a.page), \(a.rows.count) shown (\(String(format: "%.1f", tookMs)) ms)\n"
        let hasDistance = query.center != nil
        let rows = zip(a.rows, a.distances).map { p, d in
            (hasDistance ? [d.map { $0 >= 1000 ? String(format: "%.2f km", $0 / 1000) : String(format: "%.0f m", $0) } ?? "-"] : [])
                + [String(p.category), p.id, p.title]
        }
        let header = (hasDistance ? ["distance"] : []) + ["cat", "id", "title"]
        let widths = header.indices.map { c in rows.reduce(TerminalText.width(header[c])) { max($0, TerminalText.width($1[c])) } }
        for row in [header] + rows {
            // Distances right-aligned, the other columns left-aligned; the last column is not padded.
            text += row.indices.map { c in
                c == row.count - 1 ? row[c] : TerminalText.pad(row[c], to: widths[c], right: hasDistance && c == 0)
            }.joined(separator: "  ") + "\n"
        }
        if let next = a.nextCursor { text += "next page: --cursor \(next)\n" }
        out.bytes.append(contentsOf: text.utf8)
    }
}

/// Text measured in terminal columns (after Unicode's East Asian Width, UAX #11, and wcwidth): wide
/// and fullwidth characters (Hangul syllables, CJK, fullwidth forms, most emoji) take two columns,
/// combining marks and Hangul medial/final jamo none, everything else one.
enum TerminalText {
    static func width(_ s: String) -> Int { s.unicodeScalars.reduce(0) { $0 + width($1) } }

    static func width(_ u: Unicode.Scalar) -> Int {
        switch u.value {
        case 0x0300...0x036F, 0x1160...0x11FF, 0x200B...0x200F, 0x20D0...0x20FF, 0xFE00...0xFE0F: return 0
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
             0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD: return 2
        default: return 1
        }
    }

    /// `s` padded with spaces to `columns` terminal columns (never cut), on the left when `right`.
    static func pad(_ s: String, to columns: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, columns - width(s)))
        return right ? fill + s : s + fill
    }
}
