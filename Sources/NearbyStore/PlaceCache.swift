import CSQLite
import Foundation
import NearbyCore

/// The persistent cache of places: one SQLite file.
///
/// Layout (schema version 1, `PRAGMA application_id` = `PlaceCache.applicationID`):
/// - `places`: an integer `rowid`, the unique text `id`, then every `Place` field under its JSON name.
///   `accessibility` is the tag list joined with "," (NULL when empty) so it round-trips exactly, and
///   `accessMask` is the bitmask of its known tags (`Accessibility.mask`) for SQL filters.
/// - `places_rtree(rowid, minLon, maxLon, minLat, maxLat)`: an R*Tree over the same rowids. R*Tree boxes are
///   32-bit floats, so each point is stored as the box from the Float just below to the Float just above it:
///   the true point is always inside, and `candidates` returns a superset the caller refines exactly.
/// - `meta(key, value)`: `generation`, bumped by every write that changes a row, so an in-memory index
///   knows when to rebuild; `identity`, a random number drawn when the file is created, so an index
///   snapshot of a deleted and re-created cache is not taken for this one's (older files have none: 0).
///
/// The file is in WAL mode with synchronous=NORMAL: readers never wait for an import, and a committed
/// import survives a crash of the process (a power loss may lose the last commit, never corrupt the file).
/// Writers take the lock with BEGIN IMMEDIATE and a short busy timeout, so a second concurrent writer
/// fails quickly with `PlaceCacheError.busy` instead of waiting or corrupting anything.
///
/// A `PlaceCache` is one connection: use it from one thread at a time.
public final class PlaceCache {
    /// "NRBY": marks a SQLite file as a Nearby cache.
    public static let applicationID: Int64 = 0x4E52_4259
    /// The schema version this code reads and writes. Opening a file with a newer version is refused.
    public static let schemaVersion: Int64 = 1
    /// How long a writer waits for another writer before reporting `busy`.
    static let busyTimeoutMilliseconds: Int32 = 250

    public let path: String
    let connection: SQLiteConnection
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens the cache at `path`. Unless `readOnly`, a missing file (or an empty SQLite file) is created
    /// with the current schema. Throws `PlaceCacheError` naming the path for a missing file (read-only),
    /// a file that is not SQLite or is corrupted, a foreign SQLite file, or a newer schema version.
    public init(path: String, readOnly: Bool = false) throws {
        self.path = path
        do {
            connection = try SQLiteConnection(path: path, readOnly: readOnly, create: !readOnly)
        } catch {
            throw PlaceCacheError.cannotOpen(path: path, reason: Self.missing(path, readOnly: readOnly) ?? error.message)
        }
        connection.setBusyTimeout(milliseconds: Self.busyTimeoutMilliseconds)
        do {
            try checkSchema(readOnly: readOnly)
            try connection.execute("PRAGMA synchronous=NORMAL; PRAGMA cache_size=-131072")
        } catch let error as SQLiteError {
            throw PlaceCacheError(error, path: path)
        }
    }

    /// What is missing when a cache cannot be opened, in words SQLite does not have ("unable to open
    /// database file" says neither which part of the path is wrong nor what to do).
    private static func missing(_ path: String, readOnly: Bool) -> String? {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        if !folder.isEmpty && access(folder, F_OK) != 0 { return "no folder \(folder)" }
        if readOnly && access(path, F_OK) != 0 { return "no such file (nearby import creates a cache)" }
        return nil
    }

    /// Reads the header and the schema (which also catches a non-SQLite or corrupted first page), and
    /// creates the schema in an empty file.
    private func checkSchema(readOnly: Bool) throws {
        let application = try connection.integer("PRAGMA application_id")
        let version = try connection.integer("PRAGMA user_version")
        let objects = try connection.integer("SELECT count(*) FROM sqlite_master")
        if application == 0 && version == 0 && objects == 0 {
            if readOnly { throw PlaceCacheError.notACache(path: path, reason: "the database is empty") }
            return try createSchema()
        }
        guard application == Self.applicationID else {
            throw PlaceCacheError.notACache(path: path, reason: "a SQLite file of another application")
        }
        if version > Self.schemaVersion {
            throw PlaceCacheError.newerSchema(path: path, version: version, supported: Self.schemaVersion)
        }
        guard version == Self.schemaVersion else {
            throw PlaceCacheError.notACache(path: path, reason: "unknown schema version \(version)")
        }
    }

    private func createSchema() throws {
        try connection.execute("PRAGMA journal_mode=WAL")
        try transaction {
            // Another process may have created the schema between our check and our lock.
            guard try connection.integer("SELECT count(*) FROM sqlite_master") == 0 else { return }
            try connection.execute("""
                CREATE TABLE places(
                    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
                    lat REAL NOT NULL, lon REAL NOT NULL, category INTEGER NOT NULL,
                    created TEXT, modified TEXT, areacode TEXT, sigungucode TEXT, addr TEXT, tel TEXT,
                    image TEXT, cat1 TEXT, cat2 TEXT, cat3 TEXT, eventStart TEXT, eventEnd TEXT,
                    accessibility TEXT, accessMask INTEGER NOT NULL DEFAULT 0,
                    lDongRegnCd TEXT, lDongSignguCd TEXT, lclsSystm1 TEXT, lclsSystm2 TEXT, lclsSystm3 TEXT);
                \(RTreeBulkLoader.createSQL);
                CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
                INSERT INTO meta VALUES('generation', 0);
                INSERT INTO meta VALUES('identity', random());
                PRAGMA application_id=\(Self.applicationID);
                PRAGMA user_version=\(Self.schemaVersion);
                """)
        }
    }

    /// Runs `body` in one write transaction (BEGIN IMMEDIATE): committed when it returns, rolled back
    /// when it throws. Throws `PlaceCacheError.busy` when another connection is writing.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            throw PlaceCacheError(error, path: path)
        }
        do {
            let result = try body()
            try connection.execute("COMMIT")
            return result
        } catch {
            try? connection.execute("ROLLBACK")
            if let error = error as? SQLiteError { throw PlaceCacheError(error, path: path) }
            throw error
        }
    }

    // MARK: Reading

    /// The columns `place(from:)` decodes: every `PlaceField`, in its order, under its JSON name.
    static let placeColumns = PlaceField.allCases.map(\.name).joined(separator: ", ")

    /// Decodes the row at `statement`'s cursor, whose columns from `first` on are `placeColumns`.
    static func place(from s: SQLiteStatement, first c: Int32 = 0) -> Place {
        Place(
            id: s.text(c) ?? "", title: s.text(c + 1) ?? "", lat: s.double(c + 2), lon: s.double(c + 3),
            category: Int(s.int64(c + 4)), created: s.text(c + 5), modified: s.text(c + 6),
            areacode: s.text(c + 7), sigungucode: s.text(c + 8), addr: s.text(c + 9), tel: s.text(c + 10),
            image: s.text(c + 11), cat1: s.text(c + 12), cat2: s.text(c + 13), cat3: s.text(c + 14),
            eventStart: s.text(c + 15), eventEnd: s.text(c + 16),
            accessibility: s.text(c + 17).map(accessibilityTags) ?? [],
            lDongRegnCd: s.text(c + 18), lDongSignguCd: s.text(c + 19),
            lclsSystm1: s.text(c + 20), lclsSystm2: s.text(c + 21), lclsSystm3: s.text(c + 22))
    }

    static func accessibilityText(_ tags: [String]) -> String? {
        tags.isEmpty ? nil : tags.joined(separator: ",")
    }

    static func accessibilityTags(_ text: String) -> [String] {
        text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    /// Runs a query of places (its first columns are `placeColumns`) after `bind`, calling `body` per row.
    private func eachPlace(
        _ sql: String, bind: (SQLiteStatement) throws -> Void = { _ in }, _ body: (Place) throws -> Void
    ) throws {
        do {
            // Prepared once per connection and reused: a lookup by id or a small box costs microseconds,
            // and preparing would cost more. Taken out while running, so a nested call prepares its own.
            let statement = try statements.removeValue(forKey: sql) ?? connection.prepare(sql)
            defer {
                statement.reset()  // ends the read snapshot, so the next call sees newer commits
                statements[sql] = statement
            }
            try bind(statement)
            while try statement.step() { try body(Self.place(from: statement)) }
        } catch let error as SQLiteError {
            throw PlaceCacheError(error, path: path)
        }
    }

    /// Every cached place, in rowid order (roughly import order). About a microsecond per row.
    public func allPlaces() throws -> [Place] {
        var places: [Place] = []
        places.reserveCapacity(try count())
        try eachPlace("SELECT \(Self.placeColumns) FROM places") { places.append($0) }
        return places
    }

    /// Calls `body` with every cached place in id order (byte order of the UTF-8 ids), streaming: the
    /// export path, which must not hold a million places in memory.
    public func forEachPlaceByID(_ body: (Place) throws -> Void) throws {
        try eachPlace("SELECT \(Self.placeColumns) FROM places ORDER BY id", body)
    }

    public func count() throws -> Int {
        do { return Int(try connection.integer("SELECT count(*) FROM places")) } catch {
            throw PlaceCacheError(error, path: path)
        }
    }

    public func place(id: String) throws -> Place? {
        var found: Place?
        try eachPlace("SELECT \(Self.placeColumns) FROM places WHERE id = ?1", bind: { try $0.bind(1, id) }) {
            found = $0
        }
        return found
    }

    /// The places whose R*Tree box meets the box [minLon, maxLon] × [minLat, maxLat]: every place inside
    /// it and possibly a few just outside (boxes are 32-bit floats). The caller refines exactly, and splits
    /// a box that crosses the antimeridian (minLon > maxLon is an empty box here).
    public func candidates(minLon: Double, minLat: Double, maxLon: Double, maxLat: Double) throws -> [Place] {
        var places: [Place] = []
        let sql = """
            SELECT \(Self.placeColumns) FROM places_rtree r JOIN places USING (rowid)
            WHERE r.maxLon >= ?1 AND r.minLon <= ?3 AND r.maxLat >= ?2 AND r.minLat <= ?4
            """
        try eachPlace(sql, bind: { s in
            try s.bind(1, minLon); try s.bind(2, minLat); try s.bind(3, maxLon); try s.bind(4, maxLat)
        }) { places.append($0) }
        return places
    }

    /// Bumped by every committed write that changed at least one row: an in-memory index built at
    /// generation g is current while `generation()` still returns g.
    public func generation() throws -> Int64 {
        do { return try connection.integer("SELECT value FROM meta WHERE key = 'generation'") } catch {
            throw PlaceCacheError(error, path: path)
        }
    }

    /// The random number drawn when the cache file was created (0 for caches made before it existed).
    public func identity() throws -> Int64 {
        do { return try connection.integer("SELECT coalesce((SELECT value FROM meta WHERE key = 'identity'), 0)") } catch {
            throw PlaceCacheError(error, path: path)
        }
    }

    /// `PRAGMA integrity_check`: "ok", or SQLite's list of problems.
    public func integrityCheck() throws -> String {
        do {
            let statement = try connection.prepare("PRAGMA integrity_check")
            var lines: [String] = []
            while try statement.step() { lines.append(statement.text(0) ?? "") }
            return lines.joined(separator: "\n")
        } catch {
            throw PlaceCacheError(error, path: path)
        }
    }
}

/// Why the cache could not be opened, read or written. Every message starts with the file's path.
public enum PlaceCacheError: Error, CustomStringConvertible, Equatable {
    /// The file could not be opened (missing in read-only mode, a directory, no permission).
    case cannotOpen(path: String, reason: String)
    /// Not a SQLite file, a corrupted one, or a SQLite file that is not a Nearby cache.
    case notACache(path: String, reason: String)
    /// Written by a newer Nearby whose schema this one does not know.
    case newerSchema(path: String, version: Int64, supported: Int64)
    /// Another process is writing to the cache.
    case busy(path: String)
    case sqlite(path: String, message: String)

    init(_ error: SQLiteError, path: String) {
        switch error.code & 0xff {
        case SQLITE_NOTADB, SQLITE_CORRUPT: self = .notACache(path: path, reason: error.message)
        case SQLITE_BUSY, SQLITE_LOCKED: self = .busy(path: path)
        default: self = .sqlite(path: path, message: error.message)
        }
    }

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "\(path): cannot open the cache: \(reason)"
        case let .notACache(path, reason): "\(path): not a Nearby cache: \(reason)"
        case let .newerSchema(path, version, supported):
            "\(path): the cache has schema version \(version), newer than this nearby understands "
                + "(\(supported)); upgrade nearby or choose another file with --db"
        case let .busy(path): "\(path): the cache is busy: another import is writing to it; try again when it is done"
        case let .sqlite(path, message): "\(path): \(message)"
        }
    }
}
