import Foundation
import NearbyCore

/// TourAPI's code trees with their names: the new classification (lclsSystm1/2/3, Korean names in
/// `data/tourapi-lcls.tsv`, EngService2's English ones in `data/tourapi-lcls-en.tsv`,
/// scripts/fetch_tourapi_lcls.py), the service classification (cat1/2/3, `data/tourapi-cat.tsv`,
/// scripts/fetch_tourapi_cat.py) and the areas with their 시군구 (areaCode, sigunguCode,
/// `data/tourapi-area.tsv`, scripts/fetch_tourapi_area.py); sources and licence in data/README.md. Found
/// in the same data folder as the default dataset (`DefaultDataset.candidateDirectories`).
public enum TourCodeTable {
    /// The new classification's file (`lclsSystmCode2`).
    public static let classification = "tourapi-lcls.tsv"
    /// The new classification with EngService2's English names (its `lclsSystmCode2`).
    public static let englishClassification = "tourapi-lcls-en.tsv"
    /// The service classification's file (`categoryCode2`).
    public static let serviceCategories = "tourapi-cat.tsv"
    /// The areas (level 1: `areaCode`) and each area's 시군구 (level 2: `sigunguCode`, its parent the
    /// area's code), as `areaCode2` lists them.
    public static let areas = "tourapi-area.tsv"

    public struct NotFound: NearbyError {
        public var fileName: String
        public var searched: [String]
        public var kind: ErrorKind { .notFound }
        public var description: String {
            "TourAPI's codes \(fileName) were not found; set NEARBY_DATA to the repository's data/ folder. "
                + "Looked in: " + searched.joined(separator: ", ")
        }
    }

    /// A line of the file that is not `level`, `code`, `name`, `parent`.
    public struct Damaged: NearbyError {
        public var fileName: String
        public var line: Int
        public var kind: ErrorKind { .damaged }
        public var description: String { "\(fileName):\(line): not level, code, name and parent separated by tabs" }
    }

    /// Every code, in the service's order (each level 1 code, then its level 2 codes, each followed by
    /// its level 3 codes).
    public static func load(_ fileName: String) throws -> [TourCode] {
        let dirs = DefaultDataset.candidateDirectories()
        guard let dir = dirs.first(where: { FileManager.default.fileExists(atPath: $0 + "/" + fileName) }) else {
            throw NotFound(fileName: fileName, searched: dirs)
        }
        let text = try String(contentsOfFile: dir + "/" + fileName, encoding: .utf8)
        var entries: [TourCode] = []
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated().dropFirst() {
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 4, let level = Int(parts[0]), (1...3).contains(level), !parts[1].isEmpty else {
                throw Damaged(fileName: fileName, line: n + 1)
            }
            entries.append(TourCode(level: level, code: parts[1], name: parts[2], parent: parts[3]))
        }
        return entries
    }
}
