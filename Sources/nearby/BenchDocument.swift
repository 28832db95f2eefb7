import Foundation
import NearbyStore

/// The one JSON document every `nearby bench` subcommand prints (documented in docs/bench-json.md).
/// Fields a subcommand does not measure are absent. Times are seconds, latencies microseconds.
struct BenchDocument: Codable {
    static let currentSchema = "nearby-bench/1"
    var schema = currentSchema
    /// radius, knn, bbox, sortfilter or carousel.
    var command: String
    /// How the run departs from the workload's own queries (`bench radius --category/--sort/--limit`),
    /// e.g. "category 39, sort title, limit 30"; absent for the workload as defined.
    var variant: String?
    var engine: String?
    var distance: String?
    var workload: BenchWorkloadInfo?
    var threads: Int?
    var `repeat`: Int?
    var machine = BenchMachine.current()
    var seconds = BenchSeconds()
    var memory = BenchMemory()
    /// The whole run, then one group per radius (radius, bbox) or per k (knn).
    var groups: [BenchGroup]?
    /// Per query (and k): its answer's identity, in workload order.
    var answers: [BenchAnswer]?
    /// sortfilter: items (a)–(f).
    var items: [BenchItem]?
    /// carousel: throughput of the debounce → distinct → selection pipeline.
    var carousel: BenchCarousel?

    /// Writes the document as one line of JSON on stdout.
    func print() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        FileHandle.standardOutput.write(data)
    }
}

struct BenchWorkloadInfo: Codable {
    var places: String
    var queries: String?
    var placeCount: Int
    var queryCount: Int?
}

/// Where the numbers were measured.
struct BenchMachine: Codable {
    var cpu: String?
    var cores: Int
    var memoryKiB: Int?

    static func current() -> BenchMachine {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        func value(_ text: String, _ key: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(key) }
                .flatMap { $0.split(separator: ":", maxSplits: 1).last }
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return BenchMachine(
            cpu: value(cpuinfo, "model name"),
            cores: ProcessInfo.processInfo.activeProcessorCount,
            memoryKiB: value(meminfo, "MemTotal").flatMap { Int($0.filter(\.isNumber)) })
    }
}

struct BenchSeconds: Codable {
    /// Reading and parsing the places TSV.
    var load: Double?
    /// sqlite engine: importing the places into a fresh temporary cache.
    var `import`: Double?
    /// Building the engine: the in-memory index and columns, or opening the SQLite engine.
    var build: Double?
    /// Wall time of all queries (every repeat, all threads).
    var queries: Double?
}

/// Resident memory (VmRSS / VmHWM) at the points of a run.
struct BenchMemory: Codable {
    var beforeBuild: ResidentMemory?
    var afterBuild: ResidentMemory?
    var afterQueries: ResidentMemory?
    /// (afterBuild − beforeBuild) RSS per place: what building the engine added, in bytes.
    var buildBytesPerPlace: Double?
}

/// Latency statistics of one group of queries.
struct BenchGroup: Codable {
    /// "all", "radius=500", "k=10", ...
    var name: String
    var queries: Int
    /// Per-query latency, microseconds (median of the repeats of each query).
    var latencyMicros: LatencyStats
    /// Queries per second: for "all" the measured wall-clock rate over every thread; for the other
    /// groups 1e6 / mean latency (one thread's rate on that group).
    var queriesPerSecond: Double
    /// Rows returned (after limits), summed over the group.
    var totalResults: Int
    /// Matches before limits, summed over the group.
    var totalMatches: Int
}

/// One answer's identity: two engines agree on a query when `total` and `checksum` are equal.
struct BenchAnswer: Codable, Equatable {
    var qid: Int
    /// knn only: the k asked for.
    var k: Int?
    var total: Int
    var returned: Int
    /// First 16 hex digits of sha1 of the returned ids joined by "," (workload README).
    var checksum: String
}

/// One sort/filter item: its median time over the runs, with the answer it gave.
struct BenchItem: Codable {
    var name: String
    var description: String
    var runs: Int
    var medianMicros: Double
    var minMicros: Double
    var rows: Int
    var total: Int
    var checksum: String
}

struct BenchCarousel: Codable {
    var events: Int
    var runs: Int
    /// Median over the runs.
    var eventsPerSecond: Double
    var medianSeconds: Double
    /// Selections the pipeline emitted (after debounce and distinct).
    var selections: Int
    /// Location-triggered re-queries (`--places`), or nil.
    var requery: BenchRequery?
}

/// The cost of the nearby query a location update triggers in the carousel simulator.
struct BenchRequery: Codable {
    var places: Int
    var updates: Int
    /// Updates that passed the distance filter and re-ran the query.
    var queries: Int
    /// Median over the runs of (loop time / queries): the query plus the simulator around it.
    var microsPerQuery: Double
    var resultsPerQuery: Double
}
