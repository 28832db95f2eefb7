import ArgumentParser
import Foundation
import NearbyCore
import NearbyStore

/// Which engine a bench run measures.
enum BenchEngineKind: String, ExpressibleByArgument, CaseIterable {
    case memory, sqlite
}

/// The places and the engine to measure (every engine-backed bench subcommand).
struct BenchEngineOptions: ParsableArguments {
    @Option(help: "Workload places TSV (id lat lon category title created modified areacode sigungucode).")
    var places: String

    @Option(help: "Engine to measure: memory (packed R-tree) or sqlite (R*Tree in a fresh temporary cache).")
    var engine: BenchEngineKind = .memory
}

/// Options shared by `bench radius`, `bench knn` and `bench bbox`.
struct BenchWorkloadOptions: ParsableArguments {
    @OptionGroup var engineOptions: BenchEngineOptions

    @Option(help: "Workload queries TSV (qid lat lon radius_m limit).")
    var queries: String

    @Option(help: "Distance model: haversine, geodesic, projected[:CRS]. Checksums in the workload README are for haversine.")
    var distance: String = "haversine"

    @Option(name: .customLong("repeat"), help: "Answer every query this many times; a query's latency is the median of its runs.")
    var repetitions: Int = 1

    @Option(help: "Split the queries over this many threads (the engine is shared for reads).")
    var threads: Int = 1

    @Option(help: "Answer only the first N queries of the file (for slow engines on big workloads; 0 = all).")
    var first: Int = 0

    @Option(help: "Also write each answer's identity as TSV to this file (qid [k] total returned checksum).")
    var answers: String?

    func validate() throws {
        guard repetitions >= 1 else { throw BenchUsage.fail("--repeat must be at least 1") }
        guard threads >= 1 else { throw BenchUsage.fail("--threads must be at least 1") }
        guard first >= 0 else { throw BenchUsage.fail("--first must be at least 0") }
        do { _ = try DistanceModel(parsing: distance) } catch { throw BenchUsage.fail("--distance: \(error)") }
    }

    var distanceModel: DistanceModel { (try? DistanceModel(parsing: distance)) ?? .haversine }

    /// Builds the engine and reads the queries, recording the run's settings in the document.
    func setUp(command: String) throws -> (BenchSetup, [WorkloadQuery]) {
        var setup = try BenchSetup.make(engineOptions, threads: threads, command: command)
        var queries = try Workload.readQueries(path: queries)
        if first > 0 { queries = Array(queries.prefix(first)) }
        setup.document.distance = distance
        setup.document.repeat = repetitions
        setup.document.workload?.queries = self.queries
        setup.document.workload?.queryCount = queries.count
        return (setup, queries)
    }
}

/// The engine under test with what it took to build it.
struct BenchSetup {
    /// One engine per thread (the memory engine is one shared instance; SQLite connections are per thread).
    let engines: [any QueryEngine]
    let placeCount: Int
    var document: BenchDocument
    /// Removes temporary files.
    let cleanup: () -> Void

    /// Loads the places, builds the engine and records load/import/build times and memory.
    static func make(_ options: BenchEngineOptions, threads: Int, command: String) throws -> BenchSetup {
        let progress = BenchProgress(command)
        progress.say("loading \(options.places)")
        var doc = BenchDocument(command: command, engine: options.engine.rawValue, threads: threads)
        let (places, loadSeconds) = try BenchClock.measure { try Workload.readPlaces(path: options.places) }
        doc.seconds.load = loadSeconds
        doc.workload = BenchWorkloadInfo(places: options.places, placeCount: places.count)
        progress.say("building the \(options.engine.rawValue) engine over \(places.count) places")
        doc.memory.beforeBuild = ResidentMemory.now()
        let engines: [any QueryEngine]
        var cleanup: () -> Void = {}
        switch options.engine {
        case .memory:
            let (engine, seconds) = BenchClock.measure { MemoryEngine(places: places) }
            doc.seconds.build = seconds
            engines = Array(repeating: engine, count: threads)
        case .sqlite:
            let (engineSet, importSeconds, buildSeconds, remove) = try BenchSQLite.make(places, threads: threads)
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
enum BenchClock {
    @inline(__always) static func nanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Runs `body` once and returns its result with the seconds it took.
    static func measure<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = nanos()
        let value = try body()
        return (value, Double(nanos() - start) / 1e9)
    }
}

/// A progress line on stderr for one bench command (`StandardError.progress`: only on a terminal).
struct BenchProgress: Sendable {
    let command: String

    init(_ command: String) { self.command = command }

    func say(_ text: String) { StandardError.progress("[bench \(command)] \(text)") }

    func done() { StandardError.progress("") }
}
