import Foundation
import NearbyCore

/// The index snapshot beside a cache (`places.sqlite` → `places.sqlite.nearby-index`, format in
/// `IndexSnapshot`): written after every write to the cache, mapped by `nearby query`.
///
/// A snapshot is used only when it was made from this cache file at its current generation and
/// passes `IndexSnapshot`'s checks. Otherwise `engine(for:)` rebuilds it (saying so once), or, when
/// the folder cannot be written, answers from memory (saying why): no path answers from a snapshot
/// that does not match the cache. A crash between the cache's commit and the snapshot's rename
/// leaves an older generation on disk, which the next query notices and rebuilds.
public enum CacheSnapshot {
    /// Where the snapshot of the cache at `cachePath` lives.
    public static func path(ofCache cachePath: String) -> String { cachePath + ".nearby-index" }

    /// Brings the snapshot of `cache` up to date: writes it unless the one on disk already holds the
    /// cache's current state (checked from its header). Call it after every write to the cache; with
    /// the `feed` of that write, its places are written as collected instead of read back (when no
    /// other write came in between). Never throws: the cache write has committed, and a missing
    /// snapshot only costs the next query a rebuild; problems are passed to `report` (one line,
    /// without a trailing newline).
    public static func update(_ cache: PlaceCache, feed: SnapshotFeed? = nil, report: (String) -> Void = { _ in }) {
        let path = path(ofCache: cache.path)
        do {
            try beginRead(cache)
            defer { endRead(cache) }
            let wanted = try stamp(of: cache)
            var fed = feed?.take(for: wanted)
            if (try? IndexSnapshot.stamp(at: path)) == wanted { return }
            if fed != nil {
                // The write's page cache and what the import freed go back before the snapshot's columns grow.
                try cache.connection.execute("PRAGMA shrink_memory")
                FreedMemory.giveBack()
                try fed!.write(stamp: wanted, to: path)
                return
            }
            try write(cache, wanted, to: path)
        } catch {
            report("could not write the index snapshot \(path): \(error); queries will rebuild it")
        }
    }

    /// The engine `nearby query` uses by default: the cache's snapshot, mapped and used in place.
    ///
    /// The engine holds a read transaction on `cache` for the rest of the connection's life, so the
    /// rows it fetches for an answer are those of the generation the snapshot was made at, even
    /// while an import commits (WAL: the import is not blocked). A snapshot that cannot be used is
    /// rebuilt from that same read (`report` says so once); when it cannot be written, the answer
    /// comes from an in-memory engine built from the cache, and `report` says why. A block found
    /// damaged while answering (its checksum, `IndexSnapshot`) does the same, and the query is answered
    /// again from the rebuilt snapshot or from memory (`SnapshotEngine`).
    public static func engine(for cache: PlaceCache, report: @escaping (String) -> Void) throws -> any QueryEngine {
        SnapshotEngine(cache: cache, engine: try mappedEngine(for: cache, report: report), report: report)
    }

    /// The mapped engine of `engine(for:report:)`, or the engine that replaces it.
    static func mappedEngine(for cache: PlaceCache, report: (String) -> Void) throws -> any QueryEngine {
        let path = path(ofCache: cache.path)
        var problem = IndexSnapshot.Problem.missing
        // Two tries: an import that commits and writes its snapshot between our read's start and our
        // look at the file leaves a newer snapshot, which a fresh read then matches.
        let key = try cache.cursorKey()
        for attempt in 0..<2 {
            try beginRead(cache)
            let wanted = try stamp(of: cache)
            do throws(IndexSnapshot.Problem) {
                return try IndexSnapshot.engine(path, wanted: wanted, cursorKey: key) { try fetch($0, from: cache) }
            } catch {
                problem = error
            }
            guard attempt == 0, case .stale(let found, let wanted) = problem, found.identity == wanted.identity,
                found.generation > wanted.generation
            else { break }
            endRead(cache)
        }
        return try rebuilt(cache, because: problem, report: report)
    }

    /// The engine over the snapshot of `cache` rebuilt, within the current read, after `problem`, or
    /// an in-memory engine when it cannot be written (`report` says which).
    static func rebuilt(_ cache: PlaceCache, because problem: IndexSnapshot.Problem, report: (String) -> Void) throws
        -> any QueryEngine
    {
        let path = path(ofCache: cache.path)
        let key = try cache.cursorKey()
        let wanted = try stamp(of: cache)
        do {
            report("index snapshot \(path): \(problem); rebuilding it")
            try write(cache, wanted, to: path)
            return try IndexSnapshot.engine(path, wanted: wanted, cursorKey: key) { try fetch($0, from: cache) }
        } catch let error as IndexSnapshot.Problem {
            report("cannot use the index snapshot \(path): \(error); answering from memory (slower)")
            return MemoryEngine(places: try cache.places(of: .ko), generation: wanted.generation, cursorKey: key)
        }
    }

    private static func stamp(of cache: PlaceCache) throws -> IndexSnapshot.Stamp {
        IndexSnapshot.Stamp(identity: try cache.identity(), generation: try cache.generation())
    }

    private static func beginRead(_ cache: PlaceCache) throws {
        do { try cache.connection.execute("BEGIN") } catch { throw PlaceCacheError(error, path: cache.path) }
    }

    private static func endRead(_ cache: PlaceCache) { try? cache.connection.execute("COMMIT") }

    /// Writes the snapshot of what `cache` holds in the current read, stamped `stamp`: the rows
    /// stream from SQLite into `SnapshotWriter`'s columns (only the fields the snapshot holds; output
    /// fields are fetched per page), through a small page cache, since one sequential pass reuses no page.
    private static func write(_ cache: PlaceCache, _ stamp: IndexSnapshot.Stamp, to path: String) throws {
        do {
            try cache.connection.execute("PRAGMA cache_size=-\(scanCacheKiB)")
            defer { try? cache.connection.execute("PRAGMA cache_size=-\(PlaceCache.readCacheKiB)") }
            // What the import freed (its parser buffers, the region index) goes back before the columns grow.
            FreedMemory.giveBack()
            var writer = try SnapshotWriter(spillingBeside: path)
            // Whole rows, so each row's checksum is verified: a damaged value must not reach the index.
            let s = try cache.connection.prepare("SELECT \(PlaceCache.rowColumns) FROM places")
            func text(_ field: PlaceField) -> String? { s.text(Int32(field.rawValue)) }
            while try s.step() {
                // The snapshot holds the Korean places; a language's are answered apart (`TourLanguage`).
                guard TourLanguage.isKorean(id: text(.id) ?? "") else { continue }
                do { try PlaceCache.verifyChecksum(s) } catch {
                    throw PlaceCacheError.damaged(
                        path: cache.path, row: PlaceCache.rowName(s), field: error.field, reason: error.reason)
                }
                writer.append(
                    id: text(.id) ?? "", title: text(.title) ?? "", lat: s.double(Int32(PlaceField.lat.rawValue)),
                    lon: s.double(Int32(PlaceField.lon.rawValue)),
                    category: Int(s.int64(Int32(PlaceField.category.rawValue))),
                    created: text(.created), modified: text(.modified), areacode: text(.areacode),
                    sigungucode: text(.sigungucode), hasImage: !(text(.image) ?? "").isEmpty,
                    eventStart: text(.eventStart), eventEnd: text(.eventEnd),
                    accessibility: UInt32(truncatingIfNeeded: s.int64(Int32(PlaceField.allCases.count))),
                    hasDetail: { s.hasText(Int32($0.field.rawValue)) },
                    codeKeys: CodeFamily.allCases.map { $0.key(text: text) })
            }
            try writer.write(stamp: stamp, to: path)
        } catch let error as SQLiteError {
            throw PlaceCacheError(error, path: cache.path)
        }
    }

    /// SQLite page cache (KiB) while the snapshot writer scans the cache once.
    static let scanCacheKiB = 2_048

    /// The places with these ids, in that order (missing ones left out; the engine then refuses).
    private static func fetch(_ ids: [String], from cache: PlaceCache) throws -> [Place] {
        try ids.compactMap { try cache.place(id: $0) }
    }
}

/// The engine `CacheSnapshot.engine(for:report:)` returns: the mapped snapshot's, until a query meets
/// a damaged block (`IndexSnapshot.Problem`, thrown before any answer): then the snapshot is rebuilt
/// from the cache (or the engine answers from memory when it cannot be written), `report` says so,
/// and the query runs again on the new engine. A damaged snapshot is never answered from.
public final class SnapshotEngine: QueryEngine, @unchecked Sendable {
    // @unchecked: `engine` is swapped under `lock`.
    private let cache: PlaceCache
    private let report: (String) -> Void
    private let lock = NSLock()
    private var engine: any QueryEngine

    init(cache: PlaceCache, engine: any QueryEngine, report: @escaping (String) -> Void) {
        self.cache = cache
        self.engine = engine
        self.report = report
    }

    /// The engine answering now: the mapped snapshot's (`MemoryEngine`), or the one that replaced it.
    public var current: any QueryEngine {
        lock.lock()
        defer { lock.unlock() }
        return engine
    }

    public func run(_ query: PlaceQuery) throws -> QueryAnswer { try run(query, records: true) }

    public func run(_ query: PlaceQuery, records: Bool) throws -> QueryAnswer {
        let used = current
        do {
            return try used.run(query, records: records)
        } catch let problem as IndexSnapshot.Problem {
            return try replace(used, because: problem).run(query, records: records)
        }
    }

    /// Replaces `damaged` (unless another query did already) with the rebuilt snapshot's engine.
    private func replace(_ damaged: any QueryEngine, because problem: IndexSnapshot.Problem) throws -> any QueryEngine {
        lock.lock()
        defer { lock.unlock() }
        if (engine as AnyObject) !== (damaged as AnyObject) { return engine }
        engine = try CacheSnapshot.rebuilt(cache, because: problem, report: report)
        return engine
    }
}
