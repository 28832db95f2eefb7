import Foundation
import NearbyKit
import Testing

@testable import NearbyServer

/// `LargeAnswers`: at most `limit` writing, the others served first come first served, a waiter sent
/// away at its deadline or at shutdown, a paused writer's place handed on. Nothing here blocks a
/// thread of the cooperative pool (a writer's blocking wait runs on a `Thread` of its own), and the
/// deadlines are long: other suites' tests block the pool's threads for seconds at a time.
@Suite struct LargeAnswersTests {
    /// Polls `condition` for up to 2 minutes.
    private func eventually(_ condition: () -> Bool) async -> Bool {
        let end = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < end {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    /// Runs `body` on a thread of its own; `done` is true once it has returned.
    private final class OnThread: @unchecked Sendable {
        private let lock = NSLock()
        private var ended = false
        private(set) var error: (any Error)?
        /// When `body` returned, read on its own thread: a busy cooperative pool does not delay it.
        private var endedAt: ContinuousClock.Instant?
        init(_ body: @escaping @Sendable () throws -> Void) {
            Thread {
                var failure: (any Error)?
                do { try body() } catch { failure = error }
                let now = ContinuousClock.now
                self.lock.withLock {
                    self.error = failure
                    self.ended = true
                    self.endedAt = now
                }
            }.start()
        }
        var done: Bool { lock.withLock { ended } }
        var end: ContinuousClock.Instant? { lock.withLock { endedAt } }
    }

    @Test func testWaitersGetTheirPlacesInTheOrderTheyCame() async throws {
        let answers = LargeAnswers(limit: 1)
        let first = try await answers.enter(timeout: .seconds(1))
        final class Order: @unchecked Sendable {
            let lock = NSLock()
            var names: [Int] = []
            func add(_ n: Int) { lock.withLock { names.append(n) } }
        }
        let order = Order()
        var tasks: [Task<LargeAnswers.Ticket, any Error>] = []
        for n in 1...5 {
            tasks.append(
                Task {
                    let ticket = try await answers.enter(timeout: .seconds(600))
                    order.add(n)
                    return ticket
                })
            // Each waiter is in line before the next comes.
            #expect(await eventually { answers.counts.waiting == n })
        }
        #expect(answers.counts.writing == 1)
        var holder = first
        for n in 1...5 {
            holder.end()
            let next = try await tasks[n - 1].value
            #expect(order.lock.withLock { order.names } == Array(1...n))
            #expect(answers.counts == (writing: 1, waiting: 5 - n, open: 0))
            holder = next
        }
        holder.end()
        #expect(answers.counts == (writing: 0, waiting: 0, open: 0))
    }

    @Test func testAWaiterPastItsDeadlineIsBusyAndLeavesTheLine() async throws {
        let answers = LargeAnswers(limit: 1)
        let held = try await answers.enter(timeout: .seconds(1))
        let start = ContinuousClock.now
        await #expect(throws: LargeAnswers.Busy.self) { _ = try await answers.enter(timeout: .milliseconds(100)) }
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        #expect(answers.counts.waiting == 0)
        #expect(APIError(LargeAnswers.Busy(limit: 1, deadline: .milliseconds(100))).status.code == 503)
        held.end()
        // The place went back to the pool, not to the waiter that left.
        let again = try await answers.enter(timeout: .zero)
        again.end()
    }

    @Test func testAPausedWriterGivesItsPlaceToTheNextAndQueuesBehindIt() async throws {
        let answers = LargeAnswers(limit: 1)
        let writer = try await answers.enter(timeout: .seconds(1))
        let waiter = Task { try await answers.enter(timeout: .seconds(600)) }
        #expect(await eventually { answers.counts.waiting == 1 })
        writer.pause()  // its client stopped reading
        let second = try await waiter.value
        #expect(answers.counts.writing == 1)
        // The client reads again: the writer waits (on its thread) until the second one's place is free.
        let resumed = OnThread { try writer.resume() }
        #expect(await eventually { answers.counts.waiting == 1 })
        #expect(!resumed.done)
        second.end()
        #expect(await eventually { resumed.done })
        #expect(resumed.error == nil)
        #expect(answers.counts == (writing: 1, waiting: 0, open: 0))
        writer.end()
        #expect(answers.counts.writing == 0)
    }

    @Test func testShutdownSendsWaitersAwayAndCancelsOpenStreams() async throws {
        let answers = LargeAnswers(limit: 1)
        let writer = try await answers.enter(timeout: .seconds(1))
        let channel = BlockChannel(capacity: 1, stallTimeout: 60)
        writer.attach(channel)
        // A writer whose client never reads waits in `put`, its place given up, until shutdown wakes it.
        let blocked = OnThread {
            defer { writer.end() }
            try channel.put([1], pause: { writer.pause() }, resume: { try writer.resume() })
        }
        #expect(await eventually { answers.counts.writing == 0 })
        let waiter = Task { try await answers.enter(timeout: .seconds(600)) }
        let second = try await waiter.value  // the stalled writer's place
        let third = Task { try await answers.enter(timeout: .seconds(600)) }
        #expect(await eventually { answers.counts.waiting == 1 })
        let start = ContinuousClock.now
        answers.shutdown()
        await #expect(throws: LargeAnswers.Busy.self) { _ = try await third.value }
        #expect(await eventually { blocked.done }, "the stalled writer woke")
        #expect(blocked.error is BlockChannel.Cancelled)
        #expect(answers.counts.open == 0)
        // Timed on the writer's own thread: the test's task may resume late when other suites hold the pool.
        #expect(
            blocked.end.map { $0 - start < .seconds(30) } == true, "woken by shutdown, not by its 60 s stall timeout")
        await #expect(throws: LargeAnswers.Busy.self) { _ = try await answers.enter(timeout: .seconds(1)) }
        second.end()
    }

    @Test func testACancelledReaderEndsAWaitingNext() async throws {
        let channel = BlockChannel()
        let reader = Task { try await channel.next() }
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        await #expect(throws: BlockChannel.Cancelled.self) { _ = try await reader.value }
        #expect(throws: BlockChannel.Cancelled.self) { try channel.put([1]) }
    }
}
