import ArgumentParser
import NearbyBench

/// `nearby bench carousel`: events per second through the carousel pipeline.
struct BenchCarouselCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "carousel",
        abstract:
            "Time the carousel-to-marker pipeline: index events per second through debounce, distinct and selection.",
        discussion: """
            Feeds --events visible-card events (repeated swipes: bursts of 8 cards 40 ms apart, then a \
            rest, so each burst ends in one selection) through the simulator's debounce → distinct → \
            selection path on one thread (`CarouselBenchmark`), --runs times, and reports the median rate.

            With --places, also times location-triggered re-queries on that workload: --updates location \
            updates 40 m apart through the 50 m distance filter, every second one re-running a 1 km, \
            20-card nearby query on the memory engine (built before the clock starts); reports the \
            median cost per re-query over the runs.

              nearby bench carousel --events 1000000 --runs 5
              nearby bench carousel --runs 5 --places /tmp/w1m.places.tsv
            """
    )

    @Option(help: "Events per run.")
    var events: Int = 1_000_000

    @Option(help: "Runs; the median is reported.")
    var runs: Int = 5

    @Option(
        help: ArgumentHelp("A workload places TSV: also time location-triggered re-queries on it.", valueName: "file"))
    var places: String?

    @Option(help: "Location updates per re-query run (with --places).")
    var updates: Int = 2000

    func validate() throws {
        guard events >= 1 else { throw ValidationError("--events must be at least 1") }
        guard updates >= 2 else { throw ValidationError("--updates must be at least 2") }
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
    }

    func run() throws {
        try CarouselBenchmark.document(events: events, runs: runs, places: places, updates: updates).print()
    }
}
