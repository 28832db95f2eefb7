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
            (c-page) (c) with total=none: the page alone, without counting every match
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

    func run() throws {
        let setup = try BenchSetup.make(
            places: engineOptions.places, engine: engineOptions.engine, threads: 1, command: "sortfilter")
        defer { setup.cleanup() }
        try SortFilterBench.run(setup, runs: runs).print()
    }
}
