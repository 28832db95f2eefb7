import Foundation
import NearbyKit

/// Hands output blocks from a writer thread to an async response body, at most `capacity` blocks
/// ahead: for a slow client the writer waits instead of holding the whole answer in memory. Either
/// side ends it: the reader by `cancel` (its client went away, its task was cancelled, the server
/// shuts down), which wakes a waiting writer at once; the writer by `finish`.
final class BlockChannel: @unchecked Sendable {
    private let condition = NSCondition()
    private var blocks: [[UInt8]] = []
    private var waiter: CheckedContinuation<[UInt8]?, any Error>?
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    private let capacity: Int
    /// A reader that takes no block for this long has gone (or never came): the writer gives up.
    private let stallTimeout: TimeInterval

    init(capacity: Int = 2, stallTimeout: TimeInterval = 30) {
        self.capacity = capacity
        self.stallTimeout = stallTimeout
    }

    /// The reader went away: `put` throws from now on.
    struct Cancelled: NearbyError {
        var description: String { "the reader went away" }
        var kind: ErrorKind { .io }
    }

    /// Writer side: queues `block`, waiting while the reader is `capacity` blocks behind. A writer that
    /// must wait calls `pause` first and `resume` once the reader has taken a block (a large answer
    /// gives its place up meanwhile, `LargeAnswers.Ticket`).
    func put(_ block: [UInt8], pause: () -> Void = {}, resume: () throws -> Void = {}) throws {
        condition.lock()
        if cancelled {
            condition.unlock()
            throw Cancelled()
        }
        if let w = waiter {
            waiter = nil
            condition.unlock()
            w.resume(returning: block)
            return
        }
        blocks.append(block)
        let deadline = Date(timeIntervalSinceNow: stallTimeout)
        let waits = blocks.count >= capacity && !cancelled
        if waits { pause() }
        while blocks.count >= capacity && !cancelled {
            if !condition.wait(until: deadline) { cancelled = true }
        }
        let gone = cancelled
        condition.unlock()
        if gone { throw Cancelled() }
        if waits { try resume() }
    }

    /// Writer side: no more blocks; `error` ends the body with a failure.
    func finish(_ error: (any Error)? = nil) {
        condition.lock()
        finished = true
        failure = error
        let w = waiter
        waiter = nil
        condition.unlock()
        if let error { w?.resume(throwing: error) } else { w?.resume(returning: nil) }
    }

    /// Reader side: the next block, or nil at the end; `Cancelled` once cancelled (the task's
    /// cancellation cancels the channel).
    func next() async throws -> [UInt8]? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { c in
                self.take(c)
            }
        } onCancel: {
            cancel()
        }
    }

    private func take(_ c: CheckedContinuation<[UInt8]?, any Error>) {
        condition.lock()
        if cancelled {
            condition.unlock()
            c.resume(throwing: Cancelled())
        } else if !blocks.isEmpty {
            let block = blocks.removeFirst()
            condition.signal()
            condition.unlock()
            c.resume(returning: block)
        } else if finished {
            let error = failure
            condition.unlock()
            if let error { c.resume(throwing: error) } else { c.resume(returning: nil) }
        } else {
            waiter = c
            condition.unlock()
        }
    }

    /// Stops the writer (its `put` throws `Cancelled`, a waiting one at once) and ends a waiting reader.
    func cancel() {
        condition.lock()
        cancelled = true
        let w = waiter
        waiter = nil
        condition.broadcast()
        condition.unlock()
        w?.resume(throwing: Cancelled())
    }
}
