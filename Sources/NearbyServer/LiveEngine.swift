import Foundation
import Logging
import NearbyKit
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

    /// Opens `lanes` engines over the cache at `path` (one engine shared by all when the provider's
    /// engine is concurrent).
    init(path: String, provider: EngineProvider, lanes n: Int) throws {
        precondition(n >= 1)
        var attempt = 0
        while true {
            attempt += 1
            var opened: [EngineLane] = []
            var shared: (any QueryEngine)?
            for _ in 0..<n {
                let cache = try PlaceCache(path: path, readOnly: true)
                let engine = try shared ?? provider.open(cache)
                if provider.isConcurrent { shared = engine }
                opened.append(EngineLane(engine: engine, cache: cache))
            }
            let generations = Set(try opened.map { try $0.cache.generation() })
            if generations.count == 1 {
                generation = generations.first!
                count = try opened[0].cache.count()
                laneCount = n
                lanes = LanePool(opened)
                return
            }
            guard attempt < 3 else {
                throw APIError(.serviceUnavailable, "the cache changed while it was being opened, three times in a row")
            }
        }
    }

    /// The query's answer, from a free lane, or `DeadlineExceeded` after `timeout`.
    public func run(_ query: PlaceQuery, timeout: Duration) async throws -> QueryAnswer {
        try await lanes.run(timeout: timeout) { try $0.engine.run(query) }
    }

    public func place(id: String, timeout: Duration) async throws -> Place? {
        try await lanes.run(timeout: timeout) { try $0.cache.place(id: id) }
    }
}

/// The engine the server answers from, swapped atomically when another process writes the cache.
public final class LiveEngine: @unchecked Sendable {
    public let path: String
    let provider: EngineProvider
    /// Engines a generation opens: how many queries run at once.
    public let lanes: Int
    private let lock = NSLock()
    private var snapshot: EngineSnapshot

    /// `lanes` defaults to the number of cores (at least 2, so a slow query does not stall the rest).
    public init(path: String, provider: EngineProvider = .default, lanes: Int = LiveEngine.defaultLanes) throws {
        self.path = path; self.provider = provider; self.lanes = max(1, lanes)
        snapshot = try EngineSnapshot(path: path, provider: provider, lanes: self.lanes)
    }

    public static var defaultLanes: Int { max(2, ProcessInfo.processInfo.activeProcessorCount) }

    public var current: EngineSnapshot {
        lock.lock(); defer { lock.unlock() }
        return snapshot
    }

    /// Opens the cache again when its generation changed; returns the new snapshot, or nil when unchanged.
    /// The old snapshot lives on in the requests that hold it.
    func reloadIfChanged(watcher: Watcher) throws -> EngineSnapshot? {
        let generation = try watcher.cache.generation()
        guard generation != current.generation else { return nil }
        let fresh = try EngineSnapshot(path: path, provider: provider, lanes: lanes)
        lock.lock(); snapshot = fresh; lock.unlock()
        return fresh
    }
}

/// The connection that reads the generation, used only on the reload queue.
final class Watcher: @unchecked Sendable {
    let cache: PlaceCache
    init(cache: PlaceCache) { self.cache = cache }
}

/// Polls the cache's generation every `interval` and reloads off the request threads.
struct ReloadService: Service {
    let engine: LiveEngine
    let interval: Duration
    let logger: Logger
    let metrics: ServerMetrics

    func run() async throws {
        let watcher = Watcher(cache: try PlaceCache(path: engine.path, readOnly: true))
        let thread = DispatchQueue(label: "nearby.reload")
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await Task.sleep(for: interval)
            let result: Result<EngineSnapshot?, any Error> = await withCheckedContinuation { done in
                thread.async { done.resume(returning: Result { try engine.reloadIfChanged(watcher: watcher) }) }
            }
            switch result {
            case .success(let fresh?):
                metrics.reload(succeeded: true)
                metrics.serving(fresh)
                logger.info("reloaded", metadata: ["generation": "\(fresh.generation)", "places": "\(fresh.count)"])
            case .success(nil): break
            case .failure(let error):
                metrics.reload(succeeded: false)
                // A failed reload (a damaged write, a vanished file) keeps the last good snapshot serving.
                logger.error("reload failed; still serving the last good generation", metadata: ["error": "\(error)"])
            }
        }
    }
}
