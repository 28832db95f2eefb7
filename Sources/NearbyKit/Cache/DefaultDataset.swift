import Foundation
import NearbyCore

/// The dataset Nearby answers from when no cache has been built yet: `PlaceGenerator` at a fixed
/// count and seed around the real towns of `data/kr_points.tsv` (what is real and what is generated:
/// data/README.md).
///
/// Where `data/` is, first match wins:
/// 1. the `NEARBY_DATA` environment variable (a folder holding `kr_points.tsv`); when set, it is the
///    only place looked at, so a wrong value is an error rather than a silent fallback;
/// 2. the repository's `data/`, found from this source file's path (`#filePath`), for builds run
///    from a checkout;
/// 3. `data/` next to the executable, or `../share/nearby/data` from it, for installed copies.
public enum DefaultDataset {
    public static let count = 100_000
    public static let seed: UInt64 = 2026
    public static let townsFileName = "kr_points.tsv"
    /// Bump when the generator's output changes, so a cache built from an older default can be rebuilt.
    public static let version = 3
    /// One line for humans and cache metadata.
    public static let summary =
        "default dataset v\(version): \(count) generated places (seed \(seed)) around the real towns of \(townsFileName)"

    public struct NotFound: NearbyError {
        public var searched: [String]
        public var kind: ErrorKind { .notFound }
        public var description: String {
            "the default dataset's \(townsFileName) was not found; set NEARBY_DATA to the repository's data/ "
                + "folder. Looked in: " + searched.joined(separator: ", ")
        }
    }

    /// Candidate data folders in search order (see the type's documentation).
    public static func candidateDirectories(
        environment: [String: String] = ProcessInfo.processInfo.environment, sourceFile: String = #filePath
    ) -> [String] {
        if let env = environment["NEARBY_DATA"], !env.isEmpty { return [env] }
        var dirs: [String] = []
        // Sources/NearbyKit/Cache/DefaultDataset.swift → repository root.
        var repo = URL(fileURLWithPath: sourceFile)
        for _ in 0..<4 { repo = repo.deletingLastPathComponent() }
        dirs.append(repo.appendingPathComponent("data").path)
        if let exe = executableFolder() {
            dirs.append(exe.appendingPathComponent("data").path)
            dirs.append(exe.deletingLastPathComponent().appendingPathComponent("share/nearby/data").path)
        }
        return dirs
    }

    /// The running executable's folder, symbolic links resolved. Not from `Bundle.main` on Linux:
    /// Foundation's main bundle traps when it cannot stat the executable (a binary in a folder
    /// private to another user, run through `setpriv` or `sudo -u`), and this is only a search path.
    static func executableFolder() -> URL? {
        #if os(Linux)
            guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
                return nil
            }
            return URL(fileURLWithPath: path).deletingLastPathComponent()
        #else
            return Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent()
        #endif
    }

    /// The data folder: the first candidate that holds `kr_points.tsv`.
    public static func directory() throws -> String {
        let dirs = candidateDirectories()
        for dir in dirs where FileManager.default.fileExists(atPath: dir + "/" + townsFileName) { return dir }
        throw NotFound(searched: dirs)
    }

    /// Path of the real towns file.
    public static func townsPath() throws -> String {
        try directory() + "/" + townsFileName
    }

    public static func towns() throws -> [KoreanTown] {
        try loadTowns(path: townsPath())
    }

    /// Loads and checks a towns file (columns code level sido sigungu emd ri lat lon area_km2).
    public static func loadTowns(path: String) throws -> [KoreanTown] {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw KoreanTowns.FormatError(description: "\(path): cannot read: \(error.localizedDescription)", kind: .io)
        }
        return try KoreanTowns.parse(data, source: path)
    }

    /// The default places: `count` places from `generator()` with `seed`. About a second in release.
    public static func places() throws -> [Place] {
        try generator(seed: seed).places(count: count)
    }

    /// The generator of the default dataset and of `nearby generate`: around `towns` (the default
    /// towns when nil), its points kept inside their towns' regions by the region index
    /// (`RegionData.index`), so every place's legal-dong codes agree with its coordinates.
    public static func generator(seed: UInt64, towns: [KoreanTown]? = nil) throws -> PlaceGenerator {
        PlaceGenerator(towns: try towns ?? Self.towns(), seed: seed, regions: try RegionData.index().placeTest)
    }
}
