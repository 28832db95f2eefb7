import Foundation
import HTTPTypes
import NIOCore
import NIOPosix
import NearbyKit

/// One engine over one generation and the connection (a cache's or a database's) its rows and
/// lookups by id go through: used by one request at a time, so engines with per-call state (a
/// connection, scratch buffers) need no lock, and requests on different lanes run in parallel.
final class EngineLane: @unchecked Sendable {
    let engine: any QueryEngine
    let place: (String) throws -> Place?
    let generation: () throws -> Int64
    let count: () throws -> Int

    init(
        engine: any QueryEngine, place: @escaping (String) throws -> Place?,
        generation: @escaping () throws -> Int64, count: @escaping () throws -> Int
    ) {
        self.engine = engine
        self.place = place
        self.generation = generation
        self.count = count
    }

    /// The places with these ids, in that order, missing ones left out (`PlaceRows.withRecords`).
    func places(_ ids: [String]) throws -> [Place] { try ids.compactMap { try place($0) } }
}

/// A request that got no answer before its deadline: 503, and the work, when it had started, finishes
/// in the background and gives its lane back.
struct DeadlineExceeded: NearbyError {
    /// Whether the request had a lane (the query itself was slow) or was still waiting for one (busy).
    var started: Bool
    var limit: Duration

    var kind: ErrorKind { .unavailable }

    var description: String {
        let ms = limit.milliseconds
        return started
            ? "the request ran longer than this server's \(ms) ms limit (--timeout); narrow it (radius, limit, filters) or page with next"
            : "the server is busy: no query engine was free within \(ms) ms (--timeout); retry"
    }

    /// The answer: the kind's status (503), why, and `Retry-After`.
    var apiError: APIError {
        var e = APIError(HTTPResponse.Status(code: kind.httpStatus), description)
        e.headers[.retryAfter] = "1"
        return e
    }
}

/// The lanes of one generation. Small work (a page of a few rows, a place by id) that finds a lane free
/// runs at once on the request's own thread, and its deadline is a clock check when it ends: no timer,
/// no thread hop (each cost more than a small query). Other work, and work that must wait for a lane,
/// waits without holding a thread, runs on the query queue (never on the event loops or the
/// cooperative pool), and stops waiting at its deadline. At most one piece of work runs per lane.
///
/// Work waits in two lines, each first come first served: short work (a small page, a place by id, a
/// chunk of a streamed answer's records: milliseconds) and long work (a large page: up to a second
/// for 100,000 rows). A lane given back goes to the short line first, so a burst of large pages holds
/// a small request up by the large pages already running, not by all that wait; after
/// `shortBeforeLong` short ones in a row, a waiting long one goes, so that it is not starved either.
/// Long work runs on all lanes but one (with two lanes or more): a small request then never waits for
/// a large page, only for other short work.
final class LanePool: @unchecked Sendable {
    private let lock = NSLock()
    private var free: [EngineLane]
    /// Work waiting for a lane, first come first served.
    private var short = CircularBuffer<(EngineLane) -> Void>()
    private var long = CircularBuffer<(EngineLane) -> Void>()
    /// Short work given a lane while long work waited, since long work last got one.
    private var shortInARow = 0
    /// Lanes running long work, at most `longLanes`.
    private var longRunning = 0
    private let longLanes: Int

    /// Short work given lanes in a row while long work waits, before the long work's turn.
    static let shortBeforeLong = 32

    static let queue = DispatchQueue(label: "nearby.queries", attributes: .concurrent)

    init(_ lanes: [EngineLane]) {
        free = lanes
        longLanes = max(1, lanes.count - 1)
    }

    /// Runs `body` on a free lane and returns its result, or throws `DeadlineExceeded` once `timeout`
    /// has passed (the body, if it started, still runs to its end). `small` work with a lane free runs
    /// here and now, and gets `DeadlineExceeded` when it ends past its deadline. `short` work waits in
    /// the short line (the type's comment).
    func run<T: Sendable>(
        timeout: Duration, small: Bool, short: Bool, _ body: @escaping @Sendable (EngineLane) throws -> T
    ) async throws -> T {
        if small, let result = try runAtOnce(timeout: timeout, body) { return result }
        // The deadline is a timer on the request's event loop and the result is handed back there: no
        // libdispatch timer thread to wake, and the request's task resumes on the loop that runs it.
        // A cancelled task (the server's shutdown ran out of time) stops waiting at once, as at its deadline.
        let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? MultiThreadedEventLoopGroup.singleton.any()
        let request = PendingRequest<T>(loop: loop)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                guard request.begin(continuation) else { return }
                request.timer = loop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) { request.expire(timeout) }
                acquire(short: short) { lane in
                    Self.queue.async {
                        guard request.start() else { return self.release(lane, short: short) }
                        let result = Result { try body(lane) }
                        self.release(lane, short: short)
                        request.finish(result)
                    }
                }
            }
        } onCancel: {
            request.cancel()
        }
    }

    /// `body`'s result from a lane that is free now, run on this thread, or nil when every lane is busy;
    /// `DeadlineExceeded` when it ends past `timeout` (no timer: a clock check at its end).
    func runAtOnce<T>(timeout: Duration, _ body: (EngineLane) throws -> T) throws -> T? {
        guard let lane = takeFree() else { return nil }
        let start = ContinuousClock.now
        defer { release(lane, short: true) }
        let result = try body(lane)
        guard ContinuousClock.now - start <= timeout else { throw DeadlineExceeded(started: true, limit: timeout) }
        return result
    }

    /// `body`'s result from a lane, run on this thread: a free one, or the first one given back after
    /// the short work already waiting has had its own (the thread blocks meanwhile). For the writer
    /// threads of streamed answers only (short work: a chunk of records), never on an event loop or
    /// the cooperative pool.
    func runBlocking<T>(_ body: (EngineLane) throws -> T) rethrows -> T {
        let handed = HandedLane()
        let given = DispatchSemaphore(value: 0)
        acquire(short: true) { lane in
            handed.lane = lane
            given.signal()
        }
        given.wait()
        let lane = handed.lane!
        defer { release(lane, short: true) }
        return try body(lane)
    }

    /// A free lane, or nil when all are busy (then the caller queues).
    private func takeFree() -> EngineLane? {
        lock.lock()
        defer { lock.unlock() }
        return free.popLast()
    }

    private func acquire(short isShort: Bool, _ take: @escaping (EngineLane) -> Void) {
        lock.lock()
        if !free.isEmpty && (isShort || (longRunning < longLanes && long.isEmpty)) {
            let lane = free.removeLast()
            if !isShort { longRunning += 1 }
            lock.unlock()
            take(lane)
        } else {
            if isShort { short.append(take) } else { long.append(take) }
            lock.unlock()
        }
    }

    /// `lane` is free again (after short work or not): to the next in line, or back to `free`.
    private func release(_ lane: EngineLane, short wasShort: Bool) {
        lock.lock()
        if !wasShort { longRunning -= 1 }
        let mayGoLong = !long.isEmpty && longRunning < longLanes
        let next: (EngineLane) -> Void
        if !short.isEmpty && (!mayGoLong || shortInARow < Self.shortBeforeLong) {
            next = short.removeFirst()
            shortInARow = mayGoLong ? shortInARow + 1 : 0
        } else if mayGoLong {
            next = long.removeFirst()
            longRunning += 1
            shortInARow = 0
        } else {
            free.append(lane)
            lock.unlock()
            return
        }
        lock.unlock()
        next(lane)
    }
}

/// The lane `LanePool.runBlocking` was given, handed from the releasing thread to the waiting one.
private final class HandedLane: @unchecked Sendable { var lane: EngineLane? }

/// One request's continuation, resumed exactly once, on its event loop: by its result or by its deadline.
private final class PendingRequest<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var started = false
    private let loop: any EventLoop
    private var cancelled = false
    /// Fires `expire` at the deadline on `loop`; cancelled by `finish`. Set before the request is shared.
    var timer: Scheduled<Void>?

    init(loop: any EventLoop) { self.loop = loop }

    /// The continuation to resume; false (and resumed with `CancellationError`) when already cancelled.
    func begin(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
        lock.lock()
        guard !cancelled else {
            lock.unlock()
            continuation.resume(throwing: CancellationError())
            return false
        }
        self.continuation = continuation
        lock.unlock()
        return true
    }

    /// The request's task was cancelled: it stops waiting (work that started still ends on its lane).
    func cancel() {
        takeContinuation(cancelling: true)?.resume(throwing: CancellationError())
    }

    /// The request got a lane: false when its deadline has already passed (then it does nothing).
    func start() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        started = continuation != nil
        return started
    }

    /// Called on the query queue: the result goes back to the request's loop.
    func finish(_ result: Result<T, any Error>) {
        if let c = takeContinuation(cancelling: false) { loop.execute { c.resume(with: result) } }
    }

    /// The continuation, taken so that nothing else resumes it, with the deadline's timer stopped.
    private func takeContinuation(cancelling: Bool) -> CheckedContinuation<T, any Error>? {
        lock.lock()
        if cancelling { cancelled = true }
        let c = continuation
        continuation = nil
        let t = timer
        timer = nil
        lock.unlock()
        t?.cancel()
        return c
    }

    /// Called on the request's loop by the timer.
    func expire(_ limit: Duration) {
        lock.lock()
        let c = continuation
        continuation = nil
        let started = started
        timer = nil
        lock.unlock()
        c?.resume(throwing: DeadlineExceeded(started: started, limit: limit))
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (s, atto) = components
        let (ns, overflow) = s.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, carry) = ns.addingReportingOverflow(atto / 1_000_000_000)
        return overflow || carry ? .max : sum
    }

    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
