import CThreadAffinity
import NIOCore
import NearbyKit

/// Pins each event loop's thread to a CPU of its own (`nearby serve --pin-event-loops`).
///
/// Why: a client waiting on an answer and the loop writing it hand the CPU back and forth once a
/// request. Unpinned, the scheduler often wakes the other party on the other core, and waking an idle
/// core is slow, on a virtual machine most of all; pinned, each connection's loop stays on one core and
/// its client is woken beside it (measured in BENCHMARKS.md, "Tuning knobs"). It is an
/// option, off by default, as in nginx (`worker_cpu_affinity`): a pinned loop cannot move away from a
/// core another busy process holds.
public enum EventLoopAffinity {
    /// What a refused pin says (`nearby serve` exits 1 with it).
    public struct Failure: NearbyError {
        public let description: String
        public var kind: ErrorKind { .unsupported }
    }

    /// The CPUs this process may run on (its main thread's affinity), in order; nil where the system
    /// does not say (not Linux).
    public static func allowedCPUs() -> [Int]? { cpus(ofThread: nearby_process_id()) }

    /// The CPUs the calling thread may run on, in order; nil where the system does not say.
    public static func callingThreadCPUs() -> [Int]? { cpus(ofThread: 0) }

    /// Pins the i-th loop of `group` to the i-th CPU the process may use (round robin when the loops
    /// outnumber them) and returns each loop's CPU, in the group's order.
    @discardableResult
    public static func pin(_ group: any EventLoopGroup) async throws -> [Int] {
        guard let allowed = allowedCPUs(), !allowed.isEmpty else {
            throw Failure(description: "--pin-event-loops: this system does not say which CPUs the process may use")
        }
        var chosen: [Int] = []
        for (i, loop) in group.makeIterator().enumerated() {
            let cpu = allowed[i % allowed.count]
            let pinned = try await loop.submit { nearby_pin_calling_thread(Int32(cpu)) == 0 }.get()
            guard pinned else {
                throw Failure(description: "--pin-event-loops: the system refused to pin an event loop to CPU \(cpu)")
            }
            chosen.append(cpu)
        }
        return chosen
    }

    private static func cpus(ofThread tid: Int32) -> [Int]? {
        // 1,024: the mask's size in the C shim.
        var cpus = [Int32](repeating: 0, count: 1_024)
        let n = cpus.withUnsafeMutableBufferPointer { nearby_cpus_of(tid, $0.baseAddress, Int32($0.count)) }
        return n < 0 ? nil : cpus.prefix(Int(n)).map(Int.init)
    }
}
