import ArgumentParser
import NearbyBench
import NearbyKit

/// `nearby bench knn`: k nearest places at each workload query centre, for k = 1, 10, 100.
struct BenchKNNCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "knn",
        abstract: "Time k-nearest queries (k = 1, 10, 100) at the workload's query centres.",
        discussion: """
            Each query centre is asked for its k nearest places (no maximum distance, ties by id) for \
            every k in --k; the radius and limit columns of the queries file are ignored. Latency \
            groups are per k; answers carry their k (the --answers TSV gets a k column).

              nearby bench knn --places $W.places.tsv --queries $W.queries.tsv
            """
    )

    @OptionGroup var options: BenchWorkloadOptions

    @Option(parsing: .upToNextOption, help: "The k values to measure.")
    var k: [Int] = [1, 10, 100]

    func validate() throws {
        guard !k.isEmpty, k.allSatisfy({ $0 >= 1 }) else { throw ValidationError("--k values must be at least 1") }
    }

    func run() throws { try body() }

    private func body() throws {
        let (setup, queries) = try options.setUp(command: "knn")
        defer { setup.cleanup() }
        let model = options.distanceModel
        let tasks = k.flatMap { k in
            queries.map { q in
                BenchTask(
                    qid: q.qid, k: k, group: "k=\(k)",
                    query: PlaceQuery(
                        center: Coordinate(lat: q.lat, lon: q.lon), shape: .knn(k: k, maxDistance: nil), distance: model
                    ))
            }
        }
        try BenchRunner.run(tasks, setup: setup, repetitions: options.repetitions, answersFile: options.answers).print()
    }
}
