import NearbyKit

/// How the server opens an engine over the cache, at start and at each reload. The engine is chosen
/// here and nowhere else: `EngineProvider.default` is the one line to change for another engine.
public struct EngineProvider: Sendable {
    /// Opens an engine over `cache` (the provider may keep `cache` for the engine's lifetime).
    public let open: @Sendable (PlaceCache) throws -> any QueryEngine
    /// The engine answers from many threads at once (the server opens it once per generation);
    /// otherwise each of the server's lanes opens its own.
    public let isConcurrent: Bool
    /// Small queries may run at once on the event loop thread that read the request (`LanePool`): the
    /// engines over a cache answer them in microseconds. Off for an engine that can stall a loop.
    public let runsSmallQueriesInline: Bool

    public init(
        isConcurrent: Bool, runsSmallQueriesInline: Bool = true,
        open: @escaping @Sendable (PlaceCache) throws -> any QueryEngine
    ) {
        self.isConcurrent = isConcurrent
        self.runsSmallQueriesInline = runsSmallQueriesInline
        self.open = open
    }

    /// An `EngineKind`: the memory engine is read-only once built; the snapshot and SQLite engines read
    /// rows through their SQLite connection, so each lane has its own.
    public static func kind(_ kind: EngineKind) -> EngineProvider {
        EngineProvider(isConcurrent: kind == .memory) { try kind.open($0) }
    }

    public static let `default` = EngineProvider.kind(.snapshot)
}
