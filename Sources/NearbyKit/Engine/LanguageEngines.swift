import Foundation
import NearbyCore
import NearbyStore

/// The places of each language synced from TourAPI's language services (`TourLanguage`), as engines of
/// their own beside the cache's Korean engine: each language's places loaded once from the cache into a
/// `MemoryEngine` (the first query in that language pays it; a language service publishes some
/// thousands of places, a fraction of the Korean ones), shared by every thread (the memory engine is
/// read-only once built). A language with no places answers empty pages.
///
/// Loads read the cache through a connection of their own, so the engines can be shared by callers that
/// each hold a connection (the server's lanes).
public final class LanguageEngines: @unchecked Sendable {
    // @unchecked: `engines` is touched under `lock`.
    public let path: String
    private let lock = NSLock()
    private var engines: [TourLanguage: MemoryEngine] = [:]

    /// The languages of the cache at `path`.
    public init(path: String) { self.path = path }

    /// The engine of `language`'s places (not Korean: the cache's own engine answers those).
    public func engine(for language: TourLanguage) throws -> MemoryEngine {
        precondition(language != .ko, "the Korean places are the cache's own engine's")
        lock.lock()
        defer { lock.unlock() }
        if let engine = engines[language] { return engine }
        let read = try PlaceCache(path: path, readOnly: true).snapshot(of: language)
        let engine = MemoryEngine(places: read.places, generation: read.generation, cursorKey: read.cursorKey)
        engines[language] = engine
        return engine
    }

    /// An engine that answers a Korean query on `korean` and any other on its language's engine.
    public func dispatching(_ korean: any QueryEngine) -> any QueryEngine {
        LanguageDispatch(korean: korean, languages: self)
    }
}

/// `LanguageEngines.dispatching`: the query's language picks the engine.
struct LanguageDispatch: QueryEngine, @unchecked Sendable {
    // @unchecked: `korean` is used as its owner would use it (one query at a time per lane).
    let korean: any QueryEngine
    let languages: LanguageEngines

    func run(_ query: PlaceQuery) throws -> QueryAnswer {
        if query.language == .ko { return try korean.run(query) }
        return try languages.engine(for: query.language).run(query)
    }

    func run(_ query: PlaceQuery, records: Bool) throws -> QueryAnswer {
        if query.language == .ko { return try korean.run(query, records: records) }
        return try languages.engine(for: query.language).run(query, records: records)
    }
}

extension PlaceClusters {
    /// The hierarchy of `request`'s places from the table behind `engine` without a query
    /// (`PlaceClusters(table:request:kept:report:)`): the Korean engine behind a lane's language dispatch,
    /// the mapped snapshot's behind `SnapshotEngine`. Nil when the engine holds no table (SQLite,
    /// PostGIS) or the request asks more than a filter; throws `IndexSnapshot.Problem` when the
    /// snapshot is damaged (the caller then asks the engine, which rebuilds it).
    public static func fromTable(
        of engine: any QueryEngine, _ request: ClusterRequest, kept: ClusterFile.Location? = nil,
        report: @escaping @Sendable (String) -> Void = { _ in }
    ) throws -> PlaceClusters? {
        var inner = engine
        if let dispatch = inner as? LanguageDispatch { inner = dispatch.korean }
        if let snapshot = inner as? SnapshotEngine { inner = snapshot.current }
        guard let table = (inner as? MemoryEngine)?.table else { return nil }
        return try PlaceClusters(table: table, request: request, kept: kept, report: report)
    }
}
