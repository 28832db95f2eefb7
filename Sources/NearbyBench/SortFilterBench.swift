import NearbyKit

/// The sorting and filtering items (a)–(f) of BENCHMARKS.md on one engine (`nearby bench sortfilter`).
public enum SortFilterBench {
    /// The items as engine queries. (f) is one query per category.
    public static let items: [(name: String, description: String, queries: [PlaceQuery])] = {
        let seoulCityHall = Coordinate(lat: 37.5665, lon: 126.9780)
        return [
            (
                "a", "all places by title (Korean collation), ties by id",
                [PlaceQuery(order: PlaceOrder([SortKey(.title)]))]
            ),
            (
                "b", "category in {12, 39}, newest modified first, first 30",
                [
                    PlaceQuery(
                        filter: PlaceFilter(categories: [12, 39]),
                        order: PlaceOrder([SortKey(.modified, descending: true)]), limit: 30)
                ]
            ),
            (
                "c", "areacode 11 and title containing 동, by title, first 30",
                [
                    PlaceQuery(
                        filter: PlaceFilter(areacodes: ["11"], keyword: "동"),
                        order: PlaceOrder([SortKey(.title)]), limit: 30)
                ]
            ),
            (
                "c-page", "(c) without the total (total=none): the page alone, as SQLite's ORDER BY ... LIMIT 30",
                [
                    {
                        var q = PlaceQuery(
                            filter: PlaceFilter(areacodes: ["11"], keyword: "동"),
                            order: PlaceOrder([SortKey(.title)]), limit: 30)
                        q.countsTotal = false
                        return q
                    }()
                ]
            ),
            (
                "d", "created 20150101000000...20181231235959, by created then id, rows 1001-1100",
                [
                    PlaceQuery(
                        filter: PlaceFilter(created: 20_150_101_000_000...20_181_231_235_959),
                        order: PlaceOrder([SortKey(.created)]), limit: 100, page: 11)
                ]
            ),
            (
                "e", "within 2 km of 37.5665, 126.9780 (haversine) and category 39, by distance, first 30",
                [
                    PlaceQuery(
                        center: seoulCityHall, shape: .radius(2000), filter: PlaceFilter(categories: [39]),
                        order: PlaceOrder([SortKey(.distance)]), limit: 30)
                ]
            ),
            (
                "f", "count per category (one counting query per content type)",
                ContentType.names.keys.sorted().map { PlaceQuery(filter: PlaceFilter(categories: [$0]), limit: 1) }
            ),
        ]
    }()

    /// Runs every item `runs` times on the setup's engine; the document holds each item's median.
    public static func run(_ setup: BenchSetup, runs: Int) throws -> BenchDocument {
        let engine = setup.engines[0]
        let progress = BenchProgress("sortfilter")
        var doc = setup.document
        var results: [BenchItem] = []
        for item in items {
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
                labels = zip(ContentType.names.keys.sorted(), answers).map { "\($0):\($1.total ?? 0)" }
            } else {
                labels = answers[0].rows.map(\.id)
            }
            results.append(
                BenchItem(
                    name: item.name, description: item.description, runs: runs,
                    medianMicros: LatencyStats.median(times), minMicros: times.min() ?? 0, rows: labels.count,
                    total: answers.allSatisfy { $0.total != nil } ? answers.reduce(0) { $0 + $1.total! } : nil,
                    checksum: AnswerChecksum.of(labels)))
        }
        progress.done()
        doc.items = results
        doc.memory.afterQueries = ResidentMemory.now()
        return doc
    }
}
