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
        // A write streams through rows once: a smaller page cache than reads use keeps an import's
        // memory flat (BENCHMARKS.md, "Import") at no measured cost in speed.
        try connection.execute("PRAGMA cache_size=-\(Self.writeCacheKiB)")
        defer { try? connection.execute("PRAGMA cache_size=-\(Self.readCacheKiB)") }
        return try transaction {
            let writer = try PlaceCacheWriter(connection)
            let result = try body(writer)
            try writer.finish()
            if writer.counts.changedRows {
                try connection.execute("UPDATE meta SET value = value + 1 WHERE key = 'generation'")
            }
            try connection.execute(Self.cursorKeySQL)
            return result
        }
    }
}

/// Where the importer sends records: this cache's writer, or another store's (`PostGISWriter`).
public protocol PlaceSink: AnyObject {
    var counts: WriteCounts { get }
    func upsert(_ place: Place) throws
    func delete(id: String) throws
}

/// Upserts and deletes places inside a `PlaceCache.write` transaction, with statements prepared once and
/// reused for every record. Valid only inside the `write` call that made it.
public final class PlaceCacheWriter: PlaceSink {
    public private(set) var counts = WriteCounts()
    private let connection: SQLiteConnection
    private let find, insertRow, replaceRow, removePlace: SQLiteStatement
    /// The cache was empty when the write began: insert without looking the id up first (a duplicate id
    /// fails the UNIQUE constraint and takes the lookup path), which saves a b-tree search per record.
    private let insertFirst: Bool
    /// R*Tree changes, applied in order by `finish`: a new or moved point, or nil for a removed row.
    private var boxChanges: [(rowid: Int64, point: (lon: Double, lat: Double)?)] = []

    fileprivate init(_ connection: SQLiteConnection) throws {
        self.connection = connection
        find = try connection.prepare("SELECT rowid, \(PlaceCache.placeColumns) FROM places WHERE id = ?1")
        // ?1 is the rowid (NULL for a new row), ?2... the `checkedColumns` in order, then the checksum.
        let values = (1...PlaceCache.checkedColumns.count + 2).map { "?\($0)" }.joined(separator: ", ")
        let columns = "rowid, \(PlaceCache.rowColumns)"
        insertRow = try connection.prepare("INSERT INTO places(\(columns)) VALUES(\(values))")
        replaceRow = try connection.prepare("REPLACE INTO places(\(columns)) VALUES(\(values))")
        removePlace = try connection.prepare("DELETE FROM places WHERE rowid = ?1")
        insertFirst = try connection.integer("SELECT NOT EXISTS (SELECT 1 FROM places)") == 1
    }

    /// Inserts `place`, or replaces the cached place with its id unless the cached one is newer.
    public func upsert(_ place: Place) throws {
        if insertFirst {
            do { return try save(place, rowid: nil) } catch let error as SQLiteError
                where error.isUniqueViolation {}
        }
        defer { find.reset() }
        try find.bind(1, place.id)
        guard try find.step() else { return try save(place, rowid: nil) }
        let rowid = find.int64(0)
        if Self.isOlder(place.modified, than: find.text(1 + Int32(PlaceField.modified.rawValue))) {
            counts.older += 1
        } else if cachedRowEquals(place) {
            counts.unchanged += 1
        } else {
            let moved = find.double(1 + Int32(PlaceField.lat.rawValue)) != place.lat
                || find.double(1 + Int32(PlaceField.lon.rawValue)) != place.lon
            find.reset()
            try save(place, rowid: rowid, moved: moved)
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
    public static func isOlder(_ incoming: String?, than cached: String?) -> Bool {
        guard let cached else { return false }
        guard let incoming else { return true }
        return incoming.utf8.lexicographicallyPrecedes(cached.utf8)
    }

    /// Whether the row at `find`'s cursor holds `p` in every field, compared in place: re-importing an
    /// unchanged file makes no Strings.
    private func cachedRowEquals(_ p: Place) -> Bool {
        for field in PlaceField.allCases {
            let column = 1 + Int32(field.rawValue)
            let same = switch field {
            case .lat: find.double(column) == p.lat
            case .lon: find.double(column) == p.lon
            case .category: find.int64(column) == Int64(p.category)
            case .accessibility: find.textEquals(column, PlaceCache.accessibilityText(p.accessibility))
            default: find.textEquals(column, p[text: field])
            }
            if !same { return false }
        }
        return true
    }

    /// Writes the row (new when `rowid` is nil) and notes a new or moved place's R*Tree box.
    private func save(_ p: Place, rowid: Int64?, moved: Bool = true) throws {
        var row = CheckedRow(rowid == nil ? insertRow : replaceRow)
        // Parameters start NULL (stepStaged clears them): bind only the fields present.
        if let rowid { try row.statement.bind(1, rowid) }
        for field in PlaceField.allCases {
            switch field {
            case .lat: try row.bind(p.lat)
            case .lon: try row.bind(p.lon)
            case .category: try row.bind(Int64(p.category))
            case .accessibility: row.stage(PlaceCache.accessibilityText(p.accessibility))
            default: row.stage(p[text: field])
            }
        }
        try row.bind(Int64(Self.knownTagMask(p.accessibility)))
        try row.step()
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

    /// Binds one row's `checkedColumns` in order (parameters ?2...), adding each value to the row's
    /// `RowChecksum` as it is bound: a value cannot be stored without being summed, and `step` refuses
    /// a row with a column left unbound.
    private struct CheckedRow {
        let statement: SQLiteStatement
        private var column = 0
        private var sum = RowChecksum()

        init(_ statement: SQLiteStatement) { self.statement = statement }

        private var parameter: Int32 { 2 + Int32(column) }

        mutating func bind(_ v: Double) throws {
            sum.add(column: column, v)
            try statement.bind(parameter, v)
            column += 1
        }

        mutating func bind(_ v: Int64) throws {
            sum.add(column: column, v)
            try statement.bind(parameter, v)
            column += 1
        }

        /// Stages text (nil stays NULL, which adds nothing to the sum).
        mutating func stage(_ text: String?) {
            if let text {
                sum.add(column: column, text)
                statement.stage(parameter, text)
            }
            column += 1
        }

        /// Binds the checksum after the last column and writes the row.
        func step() throws {
            precondition(column == PlaceCache.checkedColumns.count, "a column of the row was not bound")
            try statement.bind(parameter, sum.stored)
            try statement.stepStaged()
        }
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
