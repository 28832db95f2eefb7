import NearbyCore

/// What a write did to the cache, record by record.
///
/// Upsert rule: a record replaces the cached place with the same id only when its `modified` is not
/// older than the cached one (`yyyyMMddHHmmss` text, compared as text; a nil `modified` counts as the
/// oldest possible, so it never replaces a dated place but does replace another undated one).
/// - `inserted`: a new id.
/// - `updated`: an existing id replaced by a record not older and not identical.
/// - `unchanged`: an existing id whose record is identical in every field (nothing written), or a
///   delete of an id that is not cached.
/// - `older`: an existing id kept because the record's `modified` is older than the cached one.
/// - `deleted`: cached places removed (TourAPI sync lists with `showflag` 0).
/// - `rejected`: bad records the parser skipped (counted by the importer, not by the cache).
public struct WriteCounts: Sendable, Equatable {
    public var inserted = 0, updated = 0, unchanged = 0, older = 0, deleted = 0, rejected = 0
    public init() {}

    /// True when the write changed at least one row.
    public var changedRows: Bool { inserted + updated + deleted > 0 }
}

extension PlaceCache {
    /// Runs `body` with a writer inside ONE transaction: everything it wrote is committed when it
    /// returns, and nothing is when it throws (or when the process dies before the commit). Bumps the
    /// generation when a row changed. Throws `PlaceCacheError.busy` when another process is writing.
    public func write<T>(_ body: (PlaceCacheWriter) throws -> T) throws -> T {
        try transaction {
            let writer = try PlaceCacheWriter(connection)
            let result = try body(writer)
            try writer.finish()
            if writer.counts.changedRows {
                try connection.execute("UPDATE meta SET value = value + 1 WHERE key = 'generation'")
            }
            return result
        }
    }
}

/// Upserts and deletes places inside a `PlaceCache.write` transaction, with statements prepared once and
/// reused for every record. Valid only inside the `write` call that made it.
public final class PlaceCacheWriter {
    public private(set) var counts = WriteCounts()
    private let connection: SQLiteConnection
    private let find, save, removePlace: SQLiteStatement
    /// R*Tree changes, applied in order by `finish`: a new or moved point, or nil for a removed row.
    private var boxChanges: [(rowid: Int64, point: (lon: Double, lat: Double)?)] = []

    fileprivate init(_ connection: SQLiteConnection) throws {
        self.connection = connection
        find = try connection.prepare("SELECT rowid, \(PlaceCache.placeColumns) FROM places WHERE id = ?1")
        // ?1 is the rowid: NULL to insert a new row, the cached row's to replace it in place.
        save = try connection.prepare("""
            INSERT OR REPLACE INTO places(rowid, \(PlaceCache.placeColumns), accessMask)
            VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
                   ?20, ?21, ?22, ?23, ?24, ?25)
            """)
        removePlace = try connection.prepare("DELETE FROM places WHERE rowid = ?1")
    }

    /// Inserts `place`, or replaces the cached place with its id unless the cached one is newer.
    public func upsert(_ place: Place) throws {
        defer { find.reset() }
        try find.bind(1, place.id)
        guard try find.step() else { return try insert(place, rowid: nil) }
        let rowid = find.int64(0)
        let cached = PlaceCache.place(from: find, first: 1)
        if Self.isOlder(place.modified, than: cached.modified) {
            counts.older += 1
        } else if cached == place {
            counts.unchanged += 1
        } else {
            find.reset()
            try insert(place, rowid: rowid, moved: cached.lat != place.lat || cached.lon != place.lon)
        }
    }

    /// Removes the place with `id` if it is cached.
    public func delete(id: String) throws {
        defer { find.reset() }
        try find.bind(1, id)
        guard try find.step() else { counts.unchanged += 1; return }
        let rowid = find.int64(0)
        find.reset()
        defer { removePlace.reset() }
        try removePlace.bind(1, rowid)
        try removePlace.step()
        boxChanges.append((rowid, nil))
        counts.deleted += 1
    }

    /// nil is the oldest `modified`; dates are fixed-width digits, so text order is time order.
    static func isOlder(_ incoming: String?, than cached: String?) -> Bool {
        guard let cached else { return false }
        guard let incoming else { return true }
        return incoming.utf8.lexicographicallyPrecedes(cached.utf8)
    }

    /// Writes the row (new when `rowid` is nil) and notes a new or moved place's R*Tree box.
    private func insert(_ p: Place, rowid: Int64?, moved: Bool = true) throws {
        defer { save.reset() }
        let s = save
        try s.bind(1, rowid)
        try s.bind(2, p.id); try s.bind(3, p.title); try s.bind(4, p.lat); try s.bind(5, p.lon)
        try s.bind(6, Int64(p.category)); try s.bind(7, p.created); try s.bind(8, p.modified)
        try s.bind(9, p.areacode); try s.bind(10, p.sigungucode); try s.bind(11, p.addr); try s.bind(12, p.tel)
        try s.bind(13, p.image); try s.bind(14, p.cat1); try s.bind(15, p.cat2); try s.bind(16, p.cat3)
        try s.bind(17, p.eventStart); try s.bind(18, p.eventEnd)
        try s.bind(19, PlaceCache.accessibilityText(p.accessibility))
        try s.bind(20, p.lDongRegnCd); try s.bind(21, p.lDongSignguCd)
        try s.bind(22, p.lclsSystm1); try s.bind(23, p.lclsSystm2); try s.bind(24, p.lclsSystm3)
        try s.bind(25, Int64(Self.knownTagMask(p.accessibility)))
        try s.step()
        if rowid == nil { counts.inserted += 1 } else { counts.updated += 1 }
        if moved { boxChanges.append((rowid ?? connection.lastInsertRowID, (p.lon, p.lat))) }
    }

    /// Brings the R*Tree up to date with the rows: one row at a time for a few changes, a packed rebuild
    /// (`RTreeBulkLoader`) when they are many (an eighth of the rows or more: a rebuild costs about 1.5 µs a
    /// row of the whole cache, an R*Tree insert about 20 µs).
    fileprivate func finish() throws {
        guard !boxChanges.isEmpty else { return }
        if boxChanges.count * 8 >= Int(try connection.integer("SELECT count(*) FROM places")) {
            try RTreeBulkLoader.rebuild(connection)
        } else {
            let save = try connection.prepare("INSERT OR REPLACE INTO places_rtree VALUES(?1, ?2, ?3, ?4, ?5)")
            let remove = try connection.prepare("DELETE FROM places_rtree WHERE rowid = ?1")
            for (rowid, point) in boxChanges {
                let s = point == nil ? remove : save
                defer { s.reset() }
                try s.bind(1, rowid)
                if let point {
                    let lon = Self.floatBounds(point.lon), lat = Self.floatBounds(point.lat)
                    try s.bind(2, lon.lower); try s.bind(3, lon.upper)
                    try s.bind(4, lat.lower); try s.bind(5, lat.upper)
                }
                try s.step()
            }
        }
        boxChanges = []
    }

    /// The bits of the tags in `Accessibility.tags`; unknown tags are kept in the text column only.
    static func knownTagMask(_ tags: [String]) -> UInt32 {
        tags.reduce(0) { $0 | (Accessibility.bit($1) ?? 0) }
    }

    /// 32-bit floats strictly below and above `x` (R*Tree coordinates are Floats): one Float step beyond
    /// `x` rounded to Float, both exactly representable, so SQLite stores them unchanged and the box
    /// always contains the true `x`.
    static func floatBounds(_ x: Double) -> (lower: Double, upper: Double) {
        let f = Float(x)
        return (Double(f.nextDown), Double(f.nextUp))
    }
}
