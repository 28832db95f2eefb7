import ArgumentParser
import Foundation
import NearbyStore

/// `nearby bench`: the benchmark harness. Each subcommand prints one JSON document on stdout.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure query, sort/filter and carousel throughput on the benchmark workload.",
        discussion: """
            Each run prints ONE JSON document on stdout (its shape is in docs/bench-json.md); a progress \
            line goes to stderr only when stderr is a terminal. Workload files come from \
            make_dataset.py (see the workload README):

              python3 make_dataset.py 1000000 10000 /tmp/w1m; W=/tmp/w1m
              nearby bench radius --places $W.places.tsv \\
                  --queries $W.queries.tsv > mem.json
              nearby bench radius --engine sqlite --places $W.places.tsv \\
                  --queries $W.queries.tsv > sqlite.json
              nearby bench report mem.json sqlite.json --svg charts/

            Build with `swift build -c release` before measuring: debug builds are 10-50 times \
            slower. scripts/bench-all.sh runs every measurement in BENCHMARKS.md.
            """,
        subcommands: [
            BenchRadiusCommand.self, BenchKNNCommand.self, BenchBBoxCommand.self,
            BenchSortFilterCommand.self, BenchCarouselCommand.self, BenchReportCommand.self,
            BenchWhereCommand.self,
        ]
    )
}

/// Bench errors the user can fix (a bad flag value, an unreadable or malformed workload file): one
/// line on stderr and exit code 2, like every Nearby command.
enum BenchUsage {
    static func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        return ExitCode(2)
    }

    /// Runs a subcommand's body, turning workload file errors into `fail`.
    static func run(_ body: () throws -> Void) throws {
        do { try body() } catch let e as WorkloadError { throw fail(e.description) }
    }
}
