import Foundation
import NearbyCore
import NearbyRegions

/// Where the region files are: the same data folder as the default dataset's towns file
/// (`DefaultDataset.candidateDirectories`: NEARBY_DATA, the checkout's data/, or data/ beside the
/// executable).
public enum RegionData {
    public static let fileName = "kr_regions.bin"

    public struct NotFound: NearbyError {
        public var searched: [String]
        public var kind: ErrorKind { .notFound }
        public var description: String {
            "the region boundaries \(fileName) were not found; set NEARBY_DATA to the repository's data/ folder. "
                + "Looked in: " + searched.joined(separator: ", ")
        }
    }

    /// Path of the boundary file: the first candidate folder that holds it.
    public static func path() throws -> String {
        let dirs = DefaultDataset.candidateDirectories()
        for dir in dirs where FileManager.default.fileExists(atPath: dir + "/" + fileName) {
            return dir + "/" + fileName
        }
        throw NotFound(searched: dirs)
    }

    /// The index from the default data folder.
    public static func index() throws -> RegionIndex { try RegionIndex(contentsOf: path()) }

    /// The `--ldong` table beside the boundary file (`LegalDongCodes`), or nil when there is none.
    public static func legalDongCodes() throws -> LegalDongCodes? {
        let file = (try path() as NSString).deletingLastPathComponent + "/" + LegalDongCodes.fileName
        guard FileManager.default.fileExists(atPath: file) else { return nil }
        return try LegalDongCodes(contentsOf: file)
    }
}
