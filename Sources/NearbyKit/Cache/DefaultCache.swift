import Foundation
import NearbyCore
import NearbyStore

/// The cache a command uses: the one named (`--db`), else the default cache, built from the default
/// dataset on first use.
public enum DefaultCache {
    /// Opens `path` when given (for writing it is created if missing; read-only it must exist), else
    /// the default cache at `CachePath.defaultPath()`, building it first when it does not exist yet.
    /// `willBuild` runs once, before building, with the path (the CLI says so on stderr).
    public static func open(path: String?, readOnly: Bool, willBuild: (String) -> Void = { _ in }) throws -> PlaceCache
    {
        if let path { return try PlaceCache(path: path, readOnly: readOnly) }
        let path = CachePath.defaultPath()
        return try openOrBuild(path: path, readOnly: readOnly, build: DefaultDataset.places) { willBuild(path) }
    }

    /// Opens the cache at `path`, first building it from `build()` when no file exists there.
    ///
    /// The places are written into a temporary file beside `path` that is renamed into place only when
    /// complete, so an interrupted first run leaves no half-built cache behind. `willBuild` runs once,
    /// before building; it does not run when the cache already exists.
    public static func openOrBuild(
        path: String, readOnly: Bool, build: () throws -> [Place], willBuild: () -> Void = {}
    ) throws -> PlaceCache {
        let files = FileManager.default
        if !files.fileExists(atPath: path) {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty { try files.createDirectory(atPath: directory, withIntermediateDirectories: true) }
            // Processes starting together on an empty cache queue here: one builds, the others find
            // its cache when they get the lock. The lock is on the cache's folder (no lock file is left
            // behind), and the system releases it when the process ends, even when it is killed.
            let lock = Foundation.open(directory.isEmpty ? "." : directory, O_RDONLY)
            if lock >= 0 { flock(lock, LOCK_EX) }
            defer { if lock >= 0 { close(lock) } }
            if !files.fileExists(atPath: path) {
                willBuild()
                let partial = path + ".building-\(ProcessInfo.processInfo.processIdentifier)"
                try? files.removeItem(atPath: partial)
                defer { try? files.removeItem(atPath: partial) }
                let places = try build()
                // Closed (WAL checkpointed and removed) at the end of this scope, before the rename.
                _ = try Importer().importPlaces(places, into: PlaceCache(path: partial))
                try files.moveItem(atPath: partial, toPath: path)
                CacheSnapshot.update(try PlaceCache(path: path, readOnly: true))
            }
        }
        return try PlaceCache(path: path, readOnly: readOnly)
    }
}
