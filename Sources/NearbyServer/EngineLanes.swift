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
final class LanePool: @unchecked Sendable {
    private let lock = NSLock()
    private var free: [EngineLane]
    /// Requests waiting for a lane, first come first served, from `waitingStart` on.
    private var waiting: [((EngineLane) -> Void)?] = []
    private var waitingStart = 0

    static let queue = DispatchQueue(label: "nearby.queries", attributes: .concurrent)

    init(_ lanes: [EngineLane]) { free = lanes }

    /// Runs `body` on a free lane and returns its result, or throws `DeadlineExceeded` once `timeout`
    /// has passed (the body, if it started, still runs to its end). `small` work with a lane free runs
    /// here and now, and gets `DeadlineExceeded` when it ends past its deadline.
    func run<T: Sendable>(timeout: Duration, small: Bool, _ body: @escaping @Sendable (EngineLane) throws -> T)
        async throws -> T
    {
        if small, let result = try runAtOnce(timeout: timeout, body) { return result }
        // The deadline is a timer on the request's event loop and the result is handed back there: no
        // libdispatch timer thread to wake, and the request's task resumes on the loop that runs it.
        let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? MultiThreadedEventLoopGroup.singleton.any()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let request = PendingRequest(continuation, loop: loop)
            request.timer = loop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) { request.expire(timeout) }
            acquire { lane in
                Self.queue.async {
                    guard request.start() else { return self.release(lane) }
                    let result = Result { try body(lane) }
                    self.release(lane)
                    request.finish(result)
                }
            }
        }
    }

    /// `body`'s result from a lane that is free now, run on this thread, or nil when every lane is busy;
    /// `DeadlineExceeded` when it ends past `timeout` (no timer: a clock check at its end).
    func runAtOnce<T>(timeout: Duration, _ body: (EngineLane) throws -> T) throws -> T? {
        guard let lane = takeFree() else { return nil }
        let start = ContinuousClock.now
        defer { release(lane) }
        let result = try body(lane)
        guard ContinuousClock.now - start <= timeout else { throw DeadlineExceeded(started: true, limit: timeout) }
        return result
    }

    /// A free lane, or nil when all are busy (then the caller queues).
    private func takeFree() -> EngineLane? {
        lock.lock()
        defer { lock.unlock() }
        return free.popLast()
    }

    private func acquire(_ take: @escaping (EngineLane) -> Void) {
        lock.lock()
        if let lane = free.popLast() {
            lock.unlock()
            take(lane)
        } else {
            waiting.append(take)
            lock.unlock()
        }
    }

    private func release(_ lane: EngineLane) {
        lock.lock()
        guard waitingStart < waiting.count else {
            free.append(lane)
            waiting.removeAll(keepingCapacity: true)
            waitingStart = 0
            lock.unlock()
            return
        }
        let next = waiting[waitingStart]!
        waiting[waitingStart] = nil
        waitingStart += 1
        if waitingStart >= 256 && waitingStart * 2 >= waiting.count {
            waiting.removeFirst(waitingStart)
            waitingStart = 0
        }
        lock.unlock()
        next(lane)
    }
}

/// One request's continuation, resumed exactly once, on its event loop: by its result or by its deadline.
private final class PendingRequest<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var started = false
    private let loop: any EventLoop
    /// Fires `expire` at the deadline on `loop`; cancelled by `finish`. Set before the request is shared.
    var timer: Scheduled<Void>?

    init(_ continuation: CheckedContinuation<T, any Error>, loop: any EventLoop) {
        self.continuation = continuation
        self.loop = loop
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
        lock.lock()
        let c = continuation
        continuation = nil
        let t = timer
        timer = nil
        lock.unlock()
        t?.cancel()
        if let c { loop.execute { c.resume(with: result) } }
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
