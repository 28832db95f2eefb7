import Foundation
import NearbyKit

/// One radius query of the benchmark workload (`qid lat lon radius_m limit`, see the workload README).
public struct WorkloadQuery: Sendable, Hashable {
    public var qid: Int
    public var lat: Double
    public var lon: Double
    /// Metres.
    public var radius: Double
    /// 0 means all matches.
    public var limit: Int

    public init(qid: Int, lat: Double, lon: Double, radius: Double, limit: Int) {
        self.qid = qid
        self.lat = lat
        self.lon = lon
        self.radius = radius
        self.limit = limit
    }
}

/// Reading the benchmark workload's TSV files (header row, tab-separated, one record a line).
public enum Workload {
    public static let queryColumns = ["qid", "lat", "lon", "radius_m", "limit"]

    /// Reads a queries TSV. Columns are found by header name, so their order does not matter.
    public static func readQueries(path: String) throws -> [WorkloadQuery] {
        var queries: [WorkloadQuery] = []
        try forEachRow(path: path, columns: queryColumns) { row in
            let lat = try row.double(1)
            let lon = try row.double(2)
            guard (-90...90).contains(lat) else { throw row.error(1, "latitude outside [-90, 90]") }
            guard (-180...180).contains(lon) else { throw row.error(2, "longitude outside [-180, 180]") }
            let radius = try row.double(3)
            guard radius >= 0 else { throw row.error(3, "negative radius") }
            let limit = try row.int(4)
            guard limit >= 0 else { throw row.error(4, "negative limit") }
            queries.append(WorkloadQuery(qid: try row.int(0), lat: lat, lon: lon, radius: radius, limit: limit))
        }
        return queries
    }

    /// Reads a places TSV with the workload's columns (or any file `nearby import` reads) into `Place`s,
    /// through the importers' own `PlaceParser`, strictly: a workload with a bad record is refused with
    /// its `file:line: field: reason`, so both engines always see every place of the file.
    public static func readPlaces(path: String) throws -> [Place] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("\(path): cannot read file")
        }
        do {
            return try PlaceParser.parse([UInt8](data), file: path, strict: true).records.compactMap {
                if case .upsert(let place) = $0.record { place } else { nil }
            }
        } catch {
            throw UsageError("\(error)")
        }
    }

    /// One data row: fields in the order of the `columns` asked for.
    public struct Row {
        let path: String, line: Int, names: [String], fields: [Substring]

        func double(_ i: Int) throws -> Double {
            guard let v = Double(fields[i]), v.isFinite else { throw error(i, "not a finite number: '\(fields[i])'") }
            return v
        }
        func int(_ i: Int) throws -> Int {
            guard let v = Int(fields[i]) else { throw error(i, "not an integer: '\(fields[i])'") }
            return v
        }
        func error(_ i: Int, _ reason: String) -> UsageError {
            UsageError("\(path):\(line): \(names[i]): \(reason)")
        }
    }

    public static func forEachRow(path: String, columns: [String], _ body: (Row) throws -> Void) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("\(path): cannot read file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw UsageError("\(path): not UTF-8 text")
        }
        var lines = TextLines.of(text)[...]
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard let header = lines.popFirst() else { throw UsageError("\(path):1: empty file, no header") }
        let headerNames = header.split(separator: "\t", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let positions = try columns.map { name in
            guard let p = headerNames.firstIndex(of: name) else {
                throw UsageError(
                    "\(path):1: header: missing column '\(name)' (needs \(columns.joined(separator: " ")))")
            }
            return p
        }
        for (offset, line) in lines.enumerated() {
            let lineNumber = offset + 2
            let all = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard all.count >= headerNames.count else {
                throw UsageError("\(path):\(lineNumber): \(all.count) fields, the header has \(headerNames.count)")
            }
            let fields = positions.map { all[$0].hasSuffix("\r") ? all[$0].dropLast() : all[$0] }
            try body(Row(path: path, line: lineNumber, names: columns, fields: fields))
        }
    }
}

/// The workload README's answer checksum: sha1 of the ids in answer order, in decimal, joined by ","
/// (no spaces, UTF-8), as its first 16 lower-case hex digits. An empty answer is sha1("").
public enum AnswerChecksum {
    public static func of<IDs: Sequence>(_ ids: IDs) -> String where IDs.Element == String {
        var h = SHA1()
        var first = true
        for id in ids {
            if !first { h.update(CollectionOfOne(UInt8(ascii: ","))) }
            h.update(id)
            first = false
        }
        return String(SHA1.hexString(h.finalize()).prefix(16))
    }
}

/// Percentiles of a set of latencies, by the nearest-rank method (the p-th percentile is the smallest
/// sample with at least p % of the samples at or below it), so every reported value was measured.
public struct LatencyStats: Sendable, Codable, Equatable {
    public var count: Int
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var max: Double
    public var mean: Double

    /// `samples` in any unit; the statistics are in the same unit. Empty input gives all zeros.
    public init(_ samples: [Double]) {
        let sorted = samples.sorted()
        func rank(_ p: Double) -> Double {
            sorted.isEmpty ? 0 : sorted[Swift.max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)]
        }
        count = sorted.count
        p50 = rank(50)
        p90 = rank(90)
        p99 = rank(99)
        max = sorted.last ?? 0
        mean = sorted.isEmpty ? 0 : sorted.reduce(0, +) / Double(sorted.count)
    }

    /// The median of a few repeated measurements (used to summarise runs of the same work).
    public static func median(_ samples: [Double]) -> Double { LatencyStats(samples).p50 }
}

/// The process's resident memory, from Linux's /proc/self/status (nil fields elsewhere).
public struct ResidentMemory: Sendable, Codable, Equatable {
    /// VmRSS: resident set size now, KiB.
    public var rssKiB: Int?
    /// VmHWM: peak resident set size so far, KiB.
    public var hwmKiB: Int?

    /// Reads /proc/self/status after handing freed heap pages back to the system (glibc keeps them
    /// otherwise), so that the growth across a build counts what the build keeps, not its temporaries.
    public static func now() -> ResidentMemory {
        FreedMemory.giveBack()
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            return ResidentMemory(rssKiB: nil, hwmKiB: nil)
        }
        func field(_ name: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else {
                return nil
            }
            return Int(line.dropFirst(name.count + 1).filter(\.isNumber))
        }
        return ResidentMemory(rssKiB: field("VmRSS"), hwmKiB: field("VmHWM"))
    }
}
