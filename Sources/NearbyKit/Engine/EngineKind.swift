import NearbyCore
import NearbyStore

/// The engines a query can run on; they give identical answers (the tests hold them to it).
public enum EngineKind: String, CaseIterable, Sendable {
    /// Loads the cache into flat columns and a packed Hilbert R-tree: microseconds a query once built.
    case memory
    /// Straight from the cache's R*Tree: no load, for one-shot queries on huge caches.
    case sqlite

    /// This engine over `cache`.
    public func open(_ cache: PlaceCache) throws -> any QueryEngine {
        switch self {
        case .sqlite: return SQLiteEngine(cache: cache)
        case .memory: return MemoryEngine(places: try cache.allPlaces(), generation: try cache.generation())
        }
    }
}
