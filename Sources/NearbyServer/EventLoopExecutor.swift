import NIOCore
import NIOPosix
import ServiceLifecycle

/// Runs tasks on SwiftNIO's event loops, each on the loop that woke it: a request read on a loop is
/// handled on that loop's thread. On the default executor each request would cross to the cooperative
/// pool and back (two thread switches, more than a small query costs).
final class EventLoopExecutor: TaskExecutor {
    let group: any EventLoopGroup

    init(_ group: any EventLoopGroup) { self.group = group }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? group.any()
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// A service whose tasks (the HTTP server's connection and request tasks, created in its task
/// groups) prefer the event loops of Hummingbird's default group. `onCancel` runs when the service
/// is cancelled (a graceful shutdown that ran out of time): for what task cancellation does not
/// reach, such as the writer threads of streamed answers.
struct OnEventLoops: Service {
    let app: any Service
    var onCancel: @Sendable () -> Void = {}
    let executor = EventLoopExecutor(MultiThreadedEventLoopGroup.singleton)

    func run() async throws {
        try await withTaskCancellationHandler {
            try await withTaskExecutorPreference(executor) { try await app.run() }
        } onCancel: {
            onCancel()
        }
    }
}
