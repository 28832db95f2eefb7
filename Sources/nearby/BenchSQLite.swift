import Foundation
import NearbyCore
import NearbyStore

/// The sqlite engine under test: the places imported into a fresh cache in a temporary folder.
enum BenchSQLite {
    /// Imports `places` (timed), then opens one engine per thread (timed); the closure deletes the cache.
    static func make(_ places: [Place], threads: Int) throws -> (engines: [any QueryEngine], importSeconds: Double, buildSeconds: Double, cleanup: () -> Void) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nearby-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let cleanup = { _ = try? FileManager.default.removeItem(atPath: folder) }
        do {
            let path = folder + "/bench.sqlite"
            let (_, importSeconds) = try BenchClock.measure {
                let cache = try PlaceCache(path: path)
                try cache.write { w in for p in places { try w.upsert(p) } }
            }
            throw WorkloadError(description: "the sqlite engine is not in this build yet (imported \(places.count) places in \(importSeconds) s)")
        } catch {
            cleanup()
            throw error
        }
    }
}
