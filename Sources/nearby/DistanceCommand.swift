import ArgumentParser
import NearbyKit
import Foundation

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

    @Option(help: ArgumentHelp("haversine, geodesic, projected (EPSG:5179), projected:EPSG:nnnn or projected:utm.", valueName: "model"))
    var distance = "haversine"

    @Flag(help: "Print haversine, geodesic with both azimuths, and projected for every pair.")
    var all = false

    @Option(help: "text (numbers only) or jsonl.")
    var format: Format = .text

    @Argument(parsing: .allUnrecognized, help: "lat1 lon1 lat2 lon2, repeated for more pairs.")
    var coordinates: [String] = []

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, jsonl
    }

    func run() throws {
        let model: DistanceModel
        do {
            model = try DistanceModel(parsing: distance)
        } catch {
            throw UsageError("--distance: \(error)")
        }
        var measure = Measurer(model: model, all: all, format: format)
        var failed = false
        if !coordinates.isEmpty {
            // Negative numbers reach `coordinates` through `.allUnrecognized`, and so do unknown options.
            if let option = coordinates.first(where: { $0.hasPrefix("-") && Double($0) == nil }) {
                throw UsageError("unknown option '\(option)'")
            }
            guard coordinates.count % 4 == 0 else {
                throw UsageError("expected lat1 lon1 lat2 lon2 (a multiple of 4 numbers), got \(coordinates.count) arguments")
            }
            for start in stride(from: 0, to: coordinates.count, by: 4) {
                do {
                    let values = try coordinates[start..<start + 4].map { text in
                        guard let value = Double(text) else { throw PairError("'\(text)' is not a number") }
                        return value
                    }
                    print(try measure.line(try Pair(values)))
                } catch let error as PairError {
                    printError("nearby distance: argument \(start + 1): \(error.message)")
                    failed = true
                }
            }
        } else {
            var number = 0
            while let line = readLine() {
                number += 1
                do {
                    guard let pair = try Pair(line: line) else { continue }
                    print(try measure.line(pair))
                } catch let error as PairError {
                    printError("nearby distance: line \(number): \(error.message)")
                    failed = true
                }
            }
        }
        if failed { throw ExitCode(2) }
    }
}

private func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

private struct PairError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// One input pair, validated: latitudes in [-90, 90], longitudes in [-540, 540] (as GeodSolve accepts).
private struct Pair {
    let lat1, lon1, lat2, lon2: Double

    init(_ values: [Double]) throws {
        for (name, value) in zip(["lat1", "lon1", "lat2", "lon2"], values) {
            let limit = name.hasPrefix("lat") ? 90.0 : 540.0
            guard value.isFinite, abs(value) <= limit else {
                throw PairError("\(name) \(value) is out of range [-\(Int(limit)), \(Int(limit))]")
            }
        }
        (lat1, lon1, lat2, lon2) = (values[0], values[1], values[2], values[3])
    }

    /// nil for blank and comment lines.
    init?(line: String) throws {
        let text = line.trimmingCharacters(in: .whitespaces)
        if text.isEmpty || text.hasPrefix("#") { return nil }
        if text.hasPrefix("{") {
            var bytes = Array(text.utf8)
            let parsed = bytes.withUnsafeMutableBytes { b in Result { () throws(JSONError) in try JSONValue.parse(UnsafeRawBufferPointer(b)) } }
            guard case .success(.object(let o)) = parsed else { throw PairError("not a JSON object") }
            try self.init(["lat1", "lon1", "lat2", "lon2"].map { key in
                guard let member = o[key] else { throw PairError("field '\(key)' is missing") }
                guard case .number(let n) = member, let v = Double(n) else { throw PairError("field '\(key)' is not a number") }
                return v
            })
            return
        }
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
        guard fields.count == 4 else { throw PairError("expected 4 numbers (lat1 lon1 lat2 lon2), found \(fields.count) fields") }
        try self.init(zip(["lat1", "lon1", "lat2", "lon2"], fields).map { name, field in
            guard let value = Double(field) else { throw PairError("\(name) '\(field)' is not a number") }
            return value
        })
    }
}

/// Measures pairs and formats output lines; keeps one `Projection` per EPSG code it meets.
private struct Measurer {
    let model: DistanceModel
    let all: Bool
    let format: DistanceCommand.Format
    private var projections: [Int: Projection] = [:]

    init(model: DistanceModel, all: Bool, format: DistanceCommand.Format) {
        self.model = model
        self.all = all
        self.format = format
    }

    mutating func line(_ p: Pair) throws -> String {
        guard all else {
            let d = try measure(p, model)
            return format == .text
                ? "\(d)"
                : "{\(coordinates(p)),\"model\":\"\(model)\",\"distance\":\(d)}"
        }
        let haversine = try measure(p, .haversine)
        let g = Geodesic.wgs84.inverse(lat1: p.lat1, lon1: p.lon1, lat2: p.lat2, lon2: p.lon2)
        let crs: ProjectedCRS = if case .projected(let crs) = model { crs } else { .korea2000 }
        let projected = try measure(p, .projected(crs))
        return format == .text
            ? "\(haversine) \(g.distance) \(g.azimuth1) \(g.azimuth2) \(projected)"
            : "{\(coordinates(p)),\"haversine\":\(haversine),\"geodesic\":\(g.distance),\"azi1\":\(g.azimuth1),"
                + "\"azi2\":\(g.azimuth2),\"projected\":\(projected),\"crs\":\"\(crs)\"}"
    }

    private func coordinates(_ p: Pair) -> String {
        "\"lat1\":\(p.lat1),\"lon1\":\(p.lon1),\"lat2\":\(p.lat2),\"lon2\":\(p.lon2)"
    }

    private mutating func measure(_ p: Pair, _ model: DistanceModel) throws -> Double {
        switch model {
        case .haversine, .geodesic:
            return try model.distance(lat1: p.lat1, lon1: p.lon1, lat2: p.lat2, lon2: p.lon2)
        case .projected(let crs):
            let code = crs.epsgCode(lat: p.lat1, lon: p.lon1)
            do {
                if projections[code] == nil { projections[code] = try Projection(epsg: code) }
                return try projections[code]!.distance(lat1: p.lat1, lon1: p.lon1, lat2: p.lat2, lon2: p.lon2)
            } catch {
                throw PairError("\(error)")
            }
        }
    }
}
