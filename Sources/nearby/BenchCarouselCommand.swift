import ArgumentParser
import NearbyBench
import NearbyKit
import NearbyCarousel

/// `nearby bench carousel`: events per second through the carousel pipeline.
struct BenchCarouselCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "carousel",
        abstract: "Time the carousel-to-marker pipeline: index events per second through debounce, distinct and selection.",
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

    @Option(help: ArgumentHelp("A workload places TSV: also time location-triggered re-queries on it.", valueName: "file"))
    var places: String?

    @Option(help: "Location updates per re-query run (with --places).")
    var updates: Int = 2000

    func validate() throws {
        guard events >= 1 else { throw ValidationError("--events must be at least 1") }
        guard updates >= 2 else { throw ValidationError("--updates must be at least 2") }
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
    }

    func run() throws { try body() }

    private func body() throws {
        let progress = BenchProgress("carousel")
        var seconds: [Double] = []
        var selections = 0
        for run in 1...runs {
            progress.say("run \(run) of \(runs)")
            let r = CarouselBenchmark.indexEvents(count: events)
            seconds.append(r.seconds)
            selections = r.selections
        }
        let median = LatencyStats.median(seconds)
        var doc = BenchDocument(command: "carousel")
        doc.carousel = BenchCarousel(events: events, runs: runs, eventsPerSecond: Double(events) / median,
                                     medianSeconds: median, selections: selections)
        if let places {
            progress.say("loading \(places)")
            let workload = try Workload.readPlaces(path: places)
            guard !workload.isEmpty else { throw UsageError("\(places): no places") }
            progress.say("building the memory engine over \(workload.count) places")
            let engine = MemoryEngine(places: workload)
            var micros: [Double] = []
            var last = (updates: 0, queries: 0, seconds: 0.0, results: 0)
            for run in 1...runs {
                progress.say("re-query run \(run) of \(runs)")
                last = CarouselBenchmark.locationRequeries(engine: engine, updates: updates)
                micros.append(last.seconds * 1e6 / Double(max(1, last.queries)))
            }
            doc.carousel?.requery = BenchRequery(
                places: workload.count, updates: last.updates, queries: last.queries,
                microsPerQuery: LatencyStats.median(micros),
                resultsPerQuery: Double(last.results) / Double(max(1, last.queries)))
        }
        progress.done()
        doc.memory.afterQueries = ResidentMemory.now()
        try doc.print()
    }
}
