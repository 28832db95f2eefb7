import Foundation
import NearbyKit

/// Which engine a bench run measures.
public enum BenchEngineKind: String, CaseIterable, Sendable {
    case memory, sqlite
    /// The cache's index snapshot, mapped (what `nearby query` and `nearby serve` use), over the places
    /// imported as for `sqlite`; answered without records, ids only (as `fields=id` over HTTP), so that
    /// its figures are the query's and not the cache's reads of the rows.
    case snapshot
}

/// The engine under test with what it took to build it.
public struct BenchSetup {
    /// One engine per thread (the memory engine is one shared instance; SQLite connections, and the
    /// snapshot engines that fetch through them, are per thread).
    public let engines: [any QueryEngine]
    public let placeCount: Int
    public var document: BenchDocument
    /// Removes temporary files.
    public let cleanup: () -> Void

    /// Loads the places, builds the engine and records load/import/build times and memory.
    public static func make(places path: String, engine kind: BenchEngineKind, threads: Int, command: String) throws
        -> BenchSetup
    {
        let progress = BenchProgress(command)
        progress.say("loading \(path)")
        var doc = BenchDocument(command: command, engine: kind.rawValue, threads: threads)
        let (places, loadSeconds) = try BenchClock.measure { try Workload.readPlaces(path: path) }
        doc.seconds.load = loadSeconds
        doc.workload = BenchWorkloadInfo(places: path, placeCount: places.count)
        progress.say("building the \(kind.rawValue) engine over \(places.count) places")
        doc.memory.beforeBuild = ResidentMemory.now()
        let engines: [any QueryEngine]
        var cleanup: () -> Void = {}
        switch kind {
        case .memory:
            let (engine, seconds) = BenchClock.measure { MemoryEngine(places: places) }
            doc.seconds.build = seconds
            engines = Array(repeating: engine, count: threads)
        case .sqlite, .snapshot:
            let (engineSet, importSeconds, buildSeconds, remove) = try BenchSQLite.make(
                places, threads: threads, snapshot: kind == .snapshot)
            doc.seconds.import = importSeconds
            doc.seconds.build = buildSeconds
            engines = engineSet
            cleanup = remove
        }
        doc.memory.afterBuild = ResidentMemory.now()
        if let before = doc.memory.beforeBuild?.rssKiB, let after = doc.memory.afterBuild?.rssKiB, !places.isEmpty {
            doc.memory.buildBytesPerPlace = Double((after - before) * 1024) / Double(places.count)
        }
        return BenchSetup(engines: engines, placeCount: places.count, document: doc, cleanup: cleanup)
    }
}

/// Monotonic time for measurements.
public enum BenchClock {
    @inline(__always) public static func nanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Runs `body` once and returns its result with the seconds it took.
    public static func measure<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = nanos()
        let value = try body()
        return (value, Double(nanos() - start) / 1e9)
    }
}

/// A progress line on stderr for one bench command (`StandardError.progress`: only on a terminal).
public struct BenchProgress: Sendable {
    public let command: String

    public init(_ command: String) { self.command = command }

    public func say(_ text: String) { StandardError.progress("[bench \(command)] \(text)") }

    public func done() { StandardError.progress("") }
}
