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

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Order every answer by these keys, as nearby query --sort (e.g. title, -modified); ties by id.", valueName: "keys"))
    var sort: String?

    @Option(help: ArgumentHelp("Give every query this limit instead of the file's (0 = every match).", valueName: "n"))
    var limit: Int?

    func validate() throws {
        if let category, PlaceFilter.categories(parsing: category) == nil {
            throw BenchUsage.fail("--category '\(category)' is not a comma-separated list of integers (e.g. 12,39)")
        }
        if let sort, PlaceOrder(parsing: sort) == nil {
            throw BenchUsage.fail("--sort '\(sort)' is not a list of distance, title, created, modified, category")
        }
        if let limit, limit < 0 { throw BenchUsage.fail("--limit must be at least 0") }
    }


    func run() throws { try BenchUsage.run(body) }

    private func body() throws {
        let (setup, queries) = try options.setUp(command: "radius")
        defer { setup.cleanup() }
        let model = options.distanceModel
        let filter = PlaceFilter(categories: category.flatMap(PlaceFilter.categories(parsing:)))
        let order = sort.flatMap { PlaceOrder(parsing: $0) } ?? PlaceOrder([])
        let tasks = queries.map { q in
            BenchTask(qid: q.qid, group: "radius=\(BenchFormat.metres(q.radius))", query: PlaceQuery(
                center: Coordinate(lat: q.lat, lon: q.lon), shape: .radius(q.radius), filter: filter,
                order: order, limit: limit ?? q.limit, distance: model))
        }
        var doc = try BenchRunner.run(tasks, setup: setup, repetitions: options.repetitions, answersFile: options.answers)
        let variant = [category.map { "category \($0)" }, sort.map { "sort \($0)" }, limit.map { "limit \($0)" }].compactMap { $0 }
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
