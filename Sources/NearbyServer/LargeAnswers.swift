import Foundation
import HTTPTypes
import NIOCore
import NIOPosix
import NearbyKit

/// The large answers (pages of more than `PlacesAPI.streamAbove` rows, streamed from writer threads)
/// and the places they take turns for: at most `limit` are being written at once, the others wait
/// first come first served (`--max-large-answers`).
///
/// A writer holds a place while it produces blocks: it fetches its records a chunk at a time through
/// the lanes and encodes them, the work that competes with small requests for lanes and cores. A
/// writer whose client stops reading (its `BlockChannel` full) gives its place to the next in line
/// and queues again, at the back, when the client reads: so a client that never reads holds its
/// buffers (a few hundred KiB, `docs/server.md`) but no place, and cannot keep other large answers
/// waiting. A request that gets no place within what is left of `--timeout` gets 503 (`Retry-After`).
///
/// `shutdown()` (the server's graceful shutdown ran out of time) refuses new answers, wakes every
/// waiter, and cancels every open stream, so that no writer thread waits out its stall timeout.
final class LargeAnswers: @unchecked Sendable {
    /// Large answers written at once.
    let limit: Int
    private let lock = NSLock()
    private var writing = 0
    /// Waiters, first come first served; one whose `wake` is nil has left (expired).
    private var queue = CircularBuffer<Waiter>()
    private var waiting = 0
    /// The streams admitted and not yet ended, writing or not: what `shutdown` cancels.
    private var open: [ObjectIdentifier: BlockChannel] = [:]
    private var closed = false
    private let report: @Sendable (_ writing: Int, _ waiting: Int, _ open: Int) -> Void

    /// `report` is told the counts after each change (under the lock, so in order): `/metrics`.
    init(limit: Int, report: @escaping @Sendable (_ writing: Int, _ waiting: Int, _ open: Int) -> Void = { _, _, _ in })
    {
        precondition(limit >= 1)
        self.limit = limit
        self.report = report
    }

    /// One waiter: `wake` is called once, outside the lock, with whether it got a place.
    private final class Waiter: @unchecked Sendable {
        var wake: ((Bool) -> Void)?
        init(_ wake: @escaping (Bool) -> Void) { self.wake = wake }
    }

    /// No place within the request's deadline, or the server is shutting down: 503 with `Retry-After`.
    struct Busy: NearbyError {
        var limit: Int
        var deadline: Duration
        var shuttingDown = false
        var kind: ErrorKind { .unavailable }
        var description: String {
            shuttingDown
                ? "the server is shutting down; retry"
                : "the server is busy: \(limit) large answers are being written (--max-large-answers) and none "
                    + "ended within \(deadline.milliseconds) ms (--timeout); retry, or ask for a smaller page"
        }
        var apiError: APIError {
            var e = APIError(HTTPResponse.Status(code: kind.httpStatus), description)
            e.headers[.retryAfter] = "1"
            return e
        }
    }

    /// Counts for `/metrics` and tests: answers writing, waiting for a place, and admitted.
    var counts: (writing: Int, waiting: Int, open: Int) {
        lock.withLock { (writing, waiting, open.count) }
    }

    /// A place for a new large answer, waiting (without a thread) up to `timeout` behind the others.
    func enter(timeout: Duration) async throws -> Ticket {
        let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? MultiThreadedEventLoopGroup.singleton.any()
        let limit = self.limit
        let given: Bool = try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            if closed {
                lock.unlock()
                continuation.resume(throwing: Busy(limit: limit, deadline: timeout, shuttingDown: true))
                return
            }
            if writing < limit && waiting == 0 {
                writing += 1
                reportLocked()
                lock.unlock()
                continuation.resume(returning: true)
                return
            }
            let waiter = Waiter { continuation.resume(returning: $0) }
            queue.append(waiter)
            waiting += 1
            reportLocked()
            lock.unlock()
            loop.scheduleTask(in: .nanoseconds(max(0, timeout.nanoseconds))) { self.leave(waiter) }
        }
        guard given else {
            throw Busy(limit: limit, deadline: timeout, shuttingDown: lock.withLock { closed })
        }
        return Ticket(self)
    }

    /// A waiter's deadline passed: it leaves the line (unless it already got its place).
    private func leave(_ waiter: Waiter) {
        lock.lock()
        let wake = waiter.wake
        if wake != nil {
            waiter.wake = nil
            waiting -= 1
            reportLocked()
        }
        lock.unlock()
        wake?(false)
    }

    /// Takes a place again for a writer whose client read on, waiting on this (writer) thread at the
    /// back of the line; false when the server is shutting down.
    fileprivate func reenter() -> Bool {
        lock.lock()
        if closed {
            lock.unlock()
            return false
        }
        if writing < limit && waiting == 0 {
            writing += 1
            reportLocked()
            lock.unlock()
            return true
        }
        final class Outcome: @unchecked Sendable { var given = false }
        let outcome = Outcome()
        let woken = DispatchSemaphore(value: 0)
        queue.append(
            Waiter { given in
                outcome.given = given
                woken.signal()
            })
        waiting += 1
        reportLocked()
        lock.unlock()
        woken.wait()
        return outcome.given
    }

    /// A writer gives its place up: to the first waiter still in line, else back to the pool.
    fileprivate func release() {
        lock.lock()
        var next: ((Bool) -> Void)?
        while next == nil, let waiter = queue.popFirst() {
            next = waiter.wake
            waiter.wake = nil
        }
        if next != nil { waiting -= 1 } else { writing -= 1 }
        reportLocked()
        lock.unlock()
        next?(true)
    }

    fileprivate func register(_ channel: BlockChannel) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return false }
        open[ObjectIdentifier(channel)] = channel
        reportLocked()
        return true
    }

    fileprivate func unregister(_ channel: BlockChannel) {
        lock.lock()
        open[ObjectIdentifier(channel)] = nil
        reportLocked()
        lock.unlock()
    }

    /// Refuses new large answers, sends every waiter away and cancels every open stream: the writer
    /// threads wake (`BlockChannel.cancel`) and end, and so do the response bodies reading them.
    func shutdown() {
        lock.lock()
        closed = true
        var wakes: [(Bool) -> Void] = []
        for waiter in queue {
            if let wake = waiter.wake { wakes.append(wake) }
            waiter.wake = nil
        }
        queue.removeAll()
        waiting = 0
        let channels = Array(open.values)
        reportLocked()
        lock.unlock()
        for wake in wakes { wake(false) }
        for channel in channels { channel.cancel() }
    }

    private func reportLocked() { report(writing, waiting, open.count) }

    /// One large answer's place, from `enter` to `end`: the writer thread pauses it while its client
    /// does not read (`BlockChannel.put`) and ends it once, when it stops writing.
    final class Ticket: @unchecked Sendable {
        private let answers: LargeAnswers
        private var channel: BlockChannel?
        /// Whether the writer holds a place now (only its thread changes it, after `enter`).
        private var holds = true

        fileprivate init(_ answers: LargeAnswers) { self.answers = answers }

        /// The stream this answer is written into: cancelled at shutdown (at once when it has begun).
        func attach(_ channel: BlockChannel) {
            self.channel = channel
            if !answers.register(channel) { channel.cancel() }
        }

        /// The client stopped reading: the place goes to the next in line.
        func pause() {
            guard holds else { return }
            holds = false
            answers.release()
        }

        /// The client read on: a place again, after those in line; `BlockChannel.Cancelled` at shutdown.
        func resume() throws {
            guard !holds else { return }
            guard answers.reenter() else { throw BlockChannel.Cancelled() }
            holds = true
        }

        /// The writer is done (finished, failed or cancelled).
        func end() {
            pause()
            if let channel { answers.unregister(channel) }
        }
    }
}
