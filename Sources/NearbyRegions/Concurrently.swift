import Foundation

/// Runs two independent computations at the same time and returns both results: the index builds
/// its two layers' grids this way, so a load uses both cores of a small machine.
enum Concurrently {
    static func run<A: Sendable, B: Sendable>(_ a: @Sendable () -> A, _ b: @Sendable () -> B) -> (A, B) {
        let slots = Slots<A, B>()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            if i == 0 { slots.setFirst(a()) } else { slots.setSecond(b()) }
        }
        return slots.both()
    }

    /// The two results, written once each from different threads under a lock.
    private final class Slots<A, B>: @unchecked Sendable {
        private let lock = NSLock()
        private var first: A?
        private var second: B?

        func setFirst(_ value: A) { lock.withLock { first = value } }
        func setSecond(_ value: B) { lock.withLock { second = value } }
        func both() -> (A, B) { lock.withLock { (first!, second!) } }
    }
}
