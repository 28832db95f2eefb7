import Foundation
import NearbyKit

/// The one JSON document every `nearby bench` subcommand prints (documented in docs/bench-json.md).
/// Fields a subcommand does not measure are absent. Times are seconds, latencies microseconds.
public struct BenchDocument: Codable {
    public static let currentSchema = "nearby-bench/1"
    public var schema = currentSchema
    /// radius, knn, bbox, sortfilter or carousel.
    public var command: String
    /// How the run departs from the workload's own queries (`bench radius --category/--sort/--limit`),
    /// e.g. "category 39, sort title, limit 30"; absent for the workload as defined.
    public var variant: String?
    public var engine: String?
    public var distance: String?
    public var workload: BenchWorkloadInfo?
    public var threads: Int?
    public var `repeat`: Int?
    public var machine = BenchMachine.current()
    public var seconds = BenchSeconds()
    public var memory = BenchMemory()
    /// The whole run, then one group per radius (radius, bbox) or per k (knn).
    public var groups: [BenchGroup]?
    /// Per query (and k): its answer's identity, in workload order.
    public var answers: [BenchAnswer]?
    /// sortfilter: items (a)–(f).
    public var items: [BenchItem]?
    /// carousel: throughput of the debounce → distinct → selection pipeline.
    public var carousel: BenchCarousel?

    public init(command: String, engine: String? = nil, threads: Int? = nil) {
        self.command = command
        self.engine = engine
        self.threads = threads
    }

    /// Writes the document as one line of JSON on stdout.
    public func print() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        FileHandle.standardOutput.write(data)
    }
}

public struct BenchWorkloadInfo: Codable {
    public var places: String
    public var queries: String?
    public var placeCount: Int
    public var queryCount: Int?
}

/// Where the numbers were measured.
public struct BenchMachine: Codable {
    public var cpu: String?
    public var cores: Int
    public var memoryKiB: Int?

    public static func current() -> BenchMachine {
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

public struct BenchSeconds: Codable {
    /// Reading and parsing the places TSV.
    public var load: Double?
    /// sqlite engine: importing the places into a fresh temporary cache.
    public var `import`: Double?
    /// Building the engine: the in-memory index and columns, or opening the SQLite engine.
    public var build: Double?
    /// Wall time of all queries (every repeat, all threads).
    public var queries: Double?
}

/// Resident memory (VmRSS / VmHWM) at the points of a run.
public struct BenchMemory: Codable {
    public var beforeBuild: ResidentMemory?
    public var afterBuild: ResidentMemory?
    public var afterQueries: ResidentMemory?
    /// (afterBuild − beforeBuild) RSS per place: what building the engine added, in bytes.
    public var buildBytesPerPlace: Double?
}

/// Latency statistics of one group of queries.
public struct BenchGroup: Codable {
    /// "all", "radius=500", "k=10", ...
    public var name: String
    public var queries: Int
    /// Per-query latency, microseconds (median of the repeats of each query).
    public var latencyMicros: LatencyStats
    /// Queries per second: for "all" the measured wall-clock rate over every thread; for the other
    /// groups 1e6 / mean latency (one thread's rate on that group).
    public var queriesPerSecond: Double
    /// Rows returned (after limits), summed over the group.
    public var totalResults: Int
    /// Matches before limits, summed over the group.
    public var totalMatches: Int
}

/// One answer's identity: two engines agree on a query when `total` and `checksum` are equal.
public struct BenchAnswer: Codable, Equatable {
    public var qid: Int
    /// knn only: the k asked for.
    public var k: Int?
    public var total: Int
    public var returned: Int
    /// First 16 hex digits of sha1 of the returned ids joined by "," (workload README).
    public var checksum: String
}

/// One sort/filter item: its median time over the runs, with the answer it gave.
public struct BenchItem: Codable {
    public var name: String
    public var description: String
    public var runs: Int
    public var medianMicros: Double
    public var minMicros: Double
    public var rows: Int
    /// Nil for an item that does not count its matches (`total=none`).
    public var total: Int?
    public var checksum: String

    public init(
        name: String, description: String, runs: Int, medianMicros: Double, minMicros: Double, rows: Int, total: Int?,
        checksum: String
    ) {
        self.name = name
        self.description = description
        self.runs = runs
        self.medianMicros = medianMicros
        self.minMicros = minMicros
        self.rows = rows
        self.total = total
        self.checksum = checksum
    }
}

public struct BenchCarousel: Codable {
    public var events: Int
    public var runs: Int
    /// Median over the runs.
    public var eventsPerSecond: Double
    public var medianSeconds: Double
    /// Selections the pipeline emitted (after debounce and distinct).
    public var selections: Int
    /// Location-triggered re-queries (`--places`), or nil.
    public var requery: BenchRequery?

    public init(
        events: Int, runs: Int, eventsPerSecond: Double, medianSeconds: Double, selections: Int,
        requery: BenchRequery? = nil
    ) {
        self.events = events
        self.runs = runs
        self.eventsPerSecond = eventsPerSecond
        self.medianSeconds = medianSeconds
        self.selections = selections
        self.requery = requery
    }
}

/// The cost of the nearby query a location update triggers in the carousel simulator.
public struct BenchRequery: Codable {
    public var places: Int
    public var updates: Int
    /// Updates that passed the distance filter and re-ran the query.
    public var queries: Int
    /// Median over the runs of (loop time / queries): the query plus the simulator around it.
    public var microsPerQuery: Double
    public var resultsPerQuery: Double

    public init(places: Int, updates: Int, queries: Int, microsPerQuery: Double, resultsPerQuery: Double) {
        self.places = places
        self.updates = updates
        self.queries = queries
        self.microsPerQuery = microsPerQuery
        self.resultsPerQuery = resultsPerQuery
    }
}
