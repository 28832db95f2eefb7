import NearbyCore
import NearbyStore

/// The engines a query can run on; they give identical answers (the tests hold them to it).
public enum EngineKind: String, CaseIterable, Sendable {
    /// The cache's index snapshot, mapped (the default): no load, no build, microseconds a query from a
    /// cold process. Rebuilt when missing or stale; from memory when it cannot be written.
    case snapshot
    /// Loads the cache into flat columns and a packed Hilbert R-tree: microseconds a query once built.
    case memory
    /// Straight from the cache's R*Tree: no load, for one-shot queries on huge caches.
    case sqlite
    /// A PostgreSQL/PostGIS database (`--pg URL`), not a cache: several servers over one database.
    case postgis

    /// The engines that answer from a cache file (all but `postgis`).
    public static let overCache: [EngineKind] = [.snapshot, .memory, .sqlite]

    /// This engine over `cache`; `report` hears, once, when the snapshot is rebuilt or cannot be used.
    public func open(_ cache: PlaceCache, report: @escaping (String) -> Void = { _ in }) throws -> any QueryEngine {
        switch self {
        case .snapshot: return try CacheSnapshot.engine(for: cache, report: report)
        case .sqlite: return SQLiteEngine(cache: cache, cursorKey: try cache.cursorKey())
        case .memory:
            return MemoryEngine(
                places: try cache.places(of: .ko), generation: try cache.generation(), cursorKey: try cache.cursorKey())
        case .postgis:
            throw UsageError(
                "--engine postgis reads a PostgreSQL database, not a cache: give --pg URL or set NEARBY_PG")
        }
    }
}
