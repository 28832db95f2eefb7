import Foundation
import Logging
import NearbyKit
import ServiceLifecycle

/// One generation of the cache, opened: the engine over it and a connection for lookups by id.
/// Requests take the current snapshot once and keep it to the end, so a swap never fails them.
public final class EngineSnapshot: @unchecked Sendable {
    public let generation: Int64
    public let count: Int
    private let engine: any QueryEngine
    private let lookup: (String) throws -> Place?
    /// Guards the lookup connection and, for a non-concurrent engine, the engine.
    private let lock = NSLock()
    private let isConcurrent: Bool

    init(path: String, provider: EngineProvider) throws {
        let cache = try PlaceCache(path: path, readOnly: true)
        generation = try cache.generation()
        count = try cache.count()
        engine = try provider.open(cache)
        lookup = { try cache.place(id: $0) }
        isConcurrent = provider.isConcurrent
    }

    /// The postgis engine over the database at `url`: one connection, so one query at a time (run
    /// more server processes to use more cores, docs/scale-out.md). The engine reads the generation
    /// with each query's rows, so a cursor is checked against the database's generation even before
    /// this snapshot is swapped.
    init(postgis url: String) throws {
        let store = try PostGISStore(url: url, readOnly: true)
        generation = try store.generation()
        count = try store.count()
        engine = try PostGISEngine(store: store)
        lookup = { try store.place(id: $0) }
        isConcurrent = false
    }

    public func run(_ query: PlaceQuery) throws -> QueryAnswer {
        if isConcurrent { return try engine.run(query) }
        lock.lock(); defer { lock.unlock() }
        return try engine.run(query)
    }

    public func place(id: String) throws -> Place? {
        lock.lock(); defer { lock.unlock() }
        return try lookup(id)
    }
}

/// The engine the server answers from, swapped atomically when another process writes the cache.
public final class LiveEngine: @unchecked Sendable {
    /// The cache file, or the database URL when `isPostGIS`.
    public let path: String
    let provider: EngineProvider
    public let isPostGIS: Bool
    private let lock = NSLock()
    private var snapshot: EngineSnapshot

    public init(path: String, provider: EngineProvider = .default) throws {
        self.path = path; self.provider = provider; isPostGIS = false
        snapshot = try EngineSnapshot(path: path, provider: provider)
    }

    /// Answers from the PostgreSQL/PostGIS database at `url` (`nearby serve --engine postgis`).
    public init(postgis url: String) throws {
        path = url; provider = .default; isPostGIS = true
        snapshot = try EngineSnapshot(postgis: url)
    }

    private func open() throws -> EngineSnapshot {
        isPostGIS ? try EngineSnapshot(postgis: path) : try EngineSnapshot(path: path, provider: provider)
    }

    public var current: EngineSnapshot {
        lock.lock(); defer { lock.unlock() }
        return snapshot
    }

    /// Opens the cache again when its generation changed; returns the new snapshot, or nil when unchanged.
    /// The old snapshot lives on in the requests that hold it.
    func reloadIfChanged(watcher: Watcher) throws -> EngineSnapshot? {
        let generation = try watcher.generation()
        guard generation != current.generation else { return nil }
        let fresh = try open()
        lock.lock(); snapshot = fresh; lock.unlock()
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

/// Polls the cache's generation every `interval` and reloads off the request threads.
struct ReloadService: Service {
    let engine: LiveEngine
    let interval: Duration
    let logger: Logger

    func run() async throws {
        let watcher = try Watcher(engine)
        let thread = DispatchQueue(label: "nearby.reload")
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await Task.sleep(for: interval)
            let result: Result<EngineSnapshot?, any Error> = await withCheckedContinuation { done in
                thread.async { done.resume(returning: Result { try engine.reloadIfChanged(watcher: watcher) }) }
            }
            switch result {
            case .success(let fresh?):
                logger.info("reloaded", metadata: ["generation": "\(fresh.generation)", "places": "\(fresh.count)"])
            case .success(nil): break
            case .failure(let error):
                // A failed reload (a damaged write, a vanished file) keeps the last good snapshot serving.
                logger.error("reload failed; still serving the last good generation", metadata: ["error": "\(error)"])
            }
        }
    }
}
