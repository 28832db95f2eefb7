import ArgumentParser
import NearbyBench
import NearbyKit

/// `nearby bench sortfilter`: the sorting and filtering items (a)–(f) of BENCHMARKS.md.
struct BenchSortFilterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sortfilter",
        abstract: "Time the sorting and filtering workload: items (a)-(f), single thread.",
        discussion: """
            (a) every place by title (Korean collation), ties by id
            (b) category 12 or 39, newest modified first, first 30
            (c) areacode 11 and title containing "동", by title, first 30
            (d) created in 2015-2018, by created then id, rows 1001-1100
            (e) within 2 km of 37.5665, 126.9780 (haversine) and category 39, by distance, first 30
            (f) count per category (one counting query per TourAPI content type)

            Each item runs --runs times on one thread; the JSON gives the median and minimum time, the \
            rows returned, the total matches and the checksum of the returned ids in order. For (f) the \
            rows are "category:count" pairs in category order and the checksum is over those strings. \
            The first run of (a) and (c) also builds the title collation ranks (once per engine); the \
            median hides that, the maximum is not reported.

              nearby bench sortfilter --places /tmp/w1m.places.tsv --runs 5
            """
    )

    @OptionGroup var engineOptions: BenchEngineOptions

    @Option(help: "Runs of each item; the median is reported.")
    var runs: Int = 5

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
    }

    /// The items as engine queries. (f) is one query per category.
    static let items: [(name: String, description: String, queries: [PlaceQuery])] = {
        let seoulCityHall = Coordinate(lat: 37.5665, lon: 126.9780)
        return [
            ("a", "all places by title (Korean collation), ties by id",
             [PlaceQuery(order: PlaceOrder([SortKey(.title)]))]),
            ("b", "category in {12, 39}, newest modified first, first 30",
             [PlaceQuery(filter: PlaceFilter(categories: [12, 39]),
                         order: PlaceOrder([SortKey(.modified, descending: true)]), limit: 30)]),
            ("c", "areacode 11 and title containing 동, by title, first 30",
             [PlaceQuery(filter: PlaceFilter(areacodes: ["11"], keyword: "동"),
                         order: PlaceOrder([SortKey(.title)]), limit: 30)]),
            ("d", "created 20150101000000...20181231235959, by created then id, rows 1001-1100",
             [PlaceQuery(filter: PlaceFilter(created: 20150101000000...20181231235959),
                         order: PlaceOrder([SortKey(.created)]), limit: 100, page: 11)]),
            ("e", "within 2 km of 37.5665, 126.9780 (haversine) and category 39, by distance, first 30",
             [PlaceQuery(center: seoulCityHall, shape: .radius(2000), filter: PlaceFilter(categories: [39]),
                         order: PlaceOrder([SortKey(.distance)]), limit: 30)]),
            ("f", "count per category (one counting query per content type)",
             ContentType.names.keys.sorted().map { PlaceQuery(filter: PlaceFilter(categories: [$0]), limit: 1) }),
        ]
    }()

    func run() throws { try body() }

    private func body() throws {
        let setup = try BenchSetup.make(places: engineOptions.places, engine: engineOptions.engine, threads: 1, command: "sortfilter")
        defer { setup.cleanup() }
        let engine = setup.engines[0]
        let progress = BenchProgress("sortfilter")
        var doc = setup.document
        var results: [BenchItem] = []
        for item in Self.items {
            var times: [Double] = []
            var answers: [QueryAnswer] = []
            for run in 1...runs {
                progress.say("(\(item.name)) run \(run) of \(runs)")
                let (a, seconds) = try BenchClock.measure { try item.queries.map { try engine.run($0) } }
                times.append(seconds * 1e6)
                answers = a
            }
            let labels: [String]
            if item.name == "f" {
                labels = zip(ContentType.names.keys.sorted(), answers).map { "\($0):\($1.total)" }
            } else {
                labels = answers[0].rows.map(\.id)
            }
            results.append(BenchItem(
                name: item.name, description: item.description, runs: runs,
                medianMicros: LatencyStats.median(times), minMicros: times.min() ?? 0, rows: labels.count,
                total: answers.reduce(0) { $0 + $1.total }, checksum: AnswerChecksum.of(labels)))
        }
        progress.done()
        doc.items = results
        doc.memory.afterQueries = ResidentMemory.now()
        try doc.print()
    }
}
