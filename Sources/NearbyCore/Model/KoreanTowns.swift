import Foundation

/// One real South Korean town (읍면동, level `emd`) or village (리, level `ri`): its official code and
/// names and a representative point inside its boundary, as in `data/kr_points.tsv` (see data/README.md).
public struct KoreanTown: Sendable, Hashable {
    public enum Level: String, Sendable { case emd, ri }

    /// Administrative code: first 2 digits the province (시도), first 5 the city/county (시군구).
    public var code: String
    public var level: Level
    public var sido: String
    /// Empty where a province has no city/county level (세종특별자치시).
    public var sigungu: String
    public var emd: String
    /// Empty for a town (`level == .emd`). The source leaves some names empty: 24 `ri` rows of 대구
    /// 달서구 have no ri name (one has no emd name either) and 13 rows of 김포시 no emd name.
    public var ri: String
    public var lat: Double
    public var lon: Double
    /// Rough area in km², a density weight only.
    public var areaKm2: Double

    /// The most specific non-empty name: the village's for a 리, else the town's (or the city's).
    public var name: String { [ri, emd, sigungu, sido].first { !$0.isEmpty }! }

    /// `sido sigungu emd ri`, empty parts left out.
    public var address: String {
        [sido, sigungu, emd, ri].filter { !$0.isEmpty }.joined(separator: " ")
    }
}

/// Reads `kr_points.tsv`: a header row `code level sido sigungu emd ri lat lon area_km2`, then one
/// tab-separated town a line.
public enum KoreanTowns {
    public static let columns = ["code", "level", "sido", "sigungu", "emd", "ri", "lat", "lon", "area_km2"]

    public struct FormatError: NearbyError {
        /// `file:line: field: reason`, the project's format for bad input.
        public var description: String
        /// `.damaged` for a towns file that fails its checks, `.io` for one that cannot be read.
        public var kind: ErrorKind
        public init(description: String, kind: ErrorKind = .damaged) {
            self.description = description
            self.kind = kind
        }
    }

    /// Parses towns from the file's bytes; `source` names the file in errors.
    public static func parse(_ data: Data, source: String) throws -> [KoreanTown] {
        guard let text = String(data: data, encoding: .utf8) else {
            throw FormatError(description: "\(source): not UTF-8 text")
        }
        var towns: [KoreanTown] = []
        var lineNumber = 0
        for line in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            func fail(_ field: String, _ reason: String) -> FormatError {
                FormatError(description: "\(source):\(lineNumber): \(field): \(reason)")
            }
            let f = line.split(separator: 0x09, omittingEmptySubsequences: false).map { String(Substring($0)) }
            if lineNumber == 1 {
                guard f == columns else {
                    throw fail("header", "expected \(columns.joined(separator: " ")), got \(f.joined(separator: " "))")
                }
                continue
            }
            if line.isEmpty { continue }
            guard f.count == columns.count else {
                throw fail("line", "\(f.count) fields, expected \(columns.count)")
            }
            guard f[0].utf8.count >= 5, f[0].utf8.allSatisfy({ $0 &- 0x30 < 10 }) else {
                throw fail("code", "'\(f[0])' is not an administrative code of at least 5 digits")
            }
            guard let level = KoreanTown.Level(rawValue: f[1]) else {
                throw fail("level", "'\(f[1])' is not emd or ri")
            }
            guard let lat = Double(f[6]), (-90...90).contains(lat) else {
                throw fail("lat", "'\(f[6])' is not a latitude")
            }
            guard let lon = Double(f[7]), (-180...180).contains(lon) else {
                throw fail("lon", "'\(f[7])' is not a longitude")
            }
            guard let area = Double(f[8]), area >= 0, area.isFinite else {
                throw fail("area_km2", "'\(f[8])' is not an area")
            }
            guard !f[2].isEmpty else { throw fail("sido", "empty province name") }
            towns.append(
                KoreanTown(
                    code: f[0], level: level, sido: f[2], sigungu: f[3], emd: f[4], ri: f[5],
                    lat: lat, lon: lon, areaKm2: area))
        }
        guard !towns.isEmpty else { throw FormatError(description: "\(source): no towns") }
        return towns
    }
}
