import Foundation

/// One sync at a time on a cache: an exclusive `flock` on `<cache>.sync-lock`, held for the whole run
/// and let go by the kernel however the process ends (a `kill -9` included). Imports do not take it:
/// they take the cache's own write lock for their one transaction, as each page of a sync does.
public final class SyncLock {
    private let fd: Int32

    /// Takes the lock, or throws `SyncStop` when another sync holds it.
    public init(cachePath: String) throws {
        let path = cachePath + ".sync-lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw SyncStop(
                what: "cannot open the sync lock \(path): \(String(cString: strerror(errno)))",
                advice: "check that the cache's folder is writable")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw SyncStop(
                what: "another nearby sync is running on \(cachePath)",
                advice: "wait for it to end (or stop it); a sync stopped at any point continues where it was")
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}

/// Runs async work from a synchronous command (a `ParsableCommand`'s `run`) and waits for it.
public enum Blocking {
    public static func run<T>(_ body: @escaping () async throws -> T) throws -> T {
        let box = Box(body)
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.result = .success(try await box.body()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    private final class Box<T>: @unchecked Sendable {
        // @unchecked: the body runs on the task while the caller waits; the result is written before
        // `signal` and read after `wait`.
        let body: () async throws -> T
        var result: Result<T, any Error>?
        init(_ body: @escaping () async throws -> T) { self.body = body }
    }
}
