import ArgumentParser
import NearbyCore
import NearbyStore

/// `nearby bench radius`: the workload's radius queries, as its README defines them.
struct BenchRadiusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "radius",
        abstract: "Time the workload's radius queries (by distance then id, cut to each query's limit).",
        discussion: """
            Builds the engine (timed), answers every query of the queries file and prints one JSON \
            document: build time, resident memory, latency percentiles overall and per radius, queries \
            per second, and each query's total match count and answer checksum.

              W=/tmp/w1m   # from make_dataset.py 1000000 10000 /tmp/w1m
              nearby bench radius --places $W.places.tsv --queries $W.queries.tsv
              nearby bench radius --engine sqlite --first 1000 \\
                  --places $W.places.tsv --queries $W.queries.tsv --answers sqlite.tsv
            """
    )

    @OptionGroup var options: BenchWorkloadOptions

    func run() throws { try BenchUsage.run(body) }

    private func body() throws {
        let (setup, queries) = try options.setUp(command: "radius")
        defer { setup.cleanup() }
        let model = options.distanceModel
        let tasks = queries.map { q in
            BenchTask(qid: q.qid, group: "radius=\(BenchFormat.metres(q.radius))", query: PlaceQuery(
                center: Coordinate(lat: q.lat, lon: q.lon), shape: .radius(q.radius), limit: q.limit,
                distance: model))
        }
        try BenchRunner.run(tasks, setup: setup, repetitions: options.repetitions, answersFile: options.answers).print()
    }
}

enum BenchFormat {
    /// Metres without a fraction when whole: 500, 1000, 2.5.
    static func metres(_ r: Double) -> String {
        r == r.rounded() && abs(r) < 1e15 ? String(Int(r)) : String(r)
    }
}
