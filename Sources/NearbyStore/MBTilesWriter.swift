import CSQLite
import Foundation
import NearbyCore

/// Writes an MBTiles 1.3 file (github.com/mapbox/mbtiles-spec): a SQLite database with a `metadata`
/// table of name/value rows and a `tiles` table of (zoom_level, tile_column, tile_row, tile_data), rows
/// in the TMS scheme (row 0 in the south). The file is written under a temporary name in one
/// transaction and renamed into place by `finish`, so a reader never sees half of it.
public final class MBTilesWriter {
    public let path: String
    private let temporary: String
    private let db: SQLiteConnection
    private let insert: SQLiteStatement
    private var finished = false

    public struct Failure: NearbyError {
        public var path: String
        public var message: String
        public var kind: ErrorKind { .io }
        public var description: String { "\(path): \(message)" }
        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }
    }

    /// Creates the file's tables and its metadata rows (`name`, `format`, `bounds`, … in the order given).
    public init(path: String, metadata: [(name: String, value: String)]) throws {
        self.path = path
        temporary = path + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.removeItem(atPath: temporary)
        do {
            db = try SQLiteConnection(path: temporary, readOnly: false, create: true)
            try db.execute(
                """
                PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA page_size = 4096;
                CREATE TABLE metadata (name TEXT, value TEXT);
                CREATE UNIQUE INDEX name ON metadata (name);
                CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
                BEGIN;
                """)
            let meta = try db.prepare("INSERT INTO metadata (name, value) VALUES (?1, ?2)")
            for (name, value) in metadata {
                try meta.bind(1, name)
                try meta.bind(2, value)
                try meta.step()
                meta.reset()
            }
            insert = try db.prepare(
                "INSERT INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?1, ?2, ?3, ?4)")
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw Failure(path: path, message: "cannot write the MBTiles file: \(error)")
        }
    }

    deinit {
        if !finished { try? FileManager.default.removeItem(atPath: temporary) }
    }

    /// Adds one tile: `z`, `x` and the XYZ `y` (flipped to TMS here), its bytes as they are stored
    /// (vector tiles gzipped, as readers expect).
    public func add(z: Int, x: Int, y: Int, data: [UInt8]) throws {
        do {
            try insert.bind(1, Int64(z))
            try insert.bind(2, Int64(x))
            try insert.bind(3, Int64((1 << z) - 1 - y))
            try insert.bind(4, data)
            try insert.step()
            insert.reset()
        } catch {
            throw Failure(path: path, message: "cannot add tile \(z)/\(x)/\(y): \(error)")
        }
    }

    /// Commits and renames the file into place (replacing one that was there).
    public func finish() throws {
        do {
            try db.execute("COMMIT")
        } catch {
            throw Failure(path: path, message: "cannot commit the MBTiles file: \(error)")
        }
        guard rename(temporary, path) == 0 else {
            throw Failure(
                path: path, message: "cannot rename \(temporary) into place: \(String(cString: strerror(errno)))")
        }
        finished = true
    }
}
