import ArgumentParser
import Foundation
import Logging
import NearbyKit
import NearbyServer

/// `nearby serve`: the cache over HTTP, until SIGINT or SIGTERM.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Answer queries over HTTP: Nearby's API and TourAPI's.",
        discussion: """
            Endpoints: GET /v1/places (the parameters of nearby query; JSON, \
            JSON lines with format=jsonl or Accept: application/x-ndjson, or \
            format=geojson), /v1/places/{id}, /v1/distance, /v1/where (as nearby \
            where), /tiles/{z}/{x}/{y}.mvt (vector tiles of the places and the \
            region boundaries; docs/tiles.md), /healthz, /metrics (Prometheus \
            text), /openapi.json, and \
            TourAPI's /B551011/KorService2/locationBasedList2, areaBasedList2, \
            searchKeyword2, searchFestival2, detailCommon2 (XML as TourAPI, JSON \
            with _type=json; docs/tourapi-compat.md).

            The map page is / (open http://127.0.0.1:8080/ in a browser): the \
            region boundaries, clusters, category counts and the places nearest \
            the centre, with nothing from the internet. It draws with Leaflet from \
            Debian's libjs-leaflet (apt-get install libjs-leaflet; read from \
            /usr/share/javascript/leaflet); without it the page says so. docs/map.md.

            When another process imports into the cache, the server reloads \
            within a second; a cursor from before gets 409. SIGINT or SIGTERM \
            stop it: it stops listening, lets the requests in flight finish for \
            up to --shutdown-timeout seconds, then closes what is left and exits. \
            Access logs go to stderr (--log-level warning turns them off).

            Queries run in parallel, --lanes at a time; one that takes longer than \
            --timeout (waiting included) gets 503. A page of more than 2,000 rows \
            streams in 64 KiB blocks as the client reads, fetching its records a \
            few hundred rows at a time: a client that stops reading holds its \
            rows (16 bytes each) and a few hundred KiB, not the answer. --max-large-answers such pages are \
            written at once; the others wait their turn (first come, first served) \
            and get 503 after --timeout. Browsers may call the server only from \
            the pages of a --cors-origin.

            Examples:
              nearby serve --db /tmp/places.sqlite --port 8080
              curl 'localhost:8080/v1/places?lat=37.5665&lon=126.978&radius=2000'
              nearby serve --engine postgis --pg postgresql://app@db/nearby
              nearby serve --cors-origin https://map.example --timeout 2
              nearby serve --max-large-answers 4 --shutdown-timeout 5
              nearby serve --pin-event-loops --log-level warning   (a machine of its own)
            """
    )

    @OptionGroup var cache: CacheOptions
    @OptionGroup var postgis: PostGISOptions

    @Option(
        help:
            "snapshot (the default: the mapped index file, a page's rows fetched from the cache), memory (loaded and indexed at start and each reload: more memory, faster large pages), sqlite, or postgis (the --pg database; the default with --pg)."
    )
    var engine: EngineKind?

    @Option(help: "Address to listen on (loopback unless told otherwise).")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one.")
    var port = 8080

    @Option(help: ArgumentHelp("Rows a page at most (limit, numOfRows).", valueName: "n"))
    var maxLimit = 100_000

    @Option(help: ArgumentHelp("Require this TourAPI serviceKey (default: any).", valueName: "key"))
    var serviceKey: String?

    @Option(help: ArgumentHelp("Seconds a query may take, waiting included (503 after).", valueName: "s"))
    var timeout = 10.0

    @Option(help: ArgumentHelp("Allow browser pages from this origin (repeat; * for any).", valueName: "origin"))
    var corsOrigin: [String] = []

    @Option(help: ArgumentHelp("Queries answered at once (default: the cores, at least 2).", valueName: "n"))
    var lanes: Int?

    @Option(
        help: ArgumentHelp(
            "Pages of more than 2,000 rows written at once; more wait in line, first come first served, and get 503 after --timeout (default: --lanes; a client that stops reading gives its turn up).",
            valueName: "n"))
    var maxLargeAnswers: Int?

    @Option(
        help: ArgumentHelp(
            "Seconds the requests in flight get to finish after SIGTERM or SIGINT; then open streams are cancelled, connections closed, and the server exits.",
            valueName: "s"))
    var shutdownTimeout = 10.0

    @Flag(
        help:
            "Pin each event loop's thread to a CPU of its own: more q/s when the server has the machine to itself (about 40 % more at two connections in BENCHMARKS.md), less when other busy processes share the cores."
    )
    var pinEventLoops = false

    @Option(help: ArgumentHelp("info (access log per request), warning or error.", valueName: "level"))
    var logLevel: LogLevel = .info

    enum LogLevel: String, ExpressibleByArgument, CaseIterable {
        case info, warning, error
        var level: Logger.Level {
            switch self {
            case .info: .info
            case .warning: .warning
            case .error: .error
            }
        }
    }

    func validate() throws {
        guard timeout.isFinite, timeout > 0, timeout <= 3_600 else {
            throw ValidationError("--timeout must be in (0, 3600] seconds")
        }
        if let lanes { guard (1...256).contains(lanes) else { throw ValidationError("--lanes must be in 1…256") } }
        if let maxLargeAnswers {
            guard (1...1_024).contains(maxLargeAnswers) else {
                throw ValidationError("--max-large-answers must be in 1…1024")
            }
        }
        guard shutdownTimeout.isFinite, shutdownTimeout >= 0, shutdownTimeout <= 3_600 else {
            throw ValidationError("--shutdown-timeout must be in [0, 3600] seconds")
        }
        for origin in corsOrigin where origin != "*" {
            guard let url = URL(string: origin), let scheme = url.scheme, ["http", "https"].contains(scheme),
                url.host != nil,
                url.path.isEmpty, url.query == nil
            else {
                throw ValidationError(
                    "--cors-origin \(origin): give an origin such as https://map.example (scheme, host, port), or *")
            }
        }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be in 0…65535") }
        if postgis.pg != nil && engine != nil && engine != .postgis {
            throw ValidationError("--pg names a database: use it with --engine postgis")
        }
        guard maxLimit >= 1 else { throw ValidationError("--max-limit must be at least 1") }
    }

    func run() throws {
        MallocArenas.limit(to: max(2, ProcessInfo.processInfo.activeProcessorCount))
        LoggingSystem.bootstrap(StderrLogHandler.init(label:))
        var logger = Logger(label: "nearby.serve")
        logger.logLevel = logLevel.level
        let lanes = self.lanes ?? LiveEngine.defaultLanes
        let live: LiveEngine
        if engine == .postgis, postgis.url(db: cache.db) == nil {
            throw UsageError("--engine postgis needs a database: --pg URL or $NEARBY_PG")
        }
        if let url = engine == nil || engine == .postgis ? postgis.url(db: cache.db) : nil {
            live = try LiveEngine(postgis: url, lanes: lanes)
        } else {
            live = try LiveEngine(
                path: try cache.open(readOnly: true).path, provider: .kind(engine ?? .snapshot), lanes: lanes)
        }
        var options = ServerOptions()
        options.host = host
        options.port = port
        options.maxLimit = maxLimit
        options.serviceKey = serviceKey
        options.requestTimeout = .milliseconds(Int64((timeout * 1000).rounded()))
        options.corsOrigins = corsOrigin
        options.lanes = lanes
        options.pinEventLoops = pinEventLoops
        options.maxLargeAnswers = maxLargeAnswers
        options.shutdownTimeout = .milliseconds(Int64((shutdownTimeout * 1000).rounded()))
        let done = DispatchSemaphore(value: 0)
        final class Outcome: @unchecked Sendable { var error: (any Error)? }
        let outcome = Outcome()
        Task {
            do { try await NearbyHTTPServer.run(engine: live, options: options, logger: logger) } catch {
                outcome.error = error
            }
            done.signal()
        }
        done.wait()
        if let error = outcome.error { throw error }
    }
}
