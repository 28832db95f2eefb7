import ArgumentParser
import NearbyCarousel
import NearbyStore

/// `nearby bench carousel`: events per second through the carousel pipeline.
struct BenchCarouselCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "carousel",
        abstract: "Time the carousel-to-marker pipeline: index events per second through debounce, distinct and selection.",
        discussion: """
            Feeds --events visible-card events (repeated swipes: bursts of 8 cards 40 ms apart, then a \
            rest, so each burst ends in one selection) through the simulator's debounce → distinct → \
            selection path on one thread (`CarouselBenchmark`), --runs times, and reports the median rate.

              nearby bench carousel --events 1000000 --runs 5
            """
    )

    @Option(help: "Events per run.")
    var events: Int = 1_000_000

    @Option(help: "Runs; the median is reported.")
    var runs: Int = 5

    func validate() throws {
        guard events >= 1 else { throw BenchUsage.fail("--events must be at least 1") }
        guard runs >= 1 else { throw BenchUsage.fail("--runs must be at least 1") }
    }

    func run() throws { try BenchUsage.run(body) }

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
        progress.done()
        let median = LatencyStats.median(seconds)
        var doc = BenchDocument(command: "carousel")
        doc.carousel = BenchCarousel(events: events, runs: runs, eventsPerSecond: Double(events) / median,
                                     medianSeconds: median, selections: selections)
        doc.memory.afterQueries = ResidentMemory.now()
        try doc.print()
    }
}
