import Foundation
import NearbyCore
import NearbyRegions

/// The repository's `data/` files, found from this source file's path, for tests of the model on
/// real towns without NearbyKit: what `DefaultDataset` (NearbyKit) reads in a checkout.
/// NearbyKitTests's `DefaultDatasetTests` holds the two to the same towns, seed and count.
public enum RepositoryData {
    /// `DefaultDataset.seed`.
    public static let defaultSeed: UInt64 = 2026
    /// `DefaultDataset.count`.
    public static let defaultCount = 100_000

    /// The repository's `data/` folder: Tests/NearbyTestSupport/RepositoryData.swift → repository root.
    public static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("data")

    /// Path of the region boundaries, `data/kr_regions.bin` (what NearbyKit's `RegionData.path()` finds in a checkout).
    public static func regionsPath() throws -> String {
        folder.appendingPathComponent("kr_regions.bin").path
    }

    /// The real towns of `data/kr_points.tsv`, in file order.
    public static func towns() throws -> [KoreanTown] {
        let path = folder.appendingPathComponent("kr_points.tsv").path
        return try KoreanTowns.parse(try Data(contentsOf: URL(fileURLWithPath: path)), source: path)
    }

    /// The first `count` places of the default dataset (`PlaceGenerator` over `towns()` with
    /// `defaultSeed`, its points kept in their towns' regions by `regions()`, as `DefaultDataset`
    /// does; a generator's first places do not depend on how many it makes).
    public static func defaultPlaces(count: Int = defaultCount) throws -> [Place] {
        PlaceGenerator(towns: try towns(), seed: defaultSeed, regions: try regions().placeTest).places(count: count)
    }

    /// The region index of `data/kr_regions.bin`, loaded once.
    public static func regions() throws -> RegionIndex { try loadedRegions.get() }
    private static let loadedRegions = Result { try RegionIndex(contentsOf: regionsPath()) }
}
