import ArgumentParser
import NearbyBench

/// `nearby bench where`: reverse-geocoding throughput, index load time and memory.
struct BenchWhereCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "where",
        abstract: "Measure region lookups per second, index load time and memory.",
        discussion: """
            Loads data/kr_regions.bin --loads times (medians of wall-clock and process CPU time; \
            the load builds its two grids on two threads), then times \
            lookups on one thread over two point sets, --repetitions times each (medians): random \
            points inside Korea (uniform over the boundaries' box, kept when they land in a region) \
            and points along boundaries (a random boundary edge, a random point on it, moved up to \
            --jitter metres). Rates are per wall-clock second and per second of the thread's CPU \
            time (what one core does when the machine is shared). Prints one JSON document; every \
            lookup's answer is summed into a \
            checksum so none can be skipped.

            Examples:
              swift build -c release
              .build/release/nearby bench where
              .build/release/nearby bench where --points 2000000 --repetitions 7
            """
    )

    @Option(help: "Points per set.")
    var points = 1_000_000

    @Option(help: "Timed passes over each set.")
    var repetitions = 5

    @Option(help: "Index loads to time.")
    var loads = 5

    @Option(help: "How far boundary points are moved off the boundary, in metres.")
    var jitter = 10.0

    @Option(help: "Random seed.")
    var seed: UInt64 = 12

    func validate() throws {
        guard points > 0, repetitions > 0, loads > 0 else {
            throw ValidationError("--points, --repetitions and --loads must be positive")
        }
        guard jitter >= 0 else { throw ValidationError("--jitter must not be negative") }
    }

    func run() throws {
        print(
            try WhereBenchmark.document(
                points: points, repetitions: repetitions, loads: loads, jitter: jitter, seed: seed))
    }
}
