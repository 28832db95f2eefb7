import ArgumentParser
import Foundation
import Logging
import NearbyKit
import NearbyServer
import NearbySync

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

            --sync tourapi runs nearby sync tourapi in the background (its flags \
            below; the key from $TOURAPI_SERVICE_KEY or --service-key-file): at \
            start, then --sync-every (24h), each finished run served at once; a \
            failed run is logged (the key REDACTED) and tried again at the next \
            interval. /healthz shows the last run. --fallback tourapi asks \
            TourAPI's locationBasedList2 once for the area of a location query \
            the cache has never had, imports it and answers from the cache; when \
            upstream fails the answer carries Nearby-Partial: upstream-failed. \
            docs/sync.md.

            Examples:
              nearby serve --db /tmp/places.sqlite --port 8080
              curl 'localhost:8080/v1/places?lat=37.5665&lon=126.978&radius=2000'
              nearby serve --engine postgis --pg postgresql://app@db/nearby
              nearby serve --cors-origin https://map.example --timeout 2
              nearby serve --max-large-answers 4 --shutdown-timeout 5
              nearby serve --pin-event-loops --log-level warning   (a machine of its own)
              nearby serve --sync tourapi --sync-every 12h --fallback tourapi
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

    @Option(
        help: ArgumentHelp(
            "Sync this source into the cache in the background: at start, then every --sync-every.",
            valueName: "tourapi"))
    var sync: Upstream?

    @Option(help: ArgumentHelp("Time between background syncs: 24h, 90m, 1d, 3600s (default 24h).", valueName: "time"))
    var syncEvery: String?

    @Option(
        help: ArgumentHelp(
            "Ask this source once for the area of a location query the cache has never had.", valueName: "tourapi"))
    var fallback: Upstream?

    @OptionGroup(title: "TourAPI, for --sync and --fallback (as nearby sync tourapi)")
    var tourapi: TourAPISyncFlags

    enum Upstream: String, ExpressibleByArgument, CaseIterable {
        case tourapi
    }

    @Option(
        help: ArgumentHelp(
            "Searches each user's history keeps: a keyword query with a token records its keyword (no-history=true: not).",
            valueName: "n"))
    var historyLength = PersonalLayer.defaultHistoryLength

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
        guard (1...100_000).contains(historyLength) else {
            throw ValidationError("--history-length must be in 1…100000")
        }
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
        if let syncEvery {
            guard sync != nil else { throw ValidationError("--sync-every needs --sync tourapi") }
            guard Self.interval(syncEvery) != nil else {
                throw ValidationError(
                    "--sync-every \(syncEvery): a time from 1s to 365d, as a number and a unit (s, m, h, d): 24h, 90m, 1d"
                )
            }
        }
        if sync != nil || fallback != nil {
            if engine == .postgis || postgis.pg != nil {
                throw ValidationError("--sync and --fallback write the cache file: not with --engine postgis or --pg")
            }
        }
        if fallback != nil, tourapi.language != .ko {
            throw ValidationError(
                "--fallback tourapi fills in Korean location queries: not with --service \(tourapi.language.service)")
        }
    }

    /// `24h`, `90m`, `1d`, `3600s` or `3600` (seconds): from 1 s to 365 days, or nil.
    static func interval(_ text: String) -> Duration? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var number = Substring(text.trimmingCharacters(in: .whitespaces))
        var unit = 1.0
        if let last = number.last, let u = units[last] {
            unit = u
            number = number.dropLast()
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let value = Double(number), value.isFinite
        else { return nil }
        let seconds = value * unit
        guard seconds >= 1, seconds <= 365 * 86400 else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded()))
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
        let upstream = sync != nil || fallback != nil
        if upstream, engine == nil, postgis.url(db: cache.db) != nil {
            throw UsageError("--sync and --fallback write the cache file: give --engine snapshot (or memory, sqlite)")
        }
        var path = ""
        if let url = engine == nil || engine == .postgis ? postgis.url(db: cache.db) : nil {
            live = try LiveEngine(postgis: url, lanes: lanes)
        } else {
            // A server that syncs may start from no cache at all: it is made, and the first run fills it.
            path = try cache.open(readOnly: !upstream).path
            live = try LiveEngine(path: path, provider: .kind(engine ?? .snapshot), lanes: lanes)
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
        options.historyLength = historyLength
        if upstream {
            let settings = try tourapi.options(serviceKey: nil)
            let every = syncEvery.flatMap(Self.interval) ?? .seconds(86400)
            if sync != nil { options.sync = Self.backgroundSync(path: path, settings, every: every, logger: logger) }
            if fallback != nil {
                var fallback = Self.fallback(path: path, settings)
                fallback.wait = min(fallback.wait, options.requestTimeout)
                options.fallback = fallback
            }
        }
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

    /// `nearby sync tourapi` as the server runs it: one run under the sync lock, the snapshot brought up
    /// to date when it changed something, what it did for `/healthz` and the log, every text redacted.
    static func backgroundSync(path: String, _ settings: TourAPISyncOptions, every: Duration, logger: Logger)
        -> BackgroundSync
    {
        let importer = SendableImporter(syncImporter(command: "tourapi"))
        return BackgroundSync(source: "tourapi", interval: every) {
            do {
                let cache = try PlaceCache(path: path)
                let lock = try SyncLock(cachePath: path)
                let sync = TourAPISync(cache: cache, options: settings, importer: importer.importer)
                sync.onRetry = { url, reason, delay in
                    logger.warning(
                        "sync: retrying",
                        metadata: ["url": "\(url)", "reason": "\(reason)", "in_s": "\(String(format: "%.1f", delay))"])
                }
                let summary = try await sync.run()
                if summary.added + summary.updated + summary.deleted > 0 {
                    CacheSnapshot.update(cache) { logger.warning("sync: \(settings.redact($0))") }
                }
                withExtendedLifetime(lock) {}
                var run = SyncRun()
                (run.added, run.updated, run.deleted, run.unchanged) =
                    (summary.added, summary.updated, summary.deleted, summary.unchanged)
                (run.details, run.codeLists, run.rejected, run.requests, run.retries) =
                    (summary.details, summary.codeLists, summary.rejected, summary.requests, summary.retries)
                run.stopped = summary.stop.map { settings.redact($0.description) }
                return run
            } catch let error as CancellationError {
                throw error
            } catch {
                throw UpstreamError(settings.redact("\(error)"))
            }
        }
    }

    /// TourAPI's `locationBasedList2` as the server's fallback (`TourAPIAreaFetch`), every error redacted.
    static func fallback(path: String, _ settings: TourAPISyncOptions) -> UpstreamFallback {
        let importer = syncImporter(command: "tourapi")
        // The region index its imports check codes with is loaded now, before the server listens, not
        // by the first query that waits for upstream (seconds, which would leave it `upstream-slow`).
        _ = try? importer.regions?()
        let fetch = TourAPIAreaFetch(cachePath: path, options: settings, importer: importer)
        return UpstreamFallback(source: "tourapi") { area in
            // TourAPI has Korea's places only: an area outside its box has nothing to ask for.
            guard (32.5...39.0).contains(area.lat), (124.0...132.0).contains(area.lon) else { return true }
            do { return try fetch.isKnown(area: area.key) } catch { throw UpstreamError(settings.redact("\(error)")) }
        } fetch: { area in
            do {
                _ = try await fetch.fetch(area: area.key, lat: area.lat, lon: area.lon, radius: area.radius)
            } catch {
                throw UpstreamError(settings.redact("\(error)"))
            }
        }
    }
}

/// An upstream failure as the server logs it: its text, secrets already redacted.
struct UpstreamError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The sync's importer, handed to the server's background tasks. It is used by one task at a time (a
/// sync run, or a fallback fetch whose import takes the cache's write lock).
final class SendableImporter: @unchecked Sendable {
    let importer: Importer
    init(_ importer: Importer) { self.importer = importer }
}
