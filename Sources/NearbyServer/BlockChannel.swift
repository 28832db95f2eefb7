import Foundation
import NearbyKit

/// Hands output blocks from a writer thread to an async response body, at most `capacity` blocks
/// ahead: for a slow client the writer waits instead of holding the whole answer in memory.
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

    /// Writer side: queues `block`, waiting while the reader is `capacity` blocks behind.
    func put(_ block: [UInt8]) throws {
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
        while blocks.count >= capacity && !cancelled {
            if !condition.wait(until: deadline) { cancelled = true }
        }
        let gone = cancelled
        condition.unlock()
        if gone { throw Cancelled() }
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

    /// Reader side: the next block, or nil at the end.
    func next() async throws -> [UInt8]? {
        try await withCheckedThrowingContinuation { c in
            condition.lock()
            if !blocks.isEmpty {
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
    }

    /// Reader side: stop the writer.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}
