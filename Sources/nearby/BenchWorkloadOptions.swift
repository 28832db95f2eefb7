import ArgumentParser
import Foundation
import NearbyBench
import NearbyKit

extension BenchEngineKind: ExpressibleByArgument {}

/// The places and the engine to measure (every engine-backed bench subcommand).
struct BenchEngineOptions: ParsableArguments {
    @Option(help: "Workload places TSV (id lat lon category title created modified areacode sigungucode).")
    var places: String

    @Option(
        help: """
            Engine to measure: memory (packed R-tree), sqlite (R*Tree in a fresh temporary cache) or snapshot \
            (that cache's index snapshot, mapped; answers of ids only).
            """)
    var engine: BenchEngineKind = .memory
}

/// Options shared by `bench radius`, `bench knn` and `bench bbox`.
struct BenchWorkloadOptions: ParsableArguments {
    @OptionGroup var engineOptions: BenchEngineOptions

    @Option(help: "Workload queries TSV (qid lat lon radius_m limit).")
    var queries: String

    @Option(
        help:
            "Distance model: haversine, geodesic, projected[:CRS]. Checksums in the workload README are for haversine.")
    var distance: String = "haversine"

    @Option(
        name: .customLong("repeat"),
        help: "Answer every query this many times; a query's latency is the median of its runs.")
    var repetitions: Int = 1

    @Option(help: "Split the queries over this many threads (the engine is shared for reads).")
    var threads: Int = 1

    @Option(help: "Answer only the first N queries of the file (for slow engines on big workloads; 0 = all).")
    var first: Int = 0

    @Option(help: "Also write each answer's identity as TSV to this file (qid [k] total returned checksum).")
    var answers: String?

    func validate() throws {
        guard repetitions >= 1 else { throw ValidationError("--repeat must be at least 1") }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        guard first >= 0 else { throw ValidationError("--first must be at least 0") }
        do { _ = try DistanceModel(parsing: distance) } catch { throw ValidationError("--distance: \(error)") }
    }

    var distanceModel: DistanceModel { (try? DistanceModel(parsing: distance)) ?? .haversine }

    /// Builds the engine and reads the queries, recording the run's settings in the document.
    func setUp(command: String) throws -> (BenchSetup, [WorkloadQuery]) {
        var setup = try BenchSetup.make(
            places: engineOptions.places, engine: engineOptions.engine, threads: threads, command: command)
        var queries = try Workload.readQueries(path: queries)
        if first > 0 { queries = Array(queries.prefix(first)) }
        setup.document.distance = distance
        setup.document.repeat = repetitions
        setup.document.workload?.queries = self.queries
        setup.document.workload?.queryCount = queries.count
        return (setup, queries)
    }
}
