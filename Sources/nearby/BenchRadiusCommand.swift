import ArgumentParser
import NearbyBench
import NearbyKit

/// `nearby bench radius`: the workload's radius queries, as its README defines them.
struct BenchRadiusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "radius",
        abstract: "Time the workload's radius queries (by distance then id, cut to each query's limit).",
        discussion: """
            Builds the engine (timed), answers every query of the queries file and prints one JSON \
            document: build time, resident memory, latency percentiles overall and per radius, queries \
            per second, and each query's total match count and answer checksum.

              W=/tmp/w1m   # from nearby generate --workload /tmp/w1m --count 1000000
              nearby bench radius --places $W.places.tsv --queries $W.queries.tsv
              nearby bench radius --engine sqlite --first 1000 \\
                  --places $W.places.tsv --queries $W.queries.tsv --answers sqlite.tsv

            --category, --sort and --limit turn the workload into a filtered, sorted one (e.g. a page \
            of 30 restaurants by title around every centre); its checksums are then not the workload \
            README's but still identify each answer, so engines can be compared on them:

              nearby bench radius --category 39 --sort title --limit 30 \\
                  --places $W.places.tsv --queries $W.queries.tsv
            """
    )

    @OptionGroup var options: BenchWorkloadOptions

    @Option(help: ArgumentHelp("Keep only these content types in every query (e.g. 39 or 12,39).", valueName: "ids"))
    var category: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Order every answer by these keys, as nearby query --sort (e.g. title, -modified); ties by id.",
            valueName: "keys"))
    var sort: String?

    @Option(help: ArgumentHelp("Give every query this limit instead of the file's (0 = every match).", valueName: "n"))
    var limit: Int?

    /// The query every workload query starts from: --category, --sort and --distance read by the one
    /// request parser (the centre, radius and limit are set per workload query).
    private func template() throws(UsageError) -> PlaceQuery {
        var pairs = [("distance", options.distance)]
        if let category { pairs.append(("category", category)) }
        if let sort { pairs.append(("sort", sort)) }
        do { return try QueryParameters.parse(pairs) } catch { throw UsageError(error) }
    }

    func validate() throws {
        do { _ = try template() } catch { throw ValidationError(error.description) }
        if let limit, limit < 0 { throw ValidationError("--limit: must be 0 (every match) or more") }
    }

    func run() throws {
        let (setup, queries) = try options.setUp(command: "radius")
        defer { setup.cleanup() }
        let template = try template()
        let tasks = queries.map { q in
            var query = template
            query.center = Coordinate(lat: q.lat, lon: q.lon)
            query.shape = .radius(q.radius)
            query.limit = limit ?? q.limit
            return BenchTask(qid: q.qid, group: "radius=\(BenchFormat.metres(q.radius))", query: query)
        }
        var doc = try BenchRunner.run(
            tasks, setup: setup, repetitions: options.repetitions, answersFile: options.answers)
        let variant = [category.map { "category \($0)" }, sort.map { "sort \($0)" }, limit.map { "limit \($0)" }]
            .compactMap { $0 }
        doc.variant = variant.isEmpty ? nil : variant.joined(separator: ", ")
        try doc.print()
    }
}

enum BenchFormat {
    /// Metres without a fraction when whole: 500, 1000, 2.5.
    static func metres(_ r: Double) -> String {
        r == r.rounded() && abs(r) < 1e15 ? String(Int(r)) : String(r)
    }
}
