import ArgumentParser
import Foundation
import NearbyBench
import NearbyKit

/// `nearby bench report`: SVG charts and markdown tables from bench JSON documents.
struct BenchReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Turn bench JSON documents into SVG charts and markdown tables.",
        discussion: """
            Reads the documents printed by the other bench subcommands (any mix of sizes and engines) \
            and writes, into the --svg folder:
              latency-by-radius.svg   radius query p50/p90/p99 per radius (largest workload all engines ran)
              throughput-vs-size.svg  radius queries per second against the number of places
              latency-vs-size.svg     radius query p50 and p99 against the number of places
              build-vs-size.svg       index build (and SQLite import) time against the number of places
            and prints markdown tables of every document on stdout (for BENCHMARKS.md).

              nearby bench report results/*.json --svg charts/ > results/tables.md
            """
    )

    @Argument(help: "Bench JSON documents.")
    var files: [String]

    @Option(help: "Folder to write the SVG charts into (created if missing).")
    var svg: String?

    func run() throws { try body() }

    private func body() throws {
        let decoder = JSONDecoder()
        let docs = try files.map { path -> BenchDocument in
            guard let data = FileManager.default.contents(atPath: path) else {
                throw UsageError("\(path): cannot read file")
            }
            do { return try decoder.decode(BenchDocument.self, from: data) } catch {
                throw UsageError("\(path): not a nearby bench document: \(error)")
            }
        }
        if let svg {
            try FileManager.default.createDirectory(atPath: svg, withIntermediateDirectories: true)
            for (name, chart) in BenchReportCharts(docs).all {
                let path = (svg as NSString).appendingPathComponent(name)
                try chart.svg().write(toFile: path, atomically: true, encoding: .utf8)
            }
        }
        print(BenchReportTables(docs).markdown(), terminator: "")
    }
}
