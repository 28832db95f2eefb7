import CSQLite
import Foundation
import NearbyCore

/// The persistent cache of places: one SQLite file.
///
/// Layout (schema version 6, `PRAGMA application_id` = `PlaceCache.applicationID`):
/// - `places`: an integer `rowid`, the unique text `id`, then every `Place` field under its JSON name.
///   `accessibility` is the tag list joined with "," (NULL when empty) so it round-trips exactly, and
///   `accessMask` is the bitmask of its known tags and their visitor groups (`Accessibility.placeMask`).
///   `checksum` is the `RowChecksum` of the other columns (`checkedColumns`), checked by every read of a row.
///   `changed`, outside the checksum, is when the cache last wrote the row (`ChangeHistory.swift`).
/// - `removed_places(id, changed, place)`: the places writes removed, and when (`ChangeHistory.swift`).
/// - `pending_details(id, kind, fields)`: details for places not cached yet (`pendingDetailsSQL`).
/// - `places_rtree(rowid, minLon, maxLon, minLat, maxLat)`: an R*Tree over the same rowids. R*Tree boxes are
///   32-bit floats, so each point is stored as the box from the Float just below to the Float just above it:
///   the true point is always inside, and `candidates` returns a superset the caller refines exactly.
/// - `meta(key, value)`: `generation`, bumped by every write that changes a row, so an in-memory index
///   knows when to rebuild; `cursorKey0`, `cursorKey1`: the secret 128-bit key that signs page cursors
///   (`PageCursor`), random per cache, written with the schema (or by the first write to a cache made
///   before cursors were signed); `identity`, a random number drawn when the file is created, so an
///   index snapshot of a deleted and re-created cache is not taken for this one's (older files: 0).
/// - `users`, `user_tokens` and the personal items `user_bookmarks`, `user_ratings`, `user_memos`,
///   `user_visits`, `user_history` (`PersonalStore.swift`): per user and place id, never written by an
///   import and not counted in `generation`.
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
    /// The schema version this code reads and writes. Opening a file with a newer version is refused;
    /// an older one is upgraded in place by `migrations` (which needs write access to the file).
    public static let schemaVersion: Int64 = 6
    /// `migrations[v]` turns schema version v into v + 1. Each adds columns or tables (nullable, or filled
    /// from the row), so a migrated cache holds the same places. Version 3 also gives `accessMask` the
    /// visitor-group bits (the index snapshot format changed with it, so an old snapshot is rebuilt, not
    /// reused). A step that writes stored values must come before the checksum step, or refill the
    /// checksums (`RowChecksum.fill`) after it.
    static let migrations: [Int64: @Sendable (SQLiteConnection) throws -> Void] = [
        1: {
            try $0.execute(
                "ALTER TABLE places ADD COLUMN kakaoCategory TEXT; ALTER TABLE places ADD COLUMN lDongSource TEXT")
        },
        2: {
            try $0.execute(
                "ALTER TABLE places ADD COLUMN pet TEXT; ALTER TABLE places ADD COLUMN barrierFree TEXT; "
                    + "ALTER TABLE places ADD COLUMN petInfo TEXT; \(pendingDetailsSQL); \(groupBitsSQL)")
        },
        // Per-row checksums, taken from the rows as they are.
        3: { db in
            try db.execute("ALTER TABLE places ADD COLUMN checksum INTEGER")
            try RowChecksum.fill(db)
        },
        // The personal tables (users, bookmarks, ratings, memos, visits, search history).
        4: { try $0.execute(personalSQL) },
        // The change history: when each row was written, and the places removed.
        5: { db in
            if try db.integer("SELECT count(*) FROM pragma_table_info('places') WHERE name = 'changed'") == 0 {
                try db.execute("ALTER TABLE places ADD COLUMN changed TEXT")
            }
            try db.execute(
                removedPlacesSQL.replacingOccurrences(of: "CREATE TABLE", with: "CREATE TABLE IF NOT EXISTS"))
        },
    ]
    /// Details (`PlaceDetail`) whose place is not cached yet: kind is `barrierFree` or `pet`, fields the
    /// detail's `originalText`. The writer merges them into the place when it arrives, and drops them.
    static let pendingDetailsSQL =
        "CREATE TABLE pending_details(id TEXT NOT NULL, kind TEXT NOT NULL, fields TEXT NOT NULL, PRIMARY KEY(id, kind)) WITHOUT ROWID"
    /// Sets each visitor group's bit in `accessMask` where a facility of the group is (`Accessibility.placeMask`).
    static let groupBitsSQL: String = {
        let terms = Accessibility.categories.map { group in
            let members = Accessibility.mask(Accessibility.members[group]!)!
            return "(CASE WHEN accessMask & \(members) != 0 THEN \(Accessibility.bit(group)!) ELSE 0 END)"
        }
        return "UPDATE places SET accessMask = accessMask | " + terms.joined(separator: " | ")
            + " WHERE accessMask != 0"
    }()
    /// SQLite page cache for reads (KiB): a whole-cache read of 1M places touches ~300 MB of pages.
    static let readCacheKiB = 131_072
    /// SQLite page cache while writing (KiB): enough for the id index's hot pages.
    static let writeCacheKiB = 16_384
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
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw PlaceCacheError.cannotOpen(
                path: path, reason: "it is a folder; name a file, e.g. \(path)/places.sqlite")
        }
        do {
            connection = try Self.connect(path, readOnly: readOnly)
        } catch {
            throw PlaceCacheError.cannotOpen(
                path: path, reason: Self.missing(path, readOnly: readOnly) ?? error.message)
        }
        connection.setBusyTimeout(milliseconds: Self.busyTimeoutMilliseconds)
        do {
            try checkSchema(readOnly: readOnly)
            try connection.execute("PRAGMA synchronous=NORMAL; PRAGMA cache_size=-\(Self.readCacheKiB)")
        } catch let error as SQLiteError {
            if error.code & 0xff == SQLITE_READONLY, !readOnly {
                throw PlaceCacheError.cannotOpen(
                    path: path,
                    reason:
                        "the file or its folder is read-only; reading commands work, imports need write access to both")
            }
            throw PlaceCacheError(error, path: path)
        }
    }

    /// Opens the connection. A WAL-mode file is read through its `-shm` index, which SQLite must create
    /// when it is missing; in a folder this process cannot write it cannot, and every read fails with
    /// "attempt to write a readonly database". Then, when nothing is waiting in a `-wal` file (every
    /// commit checkpointed; the last connection to close does that), the file is opened `immutable`: no
    /// process can be writing it, as a writer would need to create that `-wal` in the same folder.
    private static func connect(_ path: String, readOnly: Bool) throws(SQLiteError) -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, readOnly: readOnly, create: !readOnly)
        guard readOnly, access(folder(of: path), W_OK) != 0, access(path + "-shm", F_OK) != 0 else { return connection }
        var wal = stat()
        if stat(path + "-wal", &wal) == 0, wal.st_size > 0 {
            throw SQLiteError(
                path: path, code: SQLITE_CANTOPEN,
                message: "its folder is read-only and its last "
                    + "import is still in \(path)-wal; open it once with write access to the folder (any nearby command) "
                    + "or copy the cache with its -wal file to a writable folder")
        }
        return try SQLiteConnection(path: path, readOnly: true, create: false, immutable: true)
    }

    private static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
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
        // One statement, so one read snapshot: three separate reads could see a cache another process
        // is creating half made (tables without application_id) and call it another application's file.
        let header = try connection.prepare(
            """
            SELECT (SELECT application_id FROM pragma_application_id), (SELECT user_version FROM pragma_user_version),
                   (SELECT count(*) FROM sqlite_master)
            """)
        guard try header.step() else { throw PlaceCacheError.notACache(path: path, reason: "no header") }
        let application = header.int64(0)
        let version = header.int64(1)
        let objects = header.int64(2)
        header.reset()
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
        guard version >= 1 && version < Self.schemaVersion else { return }
        do {
            try Self.migrate(
                readOnly ? try SQLiteConnection(path: path, readOnly: false, create: false) : connection, path: path)
            // A statement that reads the schema table makes this connection reload the changed schema
            // (prepare alone compiles against the cached one).
            _ = try connection.integer("SELECT count(*) FROM sqlite_master")
        } catch let error as SQLiteError
            where [SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM].contains(error.code & 0xff)
        {
            throw PlaceCacheError.cannotOpen(
                path: path,
                reason:
                    "schema version \(version) must be upgraded to \(Self.schemaVersion), which needs write access to the file and its folder (run any nearby command with it once)"
            )
        }
    }

    /// Upgrades an older schema in one write transaction (another process may have done it first).
    /// A read-only open upgrades through a second, writable connection; without write access the
    /// error says so.
    private static func migrate(_ connection: SQLiteConnection, path: String) throws {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            var version = try connection.integer("PRAGMA user_version")
            while version < schemaVersion {
                guard let step = migrations[version] else {
                    throw PlaceCacheError.notACache(path: path, reason: "unknown schema version \(version)")
                }
                try step(connection)
                version += 1
            }
            try connection.execute("PRAGMA user_version=\(schemaVersion); COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    private func createSchema() throws {
        try connection.execute("PRAGMA journal_mode=WAL")
        try transaction {
            // Another process may have created the schema between our check and our lock.
            guard try connection.integer("SELECT count(*) FROM sqlite_master") == 0 else { return }
            try connection.execute(
                """
                CREATE TABLE places(
                    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
                    lat REAL NOT NULL, lon REAL NOT NULL, category INTEGER NOT NULL,
                    created TEXT, modified TEXT, areacode TEXT, sigungucode TEXT, addr TEXT, tel TEXT,
                    image TEXT, cat1 TEXT, cat2 TEXT, cat3 TEXT, eventStart TEXT, eventEnd TEXT,
                    accessibility TEXT, accessMask INTEGER NOT NULL DEFAULT 0,
                    lDongRegnCd TEXT, lDongSignguCd TEXT, lclsSystm1 TEXT, lclsSystm2 TEXT, lclsSystm3 TEXT,
                    kakaoCategory TEXT, lDongSource TEXT, pet TEXT, barrierFree TEXT, petInfo TEXT, checksum INTEGER,
                    changed TEXT);
                \(Self.pendingDetailsSQL);
                \(Self.removedPlacesSQL);
                \(Self.personalSQL);
                \(RTreeBulkLoader.createSQL);
                CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
                INSERT INTO meta VALUES('generation', 0);
                \(Self.cursorKeySQL);
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

    /// Every `PlaceField`, in its order, under its JSON name.
    static let placeColumns = PlaceField.allCases.map(\.name).joined(separator: ", ")
    /// The stored columns of a row, as the writer binds them and `RowChecksum` covers them.
    static let checkedColumns = PlaceField.allCases.map(\.name) + ["accessMask"]
    /// The columns `place(from:)` reads: `checkedColumns`, then `checksum`.
    static let rowColumns = (checkedColumns + ["checksum"]).joined(separator: ", ")

    /// Decodes the row at `statement`'s cursor, whose columns from `first` on are `rowColumns`.
    ///
    /// A damaged file (a flipped byte, another program's writes) must not turn into silently wrong
    /// output, so what is read is checked, not coerced: every column has its type (TEXT, REAL, INTEGER;
    /// NULL only where a field is optional), text is valid UTF-8 (reported, never replaced with U+FFFD),
    /// and lat/lon are finite and in range. The schema has no STRICT/CHECK constraints (adding them would
    /// need a schema version and a table rebuild); reading checks instead, and `nearby check` checks all.
    /// Then the row's checksum (`verifyChecksum`) catches a value changed into another valid one.
    static func place(from s: SQLiteStatement, first c: Int32 = 0) throws(DamagedRow) -> Place {
        func text(_ field: PlaceField) throws(DamagedRow) -> String? {
            let column = c + Int32(field.rawValue)
            switch s.type(column) {
            case SQLITE_NULL: return nil
            case SQLITE_TEXT:
                guard let t = s.validText(column) else { throw DamagedRow(field: field.name, reason: "invalid UTF-8") }
                return t
            default:
                throw DamagedRow(
                    field: field.name, reason: "\(SQLiteStatement.typeName(s.type(column))) where text belongs")
            }
        }
        func required(_ field: PlaceField) throws(DamagedRow) -> String {
            guard let t = try text(field), !t.isEmpty else { throw DamagedRow(field: field.name, reason: "missing") }
            return t
        }
        func coordinate(_ field: PlaceField, _ limit: Double) throws(DamagedRow) -> Double {
            let column = c + Int32(field.rawValue)
            guard s.type(column) == SQLITE_FLOAT || s.type(column) == SQLITE_INTEGER else {
                throw DamagedRow(
                    field: field.name, reason: "\(SQLiteStatement.typeName(s.type(column))) where a number belongs")
            }
            let v = s.double(column)
            guard v.isFinite, abs(v) <= limit else {
                throw DamagedRow(field: field.name, reason: "\(v) is outside [-\(Int(limit)), \(Int(limit))]")
            }
            return v
        }
        let categoryColumn = c + Int32(PlaceField.category.rawValue)
        guard s.type(categoryColumn) == SQLITE_INTEGER else {
            throw DamagedRow(
                field: "category",
                reason: "\(SQLiteStatement.typeName(s.type(categoryColumn))) where an integer belongs")
        }
        let place = Place(
            id: try required(.id), title: try text(.title) ?? "", lat: try coordinate(.lat, 90),
            lon: try coordinate(.lon, 180),
            category: Int(s.int64(categoryColumn)), created: try text(.created), modified: try text(.modified),
            areacode: try text(.areacode), sigungucode: try text(.sigungucode), addr: try text(.addr),
            tel: try text(.tel),
            image: try text(.image), cat1: try text(.cat1), cat2: try text(.cat2), cat3: try text(.cat3),
            eventStart: try text(.eventStart), eventEnd: try text(.eventEnd),
            accessibility: try text(.accessibility).map(accessibilityTags) ?? [],
            lDongRegnCd: try text(.lDongRegnCd), lDongSignguCd: try text(.lDongSignguCd),
            lclsSystm1: try text(.lclsSystm1), lclsSystm2: try text(.lclsSystm2), lclsSystm3: try text(.lclsSystm3),
            kakaoCategory: try text(.kakaoCategory), lDongSource: try text(.lDongSource),
            pet: try text(.pet), barrierFree: try text(.barrierFree), petInfo: try text(.petInfo))
        try verifyChecksum(s, first: c)
        return place
    }

    /// Throws unless the row at `s`'s cursor (columns from `first` on: `rowColumns`) holds the values
    /// its checksum was written for.
    static func verifyChecksum(_ s: SQLiteStatement, first c: Int32 = 0) throws(DamagedRow) {
        let column = c + Int32(checkedColumns.count)
        guard s.type(column) == SQLITE_INTEGER else {
            throw DamagedRow(
                field: "checksum",
                reason: "\(SQLiteStatement.typeName(s.type(column))) where the row's checksum belongs")
        }
        guard RowChecksum.of(s, first: c).stored == s.int64(column) else {
            throw DamagedRow(field: "checksum", reason: "the stored values differ from those written (a changed byte)")
        }
    }

    /// A row whose stored value cannot be a `Place` field.
    struct DamagedRow: NearbyError {
        var field: String
        var reason: String
        var description: String { "\(field): \(reason)" }
        var kind: ErrorKind { .damaged }
    }

    static func accessibilityText(_ tags: [String]) -> String? {
        tags.isEmpty ? nil : tags.joined(separator: ",")
    }

    static func accessibilityTags(_ text: String) -> [String] {
        text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    /// Runs a query of places (its first columns are `rowColumns`) after `bind`, calling `body` per row.
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
            while try statement.step() {
                let place: Place
                do { place = try Self.place(from: statement) } catch {
                    throw PlaceCacheError.damaged(
                        path: path, row: Self.rowName(statement), field: error.field, reason: error.reason)
                }
                try body(place)
            }
        } catch let error as SQLiteError {
            throw PlaceCacheError(error, path: path)
        }
    }

    /// Every cached place, in rowid order (roughly import order). About a microsecond per row.
    public func allPlaces() throws -> [Place] {
        var places: [Place] = []
        places.reserveCapacity(try count())
        try eachPlace("SELECT \(Self.rowColumns) FROM places") { places.append($0) }
        return places
    }

    /// The cached places of one language (`TourLanguage`): the Korean ones (ids without a language
    /// prefix), or those whose ids carry `language`'s prefix (a range of the id index).
    public func places(of language: TourLanguage) throws -> [Place] {
        var places: [Place] = []
        if language == .ko {
            try eachPlace("SELECT \(Self.rowColumns) FROM places") {
                if TourLanguage.isKorean(id: $0.id) { places.append($0) }
            }
            return places
        }
        // The prefix ends in `:`, and `;` is the byte after it: every id with the prefix sorts between.
        let low = language.idPrefix
        let high = String(low.dropLast()) + ";"
        try eachPlace(
            "SELECT \(Self.rowColumns) FROM places WHERE id >= ?1 AND id < ?2",
            bind: {
                try $0.bind(1, low)
                try $0.bind(2, high)
            }
        ) { places.append($0) }
        return places
    }

    /// `places(of:)` with the generation and cursor key they were read at, in one read: what an
    /// engine of the language's places is made from (`LanguageEngines`).
    public func snapshot(of language: TourLanguage) throws -> (
        places: [Place], generation: Int64, cursorKey: PageCursor.Key
    ) {
        do { try connection.execute("BEGIN") } catch { throw PlaceCacheError(error, path: path) }
        defer { try? connection.execute("COMMIT") }
        return (try places(of: language), try generation(), try cursorKey())
    }

    /// Calls `body` with every cached place in id order (byte order of the UTF-8 ids), streaming: the
    /// export path, which must not hold a million places in memory.
    public func forEachPlaceByID(_ body: (Place) throws -> Void) throws {
        try eachPlace("SELECT \(Self.rowColumns) FROM places ORDER BY id", body)
    }

    public func count() throws -> Int {
        do { return Int(try connection.integer("SELECT count(*) FROM places")) } catch {
            throw PlaceCacheError(error, path: path)
        }
    }

    public func place(id: String) throws -> Place? {
        var found: Place?
        try eachPlace("SELECT \(Self.rowColumns) FROM places WHERE id = ?1", bind: { try $0.bind(1, id) }) {
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
            SELECT \(Self.rowColumns) FROM places_rtree r JOIN places USING (rowid)
            WHERE r.maxLon >= ?1 AND r.minLon <= ?3 AND r.maxLat >= ?2 AND r.minLat <= ?4
            """
        try eachPlace(
            sql,
            bind: { s in
                try s.bind(1, minLon)
                try s.bind(2, minLat)
                try s.bind(3, maxLon)
                try s.bind(4, maxLat)
            }
        ) { places.append($0) }
        return places
    }

    /// Bumped by every committed write that changed at least one row: an in-memory index built at
    /// generation g is current while `generation()` still returns g.
    public func generation() throws -> Int64 {
        do { return try connection.integer("SELECT value FROM meta WHERE key = 'generation'") } catch {
            throw PlaceCacheError(error, path: path)
        }
    }

    /// How a damaged row is named in a message: its id when that is readable text, quoted and cut.
    static func rowName(_ s: SQLiteStatement) -> String {
        guard s.type(0) == SQLITE_TEXT, let id = s.validText(0) else { return "a row with an unreadable id" }
        return "id " + MessageText.quoted(id)
    }

    /// Inserts a random cursor key unless the cache has one.
    static var cursorKeySQL: String {
        let key = PageCursor.Key.random()
        return """
            INSERT OR IGNORE INTO meta VALUES('cursorKey0', \(Int64(bitPattern: key.k0))), ('cursorKey1', \(Int64(bitPattern: key.k1)))
            """
    }

    /// The key that signs this cache's page cursors; `.unkeyed` for a cache made before cursors were
    /// signed and not written since (its cursors are still strictly checked, but could be forged).
    public func cursorKey() throws -> PageCursor.Key {
        do {
            let s = try connection.prepare(
                "SELECT (SELECT value FROM meta WHERE key = 'cursorKey0'), (SELECT value FROM meta WHERE key = 'cursorKey1')"
            )
            guard try s.step(), !s.isNull(0), !s.isNull(1) else { return .unkeyed }
            return PageCursor.Key(k0: UInt64(bitPattern: s.int64(0)), k1: UInt64(bitPattern: s.int64(1)))
        } catch {
            throw PlaceCacheError(error, path: path)
        }
    }

    /// The random number drawn when the cache file was created (0 for caches made before it existed).
    public func identity() throws -> Int64 {
        do {
            return try connection.integer("SELECT coalesce((SELECT value FROM meta WHERE key = 'identity'), 0)")
        } catch {
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
public enum PlaceCacheError: NearbyError, Equatable {
    /// The file could not be opened (missing in read-only mode, a directory, no permission).
    case cannotOpen(path: String, reason: String)
    /// Not a SQLite file, a corrupted one, or a SQLite file that is not a Nearby cache.
    case notACache(path: String, reason: String)
    /// Written by a newer Nearby whose schema this one does not know.
    case newerSchema(path: String, version: Int64, supported: Int64)
    /// Another process is writing to the cache.
    case busy(path: String)
    /// A row holds a value no import writes: the file was damaged (or written by another program).
    case damaged(path: String, row: String, field: String, reason: String)
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
        case .cannotOpen(let path, let reason): "\(path): cannot open the cache: \(reason)"
        case .notACache(let path, let reason): "\(path): not a Nearby cache: \(reason)"
        case .newerSchema(let path, let version, let supported):
            "\(path): the cache has schema version \(version), newer than this nearby understands "
                + "(\(supported)); upgrade nearby or choose another file with --db"
        case .busy(let path): "\(path): the cache is busy: another import is writing to it; try again when it is done"
        case .damaged(let path, let row, let field, let reason):
            "\(path): the cache is damaged: \(row): \(field): \(reason); run nearby check, then rebuild the cache from its sources"
        case .sqlite(let path, let message): "\(path): \(message)"
        }
    }

    public var kind: ErrorKind {
        switch self {
        case .cannotOpen: .io
        case .notACache, .damaged: .damaged
        case .newerSchema: .unsupported
        case .busy: .unavailable
        case .sqlite: .internal
        }
    }
}
