import Foundation
import NearbyKit

/// The sqlite engine under test: the places imported into a fresh cache in a temporary folder, then
/// one read-only connection (one `SQLiteEngine`) per thread, since a connection serves one thread.
/// With `snapshot`, the cache's index snapshot engine over each connection instead (the first one
/// writes the snapshot).
public enum BenchSQLite {
    /// Imports `places` in one transaction, as `nearby import` writes them (timed), then opens the
    /// engines (timed). The returned closure deletes the cache.
    public static func make(_ places: [Place], threads: Int, snapshot: Bool = false) throws -> (
        engines: [any QueryEngine], importSeconds: Double, buildSeconds: Double, cleanup: () -> Void
    ) {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("nearby-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let cleanup = { _ = try? FileManager.default.removeItem(atPath: folder) }
        do {
            let path = folder + "/bench.sqlite"
            let (_, importSeconds) = try BenchClock.measure {
                _ = try Importer().importPlaces(places, into: PlaceCache(path: path))
            }
            let (engines, buildSeconds) = try BenchClock.measure {
                try (0..<threads).map { _ in
                    snapshot
                        ? try EngineKind.snapshot.open(try PlaceCache(path: path, readOnly: true))
                        : SQLiteEngine(cache: try PlaceCache(path: path, readOnly: true)) as any QueryEngine
                }
            }
            return (engines, importSeconds, buildSeconds, cleanup)
        } catch {
            cleanup()
            throw error
        }
    }
}
