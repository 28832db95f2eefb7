import Foundation
import Logging
import NearbyKit
import NearbyPostGIS
import ServiceLifecycle

/// One generation of the cache, opened as a few lanes (an engine and its connection each) so that
/// queries run in parallel. Every lane reads the same generation: each engine holds a read
/// transaction from its open, and the lanes are opened again when an import commits in between.
/// Requests take the current snapshot once and keep it to the end, so a swap never fails them.
public final class EngineSnapshot: @unchecked Sendable {
    public let generation: Int64
    public let count: Int
    /// How many requests this generation answers at once.
    public let laneCount: Int
    private let lanes: LanePool
    /// Small queries run at once when a lane is free (not for PostGIS: a query waits on the network).
    private let inline: Bool
    /// The places of the languages synced from TourAPI's language services, loaded on first use and
    /// shared by the lanes (each lane's engine dispatches on the query's language); nil for PostGIS,
    /// which holds the Korean places only.
    let languages: LanguageEngines?

    /// Opens `lanes` engines over the cache at `path` (one engine shared by all when the provider's
    /// engine is concurrent), or, with `postgis`, `lanes` connections to the database at that URL
    /// (the postgis engine reads the generation with each query's rows, so a cursor is checked
    /// against the database's generation even before this snapshot is swapped).
    init(path: String, provider: EngineProvider, lanes n: Int, postgis: Bool = false) throws {
        precondition(n >= 1)
        var attempt = 0
        while true {
            attempt += 1
            var opened: [EngineLane] = []
            var shared: (any QueryEngine)?
            let languages = postgis ? nil : LanguageEngines(path: path)
            for _ in 0..<n {
                if postgis {
                    let store = try PostGISStore(url: path, readOnly: true)
                    opened.append(
                        EngineLane(
                            engine: try PostGISEngine(store: store), place: { try store.place(id: $0) },
                            generation: { try store.generation() }, count: { try store.count() }))
                } else {
                    let cache = try PlaceCache(path: path, readOnly: true)
                    let engine = try shared ?? provider.open(cache)
                    if provider.isConcurrent { shared = engine }
                    opened.append(
                        EngineLane(
                            engine: languages!.dispatching(engine), place: { try cache.place(id: $0) },
                            generation: { try cache.generation() }, count: { try cache.count() }))
                }
            }
            let generations = Set(try opened.map { try $0.generation() })
            if generations.count == 1 {
                generation = generations.first!
                self.languages = languages
                count = try opened[0].count()
                laneCount = n
                lanes = LanePool(opened)
                inline = !postgis && provider.runsSmallQueriesInline
                return
            }
            guard attempt < 3 else {
                throw APIError(.serviceUnavailable, "the cache changed while it was being opened, three times in a row")
            }
        }
    }

    /// Pages of at most this many rows (page × limit) are small work: run at once when a lane is free.
    static let smallRows = 2_000

    /// The query's answer, from a free lane, or `DeadlineExceeded` after `timeout`; without `records`
    /// for a caller that writes only the rows' ids (`QueryEngine.run(_:records:)`).
    ///
    /// A larger page of a circle is small work too when the circle holds at most `smallRows` matches
    /// (a third of the radius + category workload asks for every match, most often a few dozen): its
    /// total, from a one-row page of the same query, says so, and the page then runs at once as well.
    /// Otherwise it takes the query queue, like any work that waits for a lane.
    public func run(_ query: PlaceQuery, records: Bool = true, timeout: Duration) async throws -> QueryAnswer {
        try await run(query, timeout: timeout) { lane, q in try lane.engine.run(q, records: records) }
    }

    /// `body` on a lane's engine (the language dispatch over the cache's engine), as a long query's
    /// work: the query queue, a dispatch thread, `DeadlineExceeded` after `timeout`.
    func withEngine<T: Sendable>(
        timeout: Duration, _ body: @escaping @Sendable (any QueryEngine) throws -> T
    ) async throws -> T {
        try await lanes.run(timeout: timeout, small: false, short: false) { lane in try body(lane.engine) }
    }

    /// `query`'s answer for a writer that streams a large page (`PlacesAPI.streamAbove` rows and more):
    /// the rows without their records (some 16 bytes a row), which `places(ids:)` fetches a chunk at a
    /// time as the answer is written. An answer of at most `fetchUpTo` rows gets its records at once,
    /// from the lane that answered (as `run(_:records:timeout:)` would give them), when `records`.
    func runForStreaming(_ query: PlaceQuery, records: Bool, fetchUpTo: Int, timeout: Duration) async throws
        -> QueryAnswer
    {
        try await run(query, timeout: timeout) { lane, q in
            var answer = try lane.engine.run(q, records: false)
            if records && answer.rows.count <= fetchUpTo {
                answer.rows = try answer.rows.withRecords { ids in try lane.places(ids) }
            }
            return answer
        }
    }

    /// The places with these ids, in that order (missing ones left out), read from this generation by
    /// a lane taken on this thread, first come first served with the requests waiting for one (the
    /// thread waits). For a streaming writer's thread, never an event loop: each chunk of a large
    /// answer takes a lane for a moment, so small requests run between the chunks.
    func places(ids: [String]) throws -> [Place] {
        try lanes.runBlocking { lane in try lane.places(ids) }
    }

    private func run(
        _ query: PlaceQuery, timeout: Duration,
        _ answer: @escaping @Sendable (EngineLane, PlaceQuery) throws -> QueryAnswer
    ) async throws -> QueryAnswer {
        if languages == nil, query.language != .ko {
            throw APIError(.badRequest, parameter: "lang", "the PostGIS engine holds the Korean places only")
        }
        let rows = query.page.multipliedReportingOverflow(by: query.limit)
        let small = !rows.overflow && rows.partialValue >= 1 && rows.partialValue <= Self.smallRows
        if inline, !small, let probe = Self.countingPage(of: query),
            let result = try lanes.runAtOnce(
                timeout: timeout,
                { lane -> QueryAnswer? in
                    guard let total = try lane.engine.run(probe, records: false).total, total <= Self.smallRows else {
                        return nil
                    }
                    return try answer(lane, query)
                }
            ).flatMap({ $0 })
        {
            return result
        }
        return try await lanes.run(timeout: timeout, small: inline && small, short: small) { try answer($0, query) }
    }

    /// A one-row first page of `query`'s circle, whose total is the number of its matches: small work
    /// for the engines over a cache (the circle counted from subtree sizes, or its points visited once,
    /// as a small page's are). Nil for other shapes (k nearest, every place), which are not bounded so,
    /// and for a query without a total.
    static func countingPage(of query: PlaceQuery) -> PlaceQuery? {
        guard case .radius = query.shape, query.countsTotal else { return nil }
        var probe = query
        probe.limit = 1
        probe.page = 1
        probe.cursor = nil
        probe.explain = false
        return probe
    }

    /// `body`'s answer from a lane's engine and its record fetch (the places of some ids, in their
    /// order, from this generation): work that runs several queries or fetches on one lane (a tile).
    /// `small` work runs at once when a lane is free, as small pages do; other work takes the long line.
    func withLane<T: Sendable>(
        small: Bool, timeout: Duration,
        _ body: @escaping @Sendable (any QueryEngine, ([String]) throws -> [Place]) throws -> T
    ) async throws -> T {
        try await lanes.run(timeout: timeout, small: inline && small, short: small) { lane in
            try body(lane.engine, lane.places)
        }
    }

    public func place(id: String, timeout: Duration) async throws -> Place? {
        try await lanes.run(timeout: timeout, small: inline, short: true) { try $0.place(id) }
    }
}

/// The engine the server answers from, swapped atomically when another process writes the cache.
public final class LiveEngine: @unchecked Sendable {
    /// The cache file, or the database URL when `isPostGIS`.
    public let path: String
    let provider: EngineProvider
    public let isPostGIS: Bool
    /// Engines a generation opens: how many queries run at once.
    public let lanes: Int
    private let lock = NSLock()
    private var snapshot: EngineSnapshot

    /// `lanes` defaults to the number of cores (at least 2, so a slow query does not stall the rest).
    public init(path: String, provider: EngineProvider = .default, lanes: Int = LiveEngine.defaultLanes) throws {
        self.path = path
        self.provider = provider
        self.lanes = max(1, lanes)
        isPostGIS = false
        snapshot = try EngineSnapshot(path: path, provider: provider, lanes: self.lanes)
    }

    /// Answers from the PostgreSQL/PostGIS database at `url` (`nearby serve --engine postgis`), one
    /// connection per lane.
    public init(postgis url: String, lanes: Int = LiveEngine.defaultLanes) throws {
        path = url
        provider = .default
        self.lanes = max(1, lanes)
        isPostGIS = true
        snapshot = try EngineSnapshot(path: url, provider: provider, lanes: self.lanes, postgis: true)
    }

    public static var defaultLanes: Int { max(2, ProcessInfo.processInfo.activeProcessorCount) }

    public var current: EngineSnapshot {
        lock.lock()
        defer { lock.unlock() }
        return snapshot
    }

    /// Opens the cache again when its generation changed; returns the new snapshot, or nil when unchanged.
    /// The old snapshot lives on in the requests that hold it.
    func reloadIfChanged(watcher: Watcher) throws -> EngineSnapshot? {
        let generation = try watcher.generation()
        guard generation != current.generation else { return nil }
        let fresh = try EngineSnapshot(path: path, provider: provider, lanes: lanes, postgis: isPostGIS)
        lock.lock()
        snapshot = fresh
        lock.unlock()
        return fresh
    }
}

/// The connection that reads the generation, used only on the reload queue.
final class Watcher: @unchecked Sendable {
    let generation: () throws -> Int64
    init(_ engine: LiveEngine) throws {
        if engine.isPostGIS {
            let store = try PostGISStore(url: engine.path)
            generation = { try store.generation() }
        } else {
            let cache = try PlaceCache(path: engine.path, readOnly: true)
            generation = { try cache.generation() }
        }
    }
}

/// Polls the cache's generation every `interval` and reloads off the request threads (`Reloader`),
/// except while a background sync runs (its finished generation is swapped in when it ends).
struct ReloadService: Service {
    let reloader: Reloader
    let interval: Duration

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if !reloader.held { await reloader.reload() }
        }
    }
}
