import CSQLite
import NearbyCore

// A thin layer over the SQLite C API: a connection, prepared statements, bind/step/column, and errors
// carrying sqlite3_errmsg. We use the C API directly rather than GRDB (or another wrapper) to keep the
// hot import path allocation-free (statements are prepared once and reused for every row, text is bound
// straight from Swift's UTF-8 storage) and the dependency list short.

/// A failed SQLite call: the result code and sqlite3_errmsg, with the database path for context.
struct SQLiteError: NearbyError {
    var path: String
    var code: Int32
    var message: String

    var description: String { "\(path): \(message)" }
    /// The kind of the `PlaceCacheError` it becomes: another connection holding the lock (SQLITE_BUSY,
    /// SQLITE_LOCKED) is `.unavailable`, a corrupt file `.damaged`, anything else `.internal`.
    var kind: ErrorKind { PlaceCacheError(self, path: path).kind }
    /// SQLITE_CONSTRAINT_UNIQUE (a macro Swift cannot import): a UNIQUE index refused the row.
    var isUniqueViolation: Bool { code == SQLITE_CONSTRAINT | (8 << 8) }
}

/// One SQLite connection. Not thread-safe: use a connection (and its statements) from one thread at a time.
final class SQLiteConnection {
    let path: String
    let handle: OpaquePointer

    /// Opens `path`; creates the file when `create` is true (and `readOnly` is false). `immutable` (read-only
    /// only) tells SQLite the file cannot change while open, so it takes no locks and needs no `-shm`
    /// file: the one way to read a WAL-mode file in a folder this process cannot write.
    init(path: String, readOnly: Bool, create: Bool, immutable: Bool = false) throws(SQLiteError) {
        var db: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        let name = immutable ? "file:" + Self.uriPath(path) + "?immutable=1" : path
        let rc = sqlite3_open_v2(name, &db, flags | SQLITE_OPEN_NOMUTEX | (immutable ? SQLITE_OPEN_URI : 0), nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            throw SQLiteError(path: path, code: rc, message: message)
        }
        self.path = path
        self.handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    /// `path` for a `file:` URI: `%`, `?` and `#` percent-encoded (RFC 3986), relative paths kept relative.
    static func uriPath(_ path: String) -> String {
        var out = ""
        for u in path.unicodeScalars {
            switch u {
            case "%": out += "%25"
            case "?": out += "%3F"
            case "#": out += "%23"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// How long a statement waits for another connection's lock before failing with SQLITE_BUSY.
    func setBusyTimeout(milliseconds: Int32) { sqlite3_busy_timeout(handle, milliseconds) }

    /// Runs one or more statements that return no rows we need.
    func execute(_ sql: String) throws(SQLiteError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil))
    }

    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var stmt: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil))
        return SQLiteStatement(connection: self, handle: stmt!)
    }

    /// The first column of the first row of `sql`, as an integer (0 when there is no row).
    func integer(_ sql: String) throws(SQLiteError) -> Int64 {
        let stmt = try prepare(sql)
        return try stmt.step() ? stmt.int64(0) : 0
    }

    /// The rowid of the last row inserted on this connection.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    func check(_ rc: Int32) throws(SQLiteError) {
        if rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW { throw error(rc) }
    }

    func error(_ rc: Int32) -> SQLiteError {
        SQLiteError(path: path, code: rc, message: String(cString: sqlite3_errmsg(handle)))
    }
}

/// A prepared statement, reused across rows: bind, step, read columns, reset. Parameters and columns are
/// 1-based and 0-based respectively, as in the C API.
final class SQLiteStatement {
    unowned let connection: SQLiteConnection
    let handle: OpaquePointer

    fileprivate init(connection: SQLiteConnection, handle: OpaquePointer) {
        self.connection = connection
        self.handle = handle
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds UTF-8 text (SQLITE_TRANSIENT: SQLite copies the bytes, so Swift's storage may move after the
    /// call; a native String is contiguous UTF-8, so no bridging copy is made on our side), or NULL for nil.
    func bind(_ index: Int32, _ text: String?) throws(SQLiteError) {
        guard var text else { return try connection.check(sqlite3_bind_null(handle, index)) }
        let rc = text.withUTF8 { utf8 in
            // A NULL pointer would bind SQL NULL, so the empty string gets a real (empty) C string.
            guard let bytes = utf8.baseAddress else { return sqlite3_bind_text(handle, index, "", 0, sqliteTransient) }
            return bytes.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                sqlite3_bind_text(handle, index, $0, Int32(utf8.count), sqliteTransient)
            }
        }
        try connection.check(rc)
    }

    func bind(_ index: Int32, _ value: Int64?) throws(SQLiteError) {
        guard let value else { return try connection.check(sqlite3_bind_null(handle, index)) }
        try connection.check(sqlite3_bind_int64(handle, index, value))
    }

    func bind(_ index: Int32, _ blob: [UInt8]) throws(SQLiteError) {
        let rc = blob.withUnsafeBytes {
            sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), sqliteTransient)
        }
        try connection.check(rc)
    }

    func bind(_ index: Int32, _ value: Double) throws(SQLiteError) {
        try connection.check(sqlite3_bind_double(handle, index, value))
    }

    /// Steps once: true when a row is ready to read, false when the statement is done.
    @discardableResult
    func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw connection.error(rc)
    }

    /// Binds `values` to ?1, ?2, …, runs the statement once (a write) and resets it.
    func run(_ values: Int64...) throws(SQLiteError) {
        defer { reset() }
        for (i, v) in values.enumerated() { try bind(Int32(i + 1), v) }
        try step()
    }

    /// Resets the statement so it can run again; bindings are kept until rebound.
    func reset() { sqlite3_reset(handle) }

    /// Text staged for `stepStaged`: the UTF-8 bytes of every staged parameter, each NUL-terminated.
    private var staged: [UInt8] = []
    private var stagedParameters: [(index: Int32, start: Int, count: Int)] = []

    /// Stages `text` for parameter `index`, copied into a buffer the statement reuses for every row.
    func stage(_ index: Int32, _ text: String) {
        let start = staged.count
        staged.append(contentsOf: text.utf8)
        stagedParameters.append((index, start, staged.count - start))
        staged.append(0)
    }

    /// Binds the staged texts in place (SQLITE_STATIC: SQLite makes no copy, which saves a malloc and a
    /// memcpy per text), steps once, then resets the statement and sets every parameter back to NULL before
    /// the buffer is touched again, so SQLite never holds a pointer into it while it changes.
    @discardableResult
    func stepStaged() throws(SQLiteError) -> Bool {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
            staged.removeAll(keepingCapacity: true)
            stagedParameters.removeAll(keepingCapacity: true)
        }
        return try staged.withUnsafeBufferPointer { (buffer) throws(SQLiteError) -> Bool in
            for p in stagedParameters {
                let text = UnsafeRawPointer(buffer.baseAddress! + p.start).assumingMemoryBound(to: CChar.self)
                try connection.check(sqlite3_bind_text(handle, p.index, text, Int32(p.count), sqliteStatic))
            }
            return try step()
        }
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    /// Whether the column holds text of at least one byte (`PlaceDetail.Kind.isStored`), read without
    /// making a string of it.
    func hasText(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_TEXT && sqlite3_column_bytes(handle, column) > 0
    }
    /// The column's storage class: SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL.
    func type(_ column: Int32) -> Int32 { sqlite3_column_type(handle, column) }

    static func typeName(_ type: Int32) -> String {
        switch type {
        case SQLITE_INTEGER: "an integer"
        case SQLITE_FLOAT: "a number"
        case SQLITE_TEXT: "text"
        case SQLITE_BLOB: "a blob"
        default: "NULL"
        }
    }

    /// The column's text when it is valid UTF-8; nil for NULL or invalid bytes (never repaired).
    func validText(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(validating: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// Whether the column holds exactly `value` (NULL for nil), compared as bytes without making a String.
    func textEquals(_ column: Int32, _ value: String?) -> Bool {
        guard var value else { return isNull(column) }
        guard let bytes = sqlite3_column_text(handle, column) else { return false }
        let count = Int(sqlite3_column_bytes(handle, column))
        return value.withUTF8 { $0.elementsEqual(UnsafeBufferPointer(start: bytes, count: count)) }
    }

    /// The column's text, decoded from its UTF-8 bytes without a strlen or a C-string copy; nil for NULL.
    func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}

/// SQLITE_STATIC (a NULL destructor): SQLite uses the caller's bytes in place.
private var sqliteStatic: sqlite3_destructor_type? { nil }

/// SQLITE_TRANSIENT, which the C header defines as a cast of -1 that Swift cannot import.
private var sqliteTransient: sqlite3_destructor_type {
    unsafeBitCast(-1 as Int, to: sqlite3_destructor_type.self)
}
