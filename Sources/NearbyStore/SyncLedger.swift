/// What `nearby sync` keeps in a cache besides the places, in two tables of its own that imports never
/// touch (made by `prepareSync`, so a cache that was never synced has neither):
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
extension PlaceCache {
    static let syncTablesSQL = """
        CREATE TABLE IF NOT EXISTS sync_state(source TEXT PRIMARY KEY, state TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sync_requests(
            day TEXT NOT NULL, source TEXT NOT NULL, used INTEGER NOT NULL, PRIMARY KEY(day, source)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sync_areas(
            source TEXT NOT NULL, area TEXT NOT NULL, fetched TEXT NOT NULL, PRIMARY KEY(source, area)) WITHOUT ROWID
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
