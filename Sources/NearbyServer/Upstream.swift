import Foundation
import Logging
import NearbyKit
import ServiceLifecycle

/// A sync the server runs in the background (`nearby serve --sync tourapi`). The server owns the
/// schedule, the reload and what `/healthz` and `/metrics` show; the caller (the `nearby` executable,
/// which links NearbySync) owns what a run does, so NearbyServer depends on no HTTP client.
public struct BackgroundSync: Sendable {
    /// What is synced, for logs and metrics (`tourapi`).
    public var source: String
    /// The time from the end of one run to the start of the next; the first runs at start.
    public var interval: Duration
    /// One run: to its end or to a stop (`SyncRun.stopped`). It writes the cache; the server reloads
    /// after it. Whatever it throws or says must already have every secret redacted.
    public var run: @Sendable () async throws -> SyncRun

    public init(source: String, interval: Duration, run: @escaping @Sendable () async throws -> SyncRun) {
        self.source = source
        self.interval = interval
        self.run = run
    }
}

/// What one background sync run did (NearbySync's `SyncSummary`, as the server shows it).
public struct SyncRun: Sendable {
    public var added = 0, updated = 0, deleted = 0, unchanged = 0, details = 0, codeLists = 0, rejected = 0
    public var requests = 0, retries = 0
    /// Why the run stopped before it was complete (redacted), or nil when it completed.
    public var stopped: String?
    public init() {}
}

/// Asks upstream for an area the cache has never had (`nearby serve --fallback tourapi`): the server
/// rounds a query's circle to an `UpstreamArea`, asks `isKnown` once per area, and otherwise calls
/// `fetch` once for all the queries of that area (single flight), then reloads and answers from the cache.
public struct UpstreamFallback: Sendable {
    /// What is asked, for logs and metrics (`tourapi`).
    public var source: String
    /// How long a query waits for the fetch of its area before it is answered from the cache as it is
    /// (`Nearby-Partial: upstream-slow`); the fetch goes on and later queries see its places.
    public var wait: Duration = .seconds(5)
    /// After a failed fetch, the area's queries are answered from the cache (`upstream-failed`) without
    /// asking upstream again for this long.
    public var retryAfter: Duration = .seconds(60)
    /// Whether the cache already holds the area (fetched before, or synced), by its `UpstreamArea.key`.
    public var isKnown: @Sendable (UpstreamArea) throws -> Bool
    /// Fetches the area's circle into the cache (recording the area there), or throws (redacted).
    public var fetch: @Sendable (UpstreamArea) async throws -> Void

    public init(
        source: String, isKnown: @escaping @Sendable (UpstreamArea) throws -> Bool,
        fetch: @escaping @Sendable (UpstreamArea) async throws -> Void
    ) {
        self.source = source
        self.isKnown = isKnown
        self.fetch = fetch
    }
}

/// A query's circle rounded to an area that covers it: the centre snapped to a 0.01° grid (about
/// 1.1 km by 0.9 km in Korea) and the radius, plus the snap's largest offset (800 m), rounded up to
/// 1, 2, 5, 10 or 20 km (TourAPI's `locationBasedList2` allows at most 20 km: a larger query is covered
/// out to that). Queries whose circles round to one area share one upstream call.
public struct UpstreamArea: Sendable, Hashable {
    public let lat: Double
    public let lon: Double
    /// Metres.
    public let radius: Int

    static let grid = 0.01
    static let steps = [1_000, 2_000, 5_000, 10_000, 20_000]

    public init(lat: Double, lon: Double, radius: Double) {
        self.lat = (lat / Self.grid).rounded() * Self.grid
        self.lon = (lon / Self.grid).rounded() * Self.grid
        let wanted = radius + 800
        self.radius = Self.steps.first { Double($0) >= wanted } ?? Self.steps.last!
    }

    /// `lat,lon,radius`, as `sync_areas` keeps it.
    public var key: String { String(format: "%.2f,%.2f,%d", lat, lon, radius) }
}

/// What the server remembers of the background sync, for `/healthz` (`"sync":{…}`) and `/metrics`.
final class SyncStatus: @unchecked Sendable {
    // @unchecked: every field is behind `lock`.
    private let lock = NSLock()
    let source: String
    private var running = false
    private var runs = 0
    private var lastStarted: Date?
    private var lastFinished: Date?
    private var lastComplete: Date?
    private var outcome: String?
    private var last: SyncRun?
    private var error: String?

    init(source: String) { self.source = source }

    func started() {
        lock.withLock {
            running = true
            lastStarted = Date()
        }
    }

    func finished(_ result: Result<SyncRun, any Error>) {
        lock.withLock {
            running = false
            runs += 1
            lastFinished = Date()
            switch result {
            case .success(let run):
                last = run
                outcome = run.stopped == nil ? "complete" : "stopped"
                error = run.stopped
                if run.stopped == nil { lastComplete = lastFinished }
            case .failure(let e):
                last = nil
                outcome = "failed"
                error = "\(e)"
            }
        }
    }

    /// `{"source":…,"running":…,"runs":…,"last_started":…,"last_finished":…,"last_complete":…,
    /// "outcome":…,"added":…,…,"error":…}`; times in ISO 8601 (UTC), null before the first.
    func json() -> [UInt8] {
        lock.withLock {
            let time = ISO8601DateFormatter()
            func date(_ d: Date?) -> String { d.map { "\"\(time.string(from: $0))\"" } ?? "null" }
            var out = Array("{\"source\":".utf8)
            JSONWriter.appendString(source, to: &out)
            out += Array(",\"running\":\(running),\"runs\":\(runs)".utf8)
            out += Array(",\"last_started\":\(date(lastStarted)),\"last_finished\":\(date(lastFinished))".utf8)
            out += Array(",\"last_complete\":\(date(lastComplete)),\"outcome\":".utf8)
            (outcome.map(JSONScalar.string) ?? .null).append(to: &out)
            if let r = last {
                out += Array(
                    (",\"added\":\(r.added),\"updated\":\(r.updated),\"deleted\":\(r.deleted),\"unchanged\":\(r.unchanged)"
                        + ",\"details\":\(r.details),\"codeLists\":\(r.codeLists),\"rejected\":\(r.rejected)"
                        + ",\"requests\":\(r.requests)"
                        + ",\"retries\":\(r.retries)").utf8)
            }
            out += Array(",\"error\":".utf8)
            (error.map(JSONScalar.string) ?? .null).append(to: &out)
            out.append(UInt8(ascii: "}"))
            return out
        }
    }
}

/// Reloads the engine now, off the request threads: for a background sync that finished and a fallback
/// that imported, so that the next query sees their places without waiting for the next poll. Also what
/// `ReloadService` polls with; `held` makes the poll skip while a background sync runs, so the server
/// swaps in each finished sync's generation, not every page of it.
final class Reloader: @unchecked Sendable {
    // @unchecked: `watcher` is used only on `queue`; `holds` is behind `lock`.
    let engine: LiveEngine
    let logger: Logger
    let metrics: ServerMetrics
    private let queue = DispatchQueue(label: "nearby.reload")
    private var watcher: Watcher?
    private let lock = NSLock()
    private var holds = 0

    init(engine: LiveEngine, logger: Logger, metrics: ServerMetrics) {
        self.engine = engine
        self.logger = logger
        self.metrics = metrics
    }

    var held: Bool { lock.withLock { holds > 0 } }
    func hold() { lock.withLock { holds += 1 } }
    func release() { lock.withLock { holds -= 1 } }

    /// Swaps in the cache's current generation when it changed (one reload at a time).
    func reload() async {
        let result: Result<EngineSnapshot?, any Error> = await withCheckedContinuation { done in
            queue.async {
                done.resume(
                    returning: Result {
                        if self.watcher == nil { self.watcher = try Watcher(self.engine) }
                        return try self.engine.reloadIfChanged(watcher: self.watcher!)
                    })
            }
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

/// Runs a `BackgroundSync` at start and then every interval until the server stops: each run logged
/// (`sync finished` or `sync stopped`/`sync failed`, at warning level for the last two), recorded in
/// `SyncStatus` and the metrics, and its generation swapped in. A run that fails or throws is tried
/// again at the next interval; it never stops the server. Graceful shutdown cancels a run in progress
/// (its pages applied so far stay, with their checkpoint).
struct SyncService: Service {
    let sync: BackgroundSync
    let status: SyncStatus
    let reloader: Reloader
    let logger: Logger
    let metrics: ServerMetrics

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            status.started()
            logger.info("sync started", metadata: ["source": "\(sync.source)"])
            reloader.hold()
            let begun = ContinuousClock.now
            let result: Result<SyncRun, any Error>
            do {
                let run = try await cancelWhenGracefulShutdown { try await sync.run() }
                result = .success(run)
            } catch {
                result = .failure(error)
            }
            reloader.release()
            // Swapped in before the run is reported: once /healthz says it finished, queries see it.
            await reloader.reload()
            status.finished(result)
            metrics.syncFinished(result)
            let seconds = String(format: "%.1f", Double((ContinuousClock.now - begun).components.seconds))
            switch result {
            case .success(let run) where run.stopped == nil:
                logger.info(
                    "sync finished",
                    metadata: [
                        "source": "\(sync.source)", "added": "\(run.added)", "updated": "\(run.updated)",
                        "deleted": "\(run.deleted)", "requests": "\(run.requests)", "s": "\(seconds)",
                    ])
            case .success(let run):
                logger.warning(
                    "sync stopped; what was applied is kept, the next run continues",
                    metadata: [
                        "source": "\(sync.source)", "reason": "\(run.stopped ?? "")", "added": "\(run.added)",
                        "requests": "\(run.requests)", "next_in": "\(sync.interval)",
                    ])
            case .failure(let error):
                if Task.isShuttingDownGracefully || Task.isCancelled { break }
                logger.warning(
                    "sync failed; trying again at the next interval",
                    metadata: ["source": "\(sync.source)", "error": "\(error)", "next_in": "\(sync.interval)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: sync.interval) }
        }
    }
}

/// The areas asked upstream (`UpstreamFallback`): each area's fetch runs once for every query that
/// waits on it, is remembered when it succeeds (in the cache by the fetch, here in `known`), and after a
/// failure is not tried again for `retryAfter`.
final class UpstreamAreas: @unchecked Sendable {
    // @unchecked: every mutable field is behind `lock`.
    let fallback: UpstreamFallback
    let reloader: Reloader
    let logger: Logger
    let metrics: ServerMetrics
    private let lock = NSLock()
    private var known: Set<UpstreamArea> = []
    private var failedUntil: [UpstreamArea: ContinuousClock.Instant] = [:]
    private var flights: [UpstreamArea: Flight] = [:]

    /// Why an answer is partial, the `Nearby-Partial` header's value.
    enum Partial: String, Sendable {
        /// Upstream failed (now, or within `retryAfter`): the answer is what the cache holds.
        case failed = "upstream-failed"
        /// Upstream has not answered within `wait`: the answer is what the cache holds; the fetch goes on.
        case slow = "upstream-slow"
    }

    private final class Flight: @unchecked Sendable {
        // @unchecked: its fields are behind `UpstreamAreas.lock`.
        var waiters: [Int: CheckedContinuation<Partial?, Never>] = [:]
        var next = 0
        /// Set when the fetch has ended: its outcome, for a waiter that comes after.
        var ended: Partial??
    }

    init(fallback: UpstreamFallback, reloader: Reloader, logger: Logger, metrics: ServerMetrics) {
        self.fallback = fallback
        self.reloader = reloader
        self.logger = logger
        self.metrics = metrics
    }

    /// Makes sure the cache holds the area of a query's circle before it runs: nil when it does (or now
    /// does, the engine reloaded), else why the answer will be partial. Never throws: the query is
    /// answered from the cache whatever upstream does.
    func cover(lat: Double, lon: Double, radius: Double) async -> Partial? {
        let area = UpstreamArea(lat: lat, lon: lon, radius: radius)
        enum Step {
            case done(Partial?)
            case wait(Flight, start: Bool)
        }
        let step = lock.withLock { () -> Step in
            if known.contains(area) { return .done(nil) }
            if let until = failedUntil[area] {
                if ContinuousClock.now < until { return .done(.failed) }
                failedUntil[area] = nil
            }
            if let flight = flights[area] { return .wait(flight, start: false) }
            let flight = Flight()
            flights[area] = flight
            return .wait(flight, start: true)
        }
        switch step {
        case .done(let partial): return partial
        case .wait(let flight, let start):
            return await withCheckedContinuation { continuation in
                let id = lock.withLock { () -> Int? in
                    if flight.ended != nil { return nil }
                    flight.next += 1
                    flight.waiters[flight.next] = continuation
                    return flight.next
                }
                guard let id else {
                    continuation.resume(returning: lock.withLock { flight.ended ?? nil })
                    return
                }
                if start { Task { await self.fly(area, flight) } }
                let wait = fallback.wait
                Task {
                    try? await Task.sleep(for: wait)
                    let late = self.lock.withLock { flight.waiters.removeValue(forKey: id) }
                    late?.resume(returning: .slow)
                }
            }
        }
    }

    /// The one fetch of `area`; resumes every query waiting on it.
    private func fly(_ area: UpstreamArea, _ flight: Flight) async {
        let outcome: Partial?
        do {
            if try fallback.isKnown(area) {
                outcome = nil
            } else {
                try await fallback.fetch(area)
                metrics.upstreamFetch(ok: true)
                logger.info(
                    "fetched an area from upstream", metadata: ["source": "\(fallback.source)", "area": "\(area.key)"])
                await reloader.reload()
                outcome = nil
            }
        } catch {
            metrics.upstreamFetch(ok: false)
            logger.warning(
                "upstream failed; answering from the cache",
                metadata: ["source": "\(fallback.source)", "area": "\(area.key)", "error": "\(error)"])
            outcome = .failed
        }
        let waiting = lock.withLock { () -> [CheckedContinuation<Partial?, Never>] in
            flights[area] = nil
            if outcome == nil {
                known.insert(area)
            } else {
                let now = ContinuousClock.now
                // Areas queried once and failed are let go when their pause is over (many areas, a spent budget).
                if failedUntil.count >= 4096 { failedUntil = failedUntil.filter { $0.value > now } }
                failedUntil[area] = now + fallback.retryAfter
            }
            flight.ended = .some(outcome)
            let all = Array(flight.waiters.values)
            flight.waiters = [:]
            return all
        }
        for continuation in waiting { continuation.resume(returning: outcome) }
    }
}
