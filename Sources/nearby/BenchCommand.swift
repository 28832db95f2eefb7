import ArgumentParser
import Foundation
import NearbyBench
import NearbyKit

/// `nearby bench`: the benchmark harness. Each subcommand prints one JSON document on stdout.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure query, sort/filter and carousel throughput on the benchmark workload.",
        discussion: """
            Each run prints ONE JSON document on stdout (its shape is in docs/bench-json.md); a progress \
            line goes to stderr only when stderr is a terminal. Workload files come from \
            `nearby generate --workload` (byte for byte the shared make_dataset.py's files):

              nearby generate --workload /tmp/w1m --count 1000000; W=/tmp/w1m
              nearby bench radius --places $W.places.tsv \\
                  --queries $W.queries.tsv > mem.json
              nearby bench radius --engine sqlite --places $W.places.tsv \\
                  --queries $W.queries.tsv > sqlite.json
              nearby bench report mem.json sqlite.json --svg charts/

            Build with `swift build -c release` before measuring: debug builds are 10-50 times \
            slower. scripts/bench-all.sh runs the engine measurements of BENCHMARKS.md.
            """,
        subcommands: [
            BenchRadiusCommand.self, BenchBoundCommand.self, BenchKNNCommand.self, BenchBBoxCommand.self,
            BenchSortFilterCommand.self, BenchCarouselCommand.self, BenchReportCommand.self,
            BenchWhereCommand.self, BenchClustersCommand.self, BenchPersonalCommand.self,
        ]
    )
}
