import ArgumentParser

/// `nearby bench carousel`: events per second through the carousel pipeline.
struct BenchCarouselCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "carousel",
        abstract: "Time the carousel-to-marker pipeline: index events per second through debounce, distinct and selection."
    )

    func run() throws {
        throw ValidationError("waiting for NearbyCarousel's CarouselBenchmark")
    }
}
