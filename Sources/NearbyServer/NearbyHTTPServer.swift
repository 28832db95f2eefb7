import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOPosix
import NearbyKit
import ServiceLifecycle

/// What `nearby serve` is told.
public struct ServerOptions: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port (tests); `onRunning` learns which.
    public var port = 8080
    /// Rows a page at most (`limit`, TourAPI's `numOfRows`).
    public var maxLimit = 100_000
    /// Longer request URLs get 414.
    public var maxURLLength = 8_192
    /// When set, TourAPI requests must carry this `serviceKey`.
    public var serviceKey: String?
    /// How often the cache's generation is checked for another process's import.
    public var reloadInterval: Duration = .milliseconds(500)
    /// A query (waiting for an engine included) that takes longer gets 503; the response body of a
    /// long answer may stream for longer.
    public var requestTimeout: Duration = .seconds(10)
    /// Origins whose pages may call the server from a browser (`*` for any); none: no CORS headers.
    public var corsOrigins: [String] = []
    /// Queries answered at once (engines opened per generation).
    public var lanes = LiveEngine.defaultLanes
    /// The engine each generation is opened with.
    public var engine = EngineProvider.default
    /// Pin each event loop's thread to a CPU of its own (`EventLoopAffinity`) before serving.
    public var pinEventLoops = false
    /// Large answers (pages of more than 2,000 rows, streamed) written at once; the others wait in
    /// line, first come first served, up to `requestTimeout` (`LargeAnswers`). Nil: one per lane.
    public var maxLargeAnswers: Int?
    /// After SIGTERM or SIGINT, requests in flight get this long to finish; then the streams still
    /// open are cancelled, their connections closed, and the server exits.
    public var shutdownTimeout: Duration = .seconds(10)
    /// A sync run at start and then every interval, each finished run's generation swapped in (`--sync`).
    public var sync: BackgroundSync?
    /// Upstream asked for the areas of location queries the cache has never had (`--fallback`).
    public var fallback: UpstreamFallback?
    /// Failed token checks from one address within `authFailureWindow` after which it gets 429 until
    /// the window ends (`AuthFailures`).
    public var authFailureLimit = 10
    public var authFailureWindow: Duration = .seconds(60)
    /// Searches each user's history keeps: a keyword query with a token records its keyword
    /// (`--history-length`).
    public var historyLength = PersonalLayer.defaultHistoryLength

    /// `maxLargeAnswers`, or its default: as many as `lanes`. A writer fetches its records through the
    /// lanes and encodes them on the cores the lanes use: more at once would share the same lanes and
    /// cores, each holding its buffers, and slow the small requests without writing faster.
    public var largeAnswerLimit: Int { max(1, maxLargeAnswers ?? lanes) }

    public init() {}
}

/// The HTTP server: Nearby's API (`/v1/…`), vector tiles (`/tiles/…`), TourAPI's (`/B551011/…`), `/healthz`,
/// the map page (`/`, `MapPage`), on Hummingbird, reloading the engine when the cache changes.
public enum NearbyHTTPServer {
    /// Every path the server answers (`{id}` one path segment); `/openapi.json` documents each.
    public static let paths =
        [
            "/v1/places", "/v1/places/{id}", "/v1/clusters", "/v1/clusters/{id}/children", "/v1/clusters/{id}/leaves",
            "/v1/distance", "/v1/where", "/tiles/{z}/{x}/{y}.mvt", "/healthz", "/metrics", "/openapi.json",
        ]
        + TourAPI.served.map(\.path) + MapPage.paths + MeAPI.routes.map(\.path)

    /// The methods a path template answers (`paths`): GET, but for `/v1/me/…`'s.
    static func methods(_ route: String) -> [HTTPRequest.Method] {
        MeAPI.routes.first { $0.path == route }?.methods ?? [.get]
    }

    /// The template in `paths` that `path` matches (so a router 404 there means a wrong method), or nil.
    /// A `{name}` segment matches any non-empty segment, `{name}.ext` one that ends in `.ext` after something.
    static func route(_ path: Substring) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return templates.first { template in
            let t = template.segments
            return t.count == parts.count
                && zip(t, parts).allSatisfy { t, p in
                    guard t.hasPrefix("{"), let close = t.firstIndex(of: "}") else { return t == p }
                    let suffix = t[t.index(after: close)...]
                    return p.count > suffix.count && p.hasSuffix(suffix)
                }
        }?.path
    }

    /// `paths`, each with its segments, split once.
    private static let templates = paths.map {
        (path: $0, segments: $0.split(separator: "/", omittingEmptySubsequences: false))
    }

    /// The application and its reload service (`metrics` is what `/metrics` shows), for a `ServiceGroup` (the CLI's or a test's).
    public static func services(
        engine: LiveEngine, options: ServerOptions, logger: Logger, metrics: ServerMetrics = ServerMetrics(),
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> [any Service] {
        let router = Router(context: NearbyRequestContext.self)
        let largeAnswers = LargeAnswers(limit: options.largeAnswerLimit) { writing, waiting, open in
            metrics.largeAnswers(writing: writing, waiting: waiting, open: open)
        }
        let reloader = Reloader(engine: engine, logger: logger, metrics: metrics)
        let status = options.sync.map { SyncStatus(source: $0.source) }
        let personal = PersonalAccess(engine: engine, options: options, logger: logger)
        var places = PlacesAPI(engine: engine, options: options, largeAnswers: largeAnswers, personal: personal)
        places.syncStatus = status
        places.upstream = options.fallback.map {
            UpstreamAreas(fallback: $0, reloader: reloader, logger: logger, metrics: metrics)
        }
        let api = places
        let tour = TourAPI(engine: engine, options: options, api: api)
        let clusters = ClustersAPI(engine: engine, options: options, personal: personal)
        let tiles = TilesAPI(engine: engine, options: options, regions: RegionsSource.shared, clusters: clusters)
        router.add(
            middleware: ServerMiddleware(
                maxURLLength: options.maxURLLength,
                route: route,
                errorResponse: { request, error in
                    TourAPI.owns(request.uri.path)
                        ? TourAPI.errorResponse(error, format: TourAPI.errorFormat(request)) : error.response()
                },
                cors: CORSPolicy(origins: options.corsOrigins),
                metrics: metrics
            ))
        router.get("/v1/places") { request, context in try await api.places(request, client: context.client) }
        router.get("/v1/places/:id") { request, context in
            try await api.place(request, id: PlacesAPI.pathSegment(context.parameters.get("id") ?? "", parameter: "id"))
        }
        router.get("/v1/clusters") { request, context in
            try await clusters.answer(request, .zoom, client: context.client)
        }
        router.get("/v1/clusters/:id/children") { request, context in
            try await clusters.answer(
                request, .children, id: context.parameters.get("id") ?? "", client: context.client)
        }
        router.get("/v1/clusters/:id/leaves") { request, context in
            try await clusters.answer(request, .leaves, id: context.parameters.get("id") ?? "", client: context.client)
        }
        router.get("/v1/distance") { request, _ in try api.distance(request) }
        router.get("/v1/where") { request, _ in try api.whereAt(request) }
        router.get("/tiles/:z/:x/{y}.mvt") { request, context in
            try await tiles.tile(
                request, z: context.parameters.get("z") ?? "", x: context.parameters.get("x") ?? "",
                y: context.parameters.get("y") ?? "")
        }
        router.get("/healthz") { _, _ in api.health() }
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.text())))
        }
        router.get("/openapi.json") { _, _ in PlacesAPI.json(OpenAPIDocument.json) }
        for operation in TourAPI.served {
            router.get(RouterPath(operation.path)) { request, _ in
                try await tour.answer(operation, request)
            }
        }
        MapPage().add(to: router)
        MeAPI(access: personal).register(on: router)
        let maxURLLength = options.maxURLLength
        let app = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                RejectingHTTP1Channel(base: HTTP1Channel(responder: responder), maxURLLength: maxURLLength) {
                    path, error in
                    TourAPI.owns(path) ? TourAPI.errorBody(error) : error.json
                }
            },
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "nearby"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? options.port) },
            logger: logger
        )
        metrics.serving(engine.current)
        let reload = ReloadService(reloader: reloader, interval: options.reloadInterval)
        var services: [any Service] = [OnEventLoops(app: app, onCancel: largeAnswers.shutdown), reload]
        if let sync = options.sync, let status {
            services.append(
                SyncService(sync: sync, status: status, reloader: reloader, logger: logger, metrics: metrics))
        }
        return services
    }

    /// Serves the cache at `path` until SIGINT or SIGTERM, then finishes the requests in flight (for at
    /// most `options.shutdownTimeout`).
    public static func run(path: String, options: ServerOptions, logger: Logger) async throws {
        try await run(
            engine: try LiveEngine(path: path, provider: options.engine, lanes: options.lanes),
            options: options, logger: logger)
    }

    /// Serves `engine` (a cache with any engine, or a PostGIS database) until SIGINT or SIGTERM.
    ///
    /// The signal starts a graceful shutdown: the listening socket closes, idle connections close,
    /// and requests in flight go on. After `options.shutdownTimeout` the service group cancels the
    /// server's tasks: `LargeAnswers.shutdown` cancels every open stream (its writer thread wakes),
    /// a response body waiting for its client fails (NIO's writer ends a cancelled write), and each
    /// connection closes as its task ends.
    public static func run(engine: LiveEngine, options: ServerOptions, logger: Logger) async throws {
        if options.pinEventLoops {
            let cpus = try await EventLoopAffinity.pin(MultiThreadedEventLoopGroup.singleton)
            logger.info("event loops pinned", metadata: ["cpus": "\(cpus.map(String.init).joined(separator: ","))"])
        }
        // The address is written whatever the log level: with --port 0 it is the only way to learn the port.
        let always = {
            var l = logger
            l.logLevel = .info
            return l
        }()
        let services = services(engine: engine, options: options, logger: logger) { port in
            always.info(
                "listening",
                metadata: ["host": "\(options.host)", "port": "\(port)", "generation": "\(engine.current.generation)"])
        }
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        configuration.maximumGracefulShutdownDuration = options.shutdownTimeout
        let group = ServiceGroup(configuration: configuration)
        try await group.run()
    }
}
