import ArgumentParser
import NearbyBench
import NearbyKit

/// `nearby bench bound`: the output-sensitive bound of the workload's radius queries (`OutputBound`).
struct BenchBoundCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bound",
        abstract: "Time the least work a radius query needs once its matches are known.",
        discussion: """
            For every query the matches are found by brute force (not timed); then only reading \
            each match's coordinates, its haversine distance, ordering by distance then id and \
            cutting to the limit are timed. No engine does less, except by counting subtrees \
            without visiting them. Prints one JSON document, as bench radius does, with the same \
            answer checksums, so the two runs can be compared query by query:

              W=/tmp/w1m   # nearby generate --workload $W --count 1000000
              nearby bench bound --first 1000 \\
                  --places $W.places.tsv --queries $W.queries.tsv
            """
    )

    @Option(help: "Workload places TSV (id lat lon category title created modified areacode sigungucode).")
    var places: String

    @Option(help: "Workload queries TSV (qid lat lon radius_m limit).")
    var queries: String

    @Option(name: .customLong("repeat"), help: "Time every query this many times; a query's latency is the median.")
    var repetitions: Int = 1

    @Option(help: "Answer only the first N queries of the file (0 = all).")
    var first: Int = 0

    func validate() throws {
        guard repetitions >= 1 else { throw ValidationError("--repeat must be at least 1") }
        guard first >= 0 else { throw ValidationError("--first must be at least 0") }
    }

    func run() throws {
        let progress = BenchProgress("bound")
        progress.say("loading \(places)")
        let bound = OutputBound(places: try Workload.readPlaces(path: places))
        var list = try Workload.readQueries(path: queries)
        if first > 0 { list = Array(list.prefix(first)) }
        var doc = bound.run(list, repetitions: repetitions, progress: progress)
        doc.workload?.places = places
        doc.workload?.queries = queries
        try doc.print()
    }
}
