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
/// - `pending`: details (`PlaceDetail`) for a place not in the cache, kept until it arrives.
///
/// A detail for a cached place merges into it (`Place.merge`) and counts as `updated` (or `unchanged`
/// when it changes nothing). A place that replaces a cached one keeps the cached place's merged details
/// unless it brings its own (`Place.keepDetails`), so re-importing a list does not drop them.
public struct WriteCounts: Sendable, Equatable {
    public var inserted = 0, updated = 0, unchanged = 0, older = 0, deleted = 0, rejected = 0, pending = 0
    public init() {}

    /// True when the write changed at least one row.
    public var changedRows: Bool { inserted + updated + deleted > 0 }
}

extension PlaceCache {
    /// Runs `body` with a writer inside ONE transaction: everything it wrote is committed when it
    /// returns, and nothing is when it throws (or when the process dies before the commit). Bumps the
    /// generation when a row changed. Throws `PlaceCacheError.busy` when another process is writing.
    /// With a `feed`, a write into an empty cache also collects its places for the index snapshot.
    public func write<T>(feeding feed: SnapshotFeed? = nil, _ body: (PlaceCacheWriter) throws -> T) throws -> T {
        // A write streams through rows once: a smaller page cache than reads use keeps an import's
        // memory flat (BENCHMARKS.md, "Import and export") at no measured cost in speed.
        try connection.execute("PRAGMA cache_size=-\(Self.writeCacheKiB)")
        defer { try? connection.execute("PRAGMA cache_size=-\(Self.readCacheKiB)") }
        return try transaction {
            let writer = try PlaceCacheWriter(connection)
            if let feed, writer.insertFirst,
                let snapshot = try? SnapshotWriter(spillingBeside: CacheSnapshot.path(ofCache: path))
            {
                feed.begin(snapshot)
                writer.feed = feed
            }
            let result = try body(writer)
            try writer.finish()
            if writer.counts.changedRows {
                try connection.execute("UPDATE meta SET value = value + 1 WHERE key = 'generation'")
            }
            if let feed = writer.feed {
                feed.finish(stamp: IndexSnapshot.Stamp(identity: try identity(), generation: try generation()))
                writer.feed = nil
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
    func detail(_ detail: PlaceDetail) throws
}

/// Upserts and deletes places inside a `PlaceCache.write` transaction, with statements prepared once and
/// reused for every record. Valid only inside the `write` call that made it.
public final class PlaceCacheWriter: PlaceSink {
    public private(set) var counts = WriteCounts()
    let connection: SQLiteConnection
    private let find, insertRow, replaceRow, removePlace: SQLiteStatement
    private let findPending, savePending, removePending: SQLiteStatement
    private let saveRemoved, dropRemoved: SQLiteStatement
    /// Some tombstone is in `removed_places`: a new place must drop its own.
    private var hasRemoved: Bool
    /// The time this write marks the rows it writes and the places it removes with
    /// (`PlaceCache.changeTime`; the change history in `ChangeHistory.swift`).
    let changeTime = PlaceCache.changeTime()
    /// Some detail waits in `pending_details`: each new place must look for its own.
    private var hasPending: Bool
    /// The cache was empty when the write began: insert without looking the id up first (a duplicate id
    /// fails the UNIQUE constraint and takes the lookup path), which saves a b-tree search per record.
    fileprivate let insertFirst: Bool
    /// Collects the places of a write into an empty cache for the index snapshot (`SnapshotFeed`);
    /// dropped as soon as the write does anything but insert new ids.
    fileprivate var feed: SnapshotFeed?
    /// R*Tree changes, applied in order by `finish`: a new or moved point, or nil for a removed row.
    private var boxChanges: [(rowid: Int64, point: (lon: Double, lat: Double)?)] = []
    /// The R*Tree will be rebuilt whole (`finish`): `boxChanges` are no longer kept (32 B a row, most
    /// of a large import's memory besides SQLite's).
    private var rebuildsTree = false
    /// At least the rows the cache held when the write began (the largest rowid).
    private let rowsBefore: Int

    fileprivate init(_ connection: SQLiteConnection) throws {
        self.connection = connection
        find = try connection.prepare("SELECT rowid, \(PlaceCache.rowColumns) FROM places WHERE id = ?1")
        // ?1 is the rowid (NULL for a new row), ?2... the `checkedColumns` in order, then the checksum
        // and the change time.
        let values = (1...PlaceCache.checkedColumns.count + 3).map { "?\($0)" }.joined(separator: ", ")
        let columns = "rowid, \(PlaceCache.rowColumns), changed"
        insertRow = try connection.prepare("INSERT INTO places(\(columns)) VALUES(\(values))")
        replaceRow = try connection.prepare("REPLACE INTO places(\(columns)) VALUES(\(values))")
        removePlace = try connection.prepare("DELETE FROM places WHERE rowid = ?1")
        insertFirst = try connection.integer("SELECT NOT EXISTS (SELECT 1 FROM places)") == 1
        findPending = try connection.prepare("SELECT kind, fields FROM pending_details WHERE id = ?1 ORDER BY kind")
        savePending = try connection.prepare("REPLACE INTO pending_details(id, kind, fields) VALUES(?1, ?2, ?3)")
        removePending = try connection.prepare("DELETE FROM pending_details WHERE id = ?1")
        hasPending = try connection.integer("SELECT EXISTS (SELECT 1 FROM pending_details)") == 1
        saveRemoved = try connection.prepare("REPLACE INTO removed_places(id, changed, place) VALUES(?1, ?2, ?3)")
        dropRemoved = try connection.prepare("DELETE FROM removed_places WHERE id = ?1")
        hasRemoved = try connection.integer("SELECT EXISTS (SELECT 1 FROM removed_places)") == 1
        rowsBefore = Int(try connection.integer("SELECT coalesce(max(rowid), 0) FROM places"))
    }

    /// Inserts `place` (with the details waiting for it), or replaces the cached place with its id
    /// unless the cached one is newer.
    public func upsert(_ incoming: Place) throws {
        var place = incoming
        if hasPending { try applyPending(to: &place) }
        if insertFirst {
            do { return try save(place, rowid: nil) } catch let error as SQLiteError
                where error.isUniqueViolation
            {}
        }
        defer { find.reset() }
        try find.bind(1, place.id)
        guard try find.step() else { return try save(place, rowid: nil) }
        let rowid = find.int64(0)
        dropFeed()
        if Self.isOlder(place.modified, than: find.text(1 + Int32(PlaceField.modified.rawValue))) {
            counts.older += 1
            return
        }
        if PlaceDetail.Kind.allCases.contains(where: { !find.isNull(1 + Int32(Self.textField(of: $0).rawValue)) }) {
            place.keepDetails(of: try cachedPlace())
        }
        if cachedRowEquals(place) {
            counts.unchanged += 1
        } else {
            let moved =
                find.double(1 + Int32(PlaceField.lat.rawValue)) != place.lat
                || find.double(1 + Int32(PlaceField.lon.rawValue)) != place.lon
            find.reset()
            try save(place, rowid: rowid, moved: moved)
        }
    }

    /// Merges `detail` into the cached place with its id, or keeps it in `pending_details` until that
    /// place arrives (a later detail of the same kind replaces a waiting one).
    public func detail(_ detail: PlaceDetail) throws {
        defer { find.reset() }
        try find.bind(1, detail.id)
        guard try find.step() else {
            defer { savePending.reset() }
            try savePending.bind(1, detail.id)
            try savePending.bind(2, detail.kind.rawValue)
            try savePending.bind(3, detail.originalText)
            try savePending.step()
            hasPending = true
            counts.pending += 1
            return
        }
        let rowid = find.int64(0)
        dropFeed()
        var place = try cachedPlace()
        place.merge(detail)
        if cachedRowEquals(place) {
            counts.unchanged += 1
            return
        }
        find.reset()
        try save(place, rowid: rowid, moved: false)
    }

    /// The field that keeps the texts of a kind of detail (its presence marks a merged detail).
    static func textField(of kind: PlaceDetail.Kind) -> PlaceField {
        switch kind {
        case .barrierFree: .barrierFree
        case .pet: .petInfo
        }
    }

    /// The place at `find`'s cursor.
    private func cachedPlace() throws -> Place {
        do { return try PlaceCache.place(from: find, first: 1) } catch {
            throw PlaceCacheError.damaged(
                path: connection.path, row: find.text(1) ?? "", field: error.field, reason: error.reason)
        }
    }

    /// Merges into `place` the details waiting for its id, and removes them from `pending_details`.
    private func applyPending(to place: inout Place) throws {
        defer { findPending.reset() }
        try findPending.bind(1, place.id)
        var found = false
        while try findPending.step() {
            guard let kind = findPending.text(0).flatMap(PlaceDetail.Kind.init(rawValue:)),
                let fields = findPending.text(1).flatMap(PlaceDetail.fields(fromOriginalText:))
            else { continue }
            place.merge(PlaceDetail(id: place.id, kind: kind, fields: fields))
            found = true
        }
        guard found else { return }
        defer { removePending.reset() }
        try removePending.bind(1, place.id)
        try removePending.step()
    }

    /// Removes the place with `id` if it is cached, leaving its tombstone (`removed_places`).
    public func delete(id: String) throws {
        defer { find.reset() }
        try find.bind(1, id)
        guard try find.step() else {
            counts.unchanged += 1
            return
        }
        let rowid = find.int64(0)
        dropFeed()
        var json: [UInt8] = []
        PlaceJSON.append(try cachedPlace(), to: &json)
        find.reset()
        do {
            defer { saveRemoved.reset() }
            try saveRemoved.bind(1, id)
            try saveRemoved.bind(2, changeTime)
            try saveRemoved.bind(3, String(decoding: json, as: UTF8.self))
            try saveRemoved.step()
            hasRemoved = true
        }
        defer { removePlace.reset() }
        try removePlace.bind(1, rowid)
        try removePlace.step()
        noteBox(rowid, nil)
        counts.deleted += 1
    }

    private func dropFeed() {
        feed?.drop()
        feed = nil
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
            let same =
                switch field {
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
        try row.bind(Int64(Accessibility.placeMask(p.accessibility)))
        try row.step(changed: changeTime)
        if rowid == nil {
            counts.inserted += 1
            if hasRemoved {
                defer { dropRemoved.reset() }
                try dropRemoved.bind(1, p.id)
                try dropRemoved.step()
            }
        } else {
            counts.updated += 1
        }
        feed?.add(p)
        if moved { noteBox(rowid ?? connection.lastInsertRowID, (p.lon, p.lat)) }
    }

    /// Notes a row's new box (nil: removed) for `finish`. Once the changes are an eighth of the most rows
    /// the cache can hold after the write (`rowsBefore` + inserts, each later change adding at most one
    /// row), `finish` rebuilds the tree whatever comes next, and the changes themselves are not needed.
    private func noteBox(_ rowid: Int64, _ point: (lon: Double, lat: Double)?) {
        guard !rebuildsTree else { return }
        boxChanges.append((rowid, point))
        if boxChanges.count * 8 >= rowsBefore + counts.inserted {
            rebuildsTree = true
            boxChanges = []
        }
    }

    /// Brings the R*Tree up to date with the rows: one row at a time for a few changes, a packed rebuild
    /// (`RTreeBulkLoader`) when they are many (an eighth of the rows or more: a rebuild costs about 1.5 µs a
    /// row of the whole cache, an R*Tree insert about 20 µs).
    fileprivate func finish() throws {
        guard rebuildsTree || !boxChanges.isEmpty else { return }
        if try rebuildsTree || boxChanges.count * 8 >= Int(connection.integer("SELECT count(*) FROM places")) {
            try RTreeBulkLoader.rebuild(connection)
        } else {
            let save = try connection.prepare("INSERT OR REPLACE INTO places_rtree VALUES(?1, ?2, ?3, ?4, ?5)")
            let remove = try connection.prepare("DELETE FROM places_rtree WHERE rowid = ?1")
            for (rowid, point) in boxChanges {
                let s = point == nil ? remove : save
                defer { s.reset() }
                try s.bind(1, rowid)
                if let point {
                    let lon = Self.floatBounds(point.lon)
                    let lat = Self.floatBounds(point.lat)
                    try s.bind(2, lon.lower)
                    try s.bind(3, lon.upper)
                    try s.bind(4, lat.lower)
                    try s.bind(5, lat.upper)
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

        /// Binds the checksum after the last column, then the change time, and writes the row.
        func step(changed: String) throws {
            precondition(column == PlaceCache.checkedColumns.count, "a column of the row was not bound")
            try statement.bind(parameter, sum.stored)
            try statement.bind(parameter + 1, changed)
            try statement.stepStaged()
        }
    }

    /// 32-bit floats strictly below and above `x` (R*Tree coordinates are Floats): one Float step beyond
    /// `x` rounded to Float, both exactly representable, so SQLite stores them unchanged and the box
    /// always contains the true `x`.
    static func floatBounds(_ x: Double) -> (lower: Double, upper: Double) {
        let f = Float(x)
        return (Double(f.nextDown), Double(f.nextUp))
    }
}
