import ArgumentParser
import Foundation
import NearbyKit

/// `nearby distance`: distances between point pairs under each model, in the spirit of GeographicLib's
/// GeodSolve, so the models can be checked line by line against reference tables.
struct DistanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "distance",
        abstract: "Measure the distance between pairs of points under a distance model.",
        discussion: """
            Pairs come from the arguments (four numbers per pair: lat1 lon1 lat2 lon2, WGS84 degrees) or, \
            when there are none, from stdin: one pair per line as "lat1 lon1 lat2 lon2" (spaces, tabs or \
            commas) or as a JSON object {"lat1":..,"lon1":..,"lat2":..,"lon2":..}. Blank lines and lines \
            starting with # are skipped.

            Each pair gives one output line: the distance in metres (text), or a JSON object (--format \
            jsonl). With --all the text columns are: haversine geodesic azi1 azi2 projected, where azi1 and \
            azi2 are the geodesic's forward azimuths at both ends (degrees clockwise from north) and \
            projected uses the CRS of --distance if it is projected, EPSG:5179 otherwise. Numbers are printed \
            with every digit needed to read back the same double. With projected:utm the zone is that of \
            the first point of each pair.

            A bad line is reported on stderr as "line N: reason"; the other lines are still measured and the \
            exit code is 2.

            Examples:
              nearby distance 37.5665 126.9780 35.1796 129.0756
              nearby distance --distance geodesic 40.64 -73.78 1.36 103.99
              nearby distance --all < docs/distance-models-pairs.txt
              nearby distance --distance projected:utm --format jsonl < pairs.jsonl
            """
    )

    @Option(
        help: ArgumentHelp(
            "haversine, geodesic, projected (EPSG:5179), projected:EPSG:nnnn or projected:utm.", valueName: "model"))
    var distance = "haversine"

    @Flag(help: "Print haversine, geodesic with both azimuths, and projected for every pair.")
    var all = false

    @Option(help: "text (numbers only) or jsonl.")
    var format: DistanceLines.Format = .text

    @Argument(parsing: .allUnrecognized, help: "lat1 lon1 lat2 lon2, repeated for more pairs.")
    var coordinates: [String] = []

    func run() throws {
        let model: DistanceModel
        do {
            model = try DistanceModel(parsing: distance)
        } catch {
            throw UsageError("--distance: \(error)")
        }
        var lines = DistanceLines(model: model, all: all, format: format)
        let names = DistanceLines.names
        var failed = false
        if !coordinates.isEmpty {
            // Negative numbers reach `coordinates` through `.allUnrecognized`, and so do unknown options.
            if let option = coordinates.first(where: { $0.hasPrefix("-") && DecimalNumber.double($0) == nil }) {
                throw UsageError("unknown option '\(option)'")
            }
            guard coordinates.count % 4 == 0 else {
                throw UsageError(
                    "expected lat1 lon1 lat2 lon2 (a multiple of 4 numbers), got \(coordinates.count) arguments")
            }
            for start in stride(from: 0, to: coordinates.count, by: 4) {
                do {
                    let pair = try CoordinateLine(fields: Array(coordinates[start..<start + 4]), names: names)
                    print(try lines.line(pair))
                } catch {
                    StandardError.write("nearby distance: argument \(start + 1): \(error.message)")
                    failed = true
                }
            }
        } else {
            var number = 0
            while var line = readLine() {
                number += 1
                // A UTF-8 byte order mark at the start of the input, as spreadsheet exports write it.
                if number == 1, line.unicodeScalars.first == "\u{FEFF}" {
                    line = String(line.unicodeScalars.dropFirst())
                }
                do {
                    guard let pair = try CoordinateLine(line: line, names: names) else { continue }
                    print(try lines.line(pair))
                } catch {
                    StandardError.write("nearby distance: line \(number): \(error.message)")
                    failed = true
                }
            }
        }
        if failed { throw ExitCode(2) }
    }
}

extension DistanceLines.Format: ExpressibleByArgument {}
