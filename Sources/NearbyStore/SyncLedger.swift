import NearbyCore

/// What `nearby sync` keeps in a cache besides the places, in tables of its own that imports never
/// touch (made by `prepareSync`, so a cache that was never synced has none):
///
/// - `sync_state(source, state)`: each sync's checkpoint, as text the sync writes and reads (NearbySync's
///   `SyncCheckpoint`). It is saved by `PlaceCacheWriter.saveSyncState` inside the transaction that
///   applies a page, so a page and the checkpoint after it commit together or not at all.
/// - `sync_requests(day, source, used)`: requests sent per day (the API's day, e.g. KST for TourAPI),
///   counted before each request in a transaction of its own, so a daily budget holds across runs,
///   kills included.
/// - `sync_areas(source, area, fetched)`: the circles a server's upstream fallback fetched (`nearby serve
///   --fallback tourapi`), each recorded in the transaction that applies its places, so a query of the
///   same area later, in this server or the next, does not ask upstream again.
/// - `sync_codes(service, list, position, level, code, name, parent)` and `sync_code_lists(service, list,
///   fetched)`: a language service's code lists (`areaCode2`, …) as the service answered them, its names
///   in its language, which the server answers under that service. A list is replaced whole, with the
///   day it was fetched, in one transaction (`PlaceCacheWriter.replaceSyncedCodes`).
extension PlaceCache {
    static let syncTablesSQL = """
        CREATE TABLE IF NOT EXISTS sync_state(source TEXT PRIMARY KEY, state TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sync_requests(
            day TEXT NOT NULL, source TEXT NOT NULL, used INTEGER NOT NULL, PRIMARY KEY(day, source)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sync_areas(
            source TEXT NOT NULL, area TEXT NOT NULL, fetched TEXT NOT NULL, PRIMARY KEY(source, area)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sync_code_lists(
            service TEXT NOT NULL, list TEXT NOT NULL, fetched TEXT NOT NULL, PRIMARY KEY(service, list)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sync_codes(
            service TEXT NOT NULL, list TEXT NOT NULL, position INTEGER NOT NULL, level INTEGER NOT NULL,
            code TEXT NOT NULL, name TEXT NOT NULL, parent TEXT NOT NULL,
            PRIMARY KEY(service, list, position)) WITHOUT ROWID
        """

    /// Makes the sync tables when they are missing.
    public func prepareSync() throws {
        try transaction { try connection.execute(Self.syncTablesSQL) }
    }

    /// The checkpoint saved for `source`, or nil.
    public func syncState(source: String) throws -> String? {
        do throws(SQLiteError) {
            let s = try connection.prepare("SELECT state FROM sync_state WHERE source = ?1")
            try s.bind(1, source)
            return try s.step() ? s.text(0) : nil
        } catch { throw PlaceCacheError(error, path: path) }
    }

    /// Saves (or, with nil, removes) the checkpoint of `source` in a transaction of its own.
    public func saveSyncState(source: String, state: String?) throws {
        try write { try $0.saveSyncState(source: source, state: state) }
    }

    /// Whether the area `area` of `source` was fetched (`PlaceCacheWriter.saveSyncArea`); false in a
    /// cache that was never synced.
    public func syncAreaFetched(source: String, area: String) throws -> Bool {
        do throws(SQLiteError) {
            let exists = try connection.prepare(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_areas'")
            guard try exists.step() else { return false }
            let s = try connection.prepare("SELECT 1 FROM sync_areas WHERE source = ?1 AND area = ?2")
            try s.bind(1, source)
            try s.bind(2, area)
            return try s.step()
        } catch { throw PlaceCacheError(error, path: path) }
    }

    /// The code list `list` (`areaCode2`, …) of `service` (`EngService2`) as it was last fetched, in the
    /// service's order, with the day it was fetched (`yyyyMMdd`); nil when it never was (and in a cache
    /// that was never synced).
    public func syncedCodes(service: String, list: String) throws -> (fetched: String, codes: [TourCode])? {
        do throws(SQLiteError) {
            let exists = try connection.prepare(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_code_lists'")
            guard try exists.step() else { return nil }
            let day = try connection.prepare("SELECT fetched FROM sync_code_lists WHERE service = ?1 AND list = ?2")
            try day.bind(1, service)
            try day.bind(2, list)
            guard try day.step() else { return nil }
            let fetched = day.text(0) ?? ""
            let s = try connection.prepare(
                "SELECT level, code, name, parent FROM sync_codes WHERE service = ?1 AND list = ?2 ORDER BY position")
            try s.bind(1, service)
            try s.bind(2, list)
            var codes: [TourCode] = []
            while try s.step() {
                codes.append(
                    TourCode(
                        level: Int(s.int64(0)), code: s.text(1) ?? "", name: s.text(2) ?? "", parent: s.text(3) ?? ""))
            }
            return (fetched, codes)
        } catch { throw PlaceCacheError(error, path: path) }
    }

    /// Requests counted for `source` on `day`.
    public func syncRequests(day: String, source: String) throws -> Int {
        do throws(SQLiteError) {
            let s = try connection.prepare("SELECT used FROM sync_requests WHERE day = ?1 AND source = ?2")
            try s.bind(1, day)
            try s.bind(2, source)
            return try s.step() ? Int(s.int64(0)) : 0
        } catch { throw PlaceCacheError(error, path: path) }
    }

    /// Counts one more request for `source` on `day` (committed before it returns) and returns the count.
    public func countSyncRequest(day: String, source: String) throws -> Int {
        try transaction {
            let s = try connection.prepare(
                """
                INSERT INTO sync_requests(day, source, used) VALUES(?1, ?2, 1)
                ON CONFLICT(day, source) DO UPDATE SET used = used + 1 RETURNING used
                """)
            try s.bind(1, day)
            try s.bind(2, source)
            return try s.step() ? Int(s.int64(0)) : 0
        }
    }
}

extension PlaceCacheWriter {
    /// Saves (or, with nil, removes) the checkpoint of `source` in this write's transaction.
    public func saveSyncState(source: String, state: String?) throws {
        do throws(SQLiteError) {
            let s = try connection.prepare(
                state == nil
                    ? "DELETE FROM sync_state WHERE source = ?1"
                    : "REPLACE INTO sync_state(source, state) VALUES(?1, ?2)")
            try s.bind(1, source)
            if let state { try s.bind(2, state) }
            _ = try s.step()
        } catch { throw PlaceCacheError(error, path: connection.path) }
    }

    /// Replaces the code list `list` of `service` with `codes` (in the service's order), fetched on
    /// `fetched` (`yyyyMMdd`), in this write's transaction: the whole list or none of it.
    public func replaceSyncedCodes(service: String, list: String, codes: [TourCode], fetched: String) throws {
        do throws(SQLiteError) {
            let clear = try connection.prepare("DELETE FROM sync_codes WHERE service = ?1 AND list = ?2")
            try clear.bind(1, service)
            try clear.bind(2, list)
            _ = try clear.step()
            let insert = try connection.prepare(
                "INSERT INTO sync_codes(service, list, position, level, code, name, parent) "
                    + "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)")
            for (n, c) in codes.enumerated() {
                insert.reset()
                try insert.bind(1, service)
                try insert.bind(2, list)
                try insert.bind(3, Int64(n))
                try insert.bind(4, Int64(c.level))
                try insert.bind(5, c.code)
                try insert.bind(6, c.name)
                try insert.bind(7, c.parent)
                _ = try insert.step()
            }
            let day = try connection.prepare(
                "REPLACE INTO sync_code_lists(service, list, fetched) VALUES(?1, ?2, ?3)")
            try day.bind(1, service)
            try day.bind(2, list)
            try day.bind(3, fetched)
            _ = try day.step()
        } catch { throw PlaceCacheError(error, path: connection.path) }
    }

    /// Records that the area `area` of `source` was fetched, at `fetched` (a time, as text), in this
    /// write's transaction: with the places fetched for it, or not at all.
    public func saveSyncArea(source: String, area: String, fetched: String) throws {
        do throws(SQLiteError) {
            let s = try connection.prepare("REPLACE INTO sync_areas(source, area, fetched) VALUES(?1, ?2, ?3)")
            try s.bind(1, source)
            try s.bind(2, area)
            try s.bind(3, fetched)
            _ = try s.step()
        } catch { throw PlaceCacheError(error, path: connection.path) }
    }
}
