import Foundation
import NearbyCore
import NearbyTestSupport

@testable import NearbyRegions

/// The real index from data/kr_regions.bin, loaded once per test process.
enum SharedIndex {
    private static let loaded = Result { try RegionIndex(contentsOf: RepositoryData.regionsPath()) }

    static func get() throws -> RegionIndex { try loaded.get() }

    /// The single region a code or name resolves to (today's or an older code).
    static func region(_ text: String) throws -> Region {
        guard case .found(let found) = try get().resolve(text), found.count == 1 else {
            throw Failure("'\(text)' does not resolve to one region")
        }
        return found[0]
    }

    /// The folder of this test target's fixtures.
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/" + name).path
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

extension RegionLocation {
    var path: RegionPath? {
        if case .inside(let path) = self { return path }
        return nil
    }
}
