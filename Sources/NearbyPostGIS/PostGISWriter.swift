import Foundation
import NearbyCore
import NearbyStore

extension PostGISStore {
    /// Runs `body` with a writer inside ONE transaction: everything it wrote is committed when it
    /// returns, nothing when it throws (or the process dies). Bumps the generation when a row changed,
    /// and keeps the row count (`placecount`). Throws a busy `PostGISError` when another import is
    /// writing (an advisory lock, not a wait).
    public func write<T>(_ body: (PostGISWriter) throws -> T) throws -> T {
        try wrap {
            try connection.execute("BEGIN")
            do {
                let locked =
                    try connection.query("SELECT pg_try_advisory_xact_lock(\(Self.writerLock))").text(0, 0) == "t"
                guard locked else {
                    throw PostGISError(
                        name: name,
                        message: "busy: another import is writing to the database; try again when it is done",
                        isBusy: true)
                }
                let writer = try PostGISWriter(self)
                // The rows in flight are sent before the connection is used again (here, a rollback).
                defer { writer.waitForSends() }
                let result = try body(writer)
                try writer.apply()
                if writer.counts.changedRows {
                    // The generation, and the row count an unfiltered total reads (`007_order_indexes.sql`):
                    // the counts are the net of the records, as they were applied.
                    let added = writer.counts.inserted - writer.counts.deleted
                    try connection.execute(
                        """
                        UPDATE nearby_meta SET value = value + CASE key WHEN 'generation' THEN 1 ELSE \(added) END
                        WHERE key IN ('generation', 'placecount')
                        """)
                }
                try connection.execute("COMMIT")
                return result
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }
}

/// Upserts and deletes places inside a `PostGISStore.write` transaction, with the SQLite cache's rules
/// and counts (`WriteCounts`: newer-or-equal `modified` wins, also for a repeat inside one import).
///
/// Records stream into a temporary staging table through COPY (binary format, `PGBinaryCopy`),
/// numbered in arrival order; `apply` then applies them set-wise: each id seen once is classified
/// against `places` by one join (new, older, identical, changed; deletes found or not), and the few ids
/// seen several times are folded in order here, record by record, exactly as `PlaceCacheWriter` would.
/// When the changes are many (an eighth of the rows or more) the GiST index is dropped and built again
/// after, as a bulk load does.
///
/// A first import (into an empty `places`) skips the staging table, which would copy every row twice:
/// it drops the table's indexes (readers wait for the commit, and would find nothing before it), COPYs
/// each id's first upsert straight into `places` (the point as EWKB, made here), builds the indexes
/// again and analyses the table. Later records of an id already written, deletes and the records after
/// a delete of their id are kept aside, then staged and applied as above: counts and outcome equal
/// the staged path's.
public final class PostGISWriter: PlaceSink {
    public private(set) var counts = WriteCounts()
    private let store: PostGISStore
    private var connection: PGConnection { store.connection }
    /// Rows not yet handed to `sender`, in arrival order.
    private var rows: [Row] = []
    private let sender: RowSender
    private var sequence: Int64 = 0
    private var applied = false
    private var firstImport: FirstImport?
    /// Details, applied in arrival order after the places (`applyDetails`).
    private var details: [PlaceDetail] = []

    /// The state of a first import: ids written or deleted so far, records kept aside, statements that
    /// make the dropped indexes again.
    private final class FirstImport {
        var written: Set<String> = []
        var aside: [(place: Place?, id: String)] = []
        let indexes: [String]
        init(indexes: [String]) { self.indexes = indexes }
    }

    /// The staged columns: arrival number, u(psert) or d(elete), the place's columns, the derived ones.
    private static let stagedColumns = "seq, op, \(PostGISStore.placeColumns), \(PostGISStore.derivedColumns)"

    fileprivate init(_ store: PostGISStore) throws {
        self.store = store
        sender = RowSender(store.connection)
        if try store.connection.query("SELECT NOT EXISTS (SELECT FROM places)").text(0, 0) == "t" {
            firstImport = FirstImport(indexes: try dropIndexes())
            try connection.beginCopy(
                "COPY places (\(PostGISStore.placeColumns), \(PostGISStore.derivedColumns), geom) FROM STDIN (FORMAT binary)"
            )
            sender.begin()
        } else {
            try beginStaging()
        }
    }

    /// Drops every index of `places` (its primary key too); returns the statements that make them again.
    private func dropIndexes() throws -> [String] {
        let r = try connection.query(
            """
            SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid), quote_ident(c.conname), pg_get_constraintdef(c.oid)
            FROM pg_index i LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid
            WHERE i.indrelid = 'places'::regclass ORDER BY c.conname IS NULL, 1
            """)
        return try (0..<r.count).map { row in
            if let constraint = r.text(row, 2), let definition = r.text(row, 3) {
                try connection.execute("ALTER TABLE places DROP CONSTRAINT \(constraint)")
                return "ALTER TABLE places ADD CONSTRAINT \(constraint) \(definition)"
            }
            try connection.execute("DROP INDEX \(r.text(row, 0)!)")
            return r.text(row, 1)!
        }
    }

    private func beginStaging() throws {
        let columns = PlaceField.allCases.map { field -> String in
            let name = field.name.lowercased()
            switch field {
            case .id, .modified: return "\(name) text COLLATE \"C\""
            case .lat, .lon: return "\(name) float8"
            case .category: return "\(name) integer"
            default: return "\(name) text"
            }
        }.joined(separator: ", ")
        let derived = PostGISStore.derived.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        try connection.execute(
            """
            CREATE TEMP TABLE nearby_staging (seq bigint, op "char", \(columns), \(derived)) ON COMMIT DROP
            """)
        try connection.beginCopy("COPY nearby_staging (\(Self.stagedColumns)) FROM STDIN (FORMAT binary)")
        sender.begin()
    }

    public func upsert(_ p: Place) throws {
        precondition(!applied, "PostGISWriter used after apply()")
        guard let first = firstImport else { return try stage(p) }
        guard first.written.insert(p.id).inserted else { return first.aside.append((p, p.id)) }
        rows.append(.place(p))
        counts.inserted += 1
        try endLine()
    }

    public func detail(_ detail: PlaceDetail) throws {
        precondition(!applied, "PostGISWriter used after apply()")
        details.append(detail)
    }

    public func delete(id: String) throws {
        precondition(!applied, "PostGISWriter used after apply()")
        guard let first = firstImport else { return try stageDelete(id) }
        // Later upserts of this id go aside too, to be applied after the delete.
        first.written.insert(id)
        first.aside.append((nil, id))
    }

    private func stage(_ p: Place) throws {
        sequence += 1
        rows.append(.staged(sequence, p))
        try endLine()
    }

    private func stageDelete(_ id: String) throws {
        sequence += 1
        rows.append(.delete(sequence, id))
        try endLine()
    }

    /// A row of the COPY under way: of `places` (a first import), or of `nearby_staging`.
    private enum Row: Sendable {
        case place(Place)
        case staged(Int64, Place)
        case delete(Int64, String)

        func append(to copy: inout PGBinaryCopy) throws {
            switch self {
            case .place(let p): try PostGISWriter.appendRow(p, to: &copy)
            case .staged(let sequence, let p): try PostGISWriter.appendStagedRow(sequence, p, to: &copy)
            case .delete(let sequence, let id): PostGISWriter.appendStagedDelete(sequence, id, to: &copy)
            }
        }
    }

    /// Encodes rows in COPY's binary format and sends them, batch after batch in order, on a thread of
    /// its own: the import's reading, parsing and region lookups go on meanwhile (the encoding, with the
    /// title keys, is a quarter of the client's CPU, kept off the thread that parses). At most two batches
    /// wait, so memory does not grow with the import. The connection is used by this thread only
    /// between `begin` and `end`. An error (a failed send, a category out of range) is thrown by the
    /// next `send` or by `end`.
    private final class RowSender: @unchecked Sendable {
        // @unchecked: `copy` is touched on `queue` only, or inside `queue.sync`; `failure` under `lock`.
        private let connection: PGConnection
        private let queue = DispatchQueue(label: "nearby.postgis.copy")
        private let room = DispatchSemaphore(value: 2)
        private var copy = PGBinaryCopy()
        private let lock = NSLock()
        private var failed: Error?
        private var failure: Error? {
            get { lock.withLock { failed } }
            set { lock.withLock { failed = newValue } }
        }

        init(_ connection: PGConnection) { self.connection = connection }

        /// Starts the rows of a COPY that the connection has begun.
        func begin() {
            queue.sync {
                copy = PGBinaryCopy()
                failure = nil
            }
        }

        func send(_ rows: [Row]) throws {
            if let failure { throw failure }
            room.wait()
            queue.async { [self] in
                defer { room.signal() }
                guard failure == nil else { return }
                do {
                    for row in rows { try row.append(to: &copy) }
                    if copy.bytes.count >= 1 << 20 { try copy.take(connection.putCopyData) }
                } catch {
                    failure = error
                }
            }
        }

        func wait() { queue.sync {} }

        /// Sends the last rows and the trailer, once every batch is sent; then the connection may end
        /// the COPY.
        func end() throws {
            try queue.sync {
                if let failure { throw failure }
                copy.finish()
                try copy.take(connection.putCopyData)
            }
        }
    }

    // The rows are written by static functions given the buffer inout: one access to the
    // `copy` per row, where a method mutating a stored property checks exclusive access at every value.

    /// The values `appendColumns` writes: the place's columns and the derived ones.
    private static let placeFields = PlaceField.allCases.count + PostGISStore.derived.count

    /// A row of `places` (a first import): the place's columns, the derived ones, the point.
    private static func appendRow(_ p: Place, to copy: inout PGBinaryCopy) throws {
        copy.row(fields: placeFields + 1)
        try appendColumns(p, to: &copy)
        // EWKB, little-endian: a point with an SRID (4326), x then y.
        copy.value { out in
            out.append(contentsOf: [0x01, 0x01, 0x00, 0x00, 0x20, 0xE6, 0x10, 0x00, 0x00] as [UInt8])
            withUnsafeBytes(of: p.lon.bitPattern.littleEndian) { out.append(contentsOf: $0) }
            withUnsafeBytes(of: p.lat.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        }
    }

    /// A row of `nearby_staging` upserting `p` (`stagedColumns`).
    private static func appendStagedRow(_ sequence: Int64, _ p: Place, to copy: inout PGBinaryCopy) throws {
        copy.row(fields: 2 + placeFields)
        copy.int64(sequence)
        copy.char(UInt8(ascii: "u"))
        try appendColumns(p, to: &copy)
    }

    /// A row of `nearby_staging` deleting `id`: every other column NULL.
    private static func appendStagedDelete(_ sequence: Int64, _ id: String, to copy: inout PGBinaryCopy) {
        copy.row(fields: 2 + placeFields)
        copy.int64(sequence)
        copy.char(UInt8(ascii: "d"))
        copy.text(id)
        for _ in 1..<placeFields { copy.null() }
    }

    /// The place's columns (`PostGISStore.placeColumns`) and the derived ones.
    private static func appendColumns(_ p: Place, to copy: inout PGBinaryCopy) throws {
        for field in PlaceField.allCases {
            switch field {
            case .lat: copy.float8(p.lat)
            case .lon: copy.float8(p.lon)
            case .category:
                guard let category = Int32(exactly: p.category) else {
                    throw PGError(
                        message: "place \(p.id): category \(p.category) is out of range for PostgreSQL's integer")
                }
                copy.int32(category)
            case .accessibility: copy.text(PostGISStore.accessibilityText(p.accessibility))
            default: copy.text(p[text: field])
            }
        }
        PostGISStore.appendDerived(p, to: &copy)
    }

    private func endCopy() throws {
        try sender.send(rows)
        rows.removeAll()
        try sender.end()
        try connection.endCopy()
    }

    /// Returns once the rows handed to the sender are sent (or failed).
    func waitForSends() { sender.wait() }

    /// Hands the rows to the sender every `batchSize`.
    private func endLine() throws {
        if rows.count >= Self.batchSize {
            try sender.send(rows)
            rows.removeAll(keepingCapacity: true)
        }
    }

    /// Rows per batch sent: about a megabyte of COPY data.
    private static let batchSize = 2048

    /// Applies the staged records and fills in `counts` (`write` calls it after its body; a body that
    /// needs the counts calls it first). Nothing can be written after.
    public func apply() throws {
        guard !applied else { return }
        applied = true
        try endCopy()
        if let first = firstImport {
            firstImport = nil
            for statement in first.indexes { try connection.execute(statement) }
            try connection.execute("ANALYZE places")
            if !first.aside.isEmpty {
                try beginStaging()
                for record in first.aside {
                    if let p = record.place { try stage(p) } else { try stageDelete(record.id) }
                }
                try endCopy()
            }
        }
        try applyPlaces()
        try applyDetails()
    }

    private func applyPlaces() throws {
        guard sequence > 0 else { return }
        try foldRepeatedIDs()
        let columns = PostGISStore.placeColumns
        let same = PlaceField.allCases.filter { $0 != .id }.map { $0.name.lowercased() }
        try connection.execute(
            """
            CREATE TEMP TABLE nearby_outcome ON COMMIT DROP AS
            SELECT s.*, CASE
                WHEN s.op = 'd' THEN CASE WHEN p.id IS NULL THEN 'unchanged' ELSE 'deleted' END
                WHEN p.id IS NULL THEN 'inserted'
                WHEN p.modified IS NOT NULL AND (s.modified IS NULL OR s.modified < p.modified) THEN 'older'
                WHEN (\(same.map(Self.incoming).joined(separator: ", "))) IS NOT DISTINCT FROM
                     (\(same.map { "p." + $0 }.joined(separator: ", "))) THEN 'unchanged'
                ELSE 'updated' END AS outcome
            FROM nearby_staging s LEFT JOIN places p ON p.id = s.id
            """)
        let r = try connection.query("SELECT outcome, count(*) FROM nearby_outcome GROUP BY outcome")
        var changes = 0
        for row in 0..<r.count {
            let n = Int(r.int64(row, 1) ?? 0)
            switch r.text(row, 0) {
            case "inserted":
                counts.inserted += n
                changes += n
            case "updated":
                counts.updated += n
                changes += n
            case "unchanged": counts.unchanged += n
            case "older": counts.older += n
            case "deleted":
                counts.deleted += n
                changes += n
            default: break
            }
        }
        guard changes > 0 else { return }
        // Replaced places that had details the new record does not bring keep them (`Place.keepDetails`).
        let detailed = try connection.query(
            """
            SELECT \(PlaceField.allCases.map { "p." + $0.name.lowercased() }.joined(separator: ", "))
            FROM places p JOIN nearby_outcome o ON o.id = p.id
            WHERE o.outcome = 'updated' AND ((p.barrierfree IS NOT NULL AND o.barrierfree IS NULL)
                                          OR (p.petinfo IS NOT NULL AND o.petinfo IS NULL AND o.pet IS NULL))
            """)
        let kept = try (0..<detailed.count).map { try store.place(detailed, $0) }
        let rebuild = try changes * 8 >= store.count()
        if rebuild { try connection.execute("DROP INDEX places_geom") }
        try connection.execute(
            """
            DELETE FROM places p USING nearby_outcome o WHERE o.id = p.id AND o.outcome IN ('updated', 'deleted');
            INSERT INTO places (\(columns), \(PostGISStore.derivedColumns), geom)
            SELECT \(columns), \(PostGISStore.derivedColumns), ST_SetSRID(ST_MakePoint(lon, lat), 4326)
            FROM nearby_outcome WHERE outcome IN ('inserted', 'updated') ORDER BY seq
            """)
        if rebuild { try connection.execute("CREATE INDEX places_geom ON places USING gist (geom); ANALYZE places") }
        for cached in kept {
            guard var p = try place(id: cached.id) else { continue }
            p.keepDetails(of: cached)
            try replace(id: p.id, with: p)
        }
    }

    /// The stored place with `id`, nil when there is none.
    private func place(id: String) throws -> Place? {
        let r = try connection.prepared(
            "nearby_find", "SELECT \(PostGISStore.placeColumns) FROM places WHERE id = $1", [id])
        return r.count == 0 ? nil : try store.place(r, 0)
    }

    /// Merges the details into their places in arrival order, then the waiting details into the places
    /// that have arrived; a detail whose place is not there waits in `pending_details`. The same rules
    /// and counts as `PlaceCacheWriter.detail`.
    private func applyDetails() throws {
        for d in details {
            guard var p = try place(id: d.id) else {
                _ = try connection.prepared(
                    "nearby_pend",
                    """
                    INSERT INTO pending_details (id, kind, fields) VALUES ($1, $2, $3)
                    ON CONFLICT (id, kind) DO UPDATE SET fields = excluded.fields
                    """, [d.id, d.kind.rawValue, d.originalText])
                counts.pending += 1
                continue
            }
            let before = p
            p.merge(d)
            if p == before {
                counts.unchanged += 1
                continue
            }
            counts.updated += 1
            try replace(id: p.id, with: p)
        }
        let waiting = try connection.query(
            """
            SELECT d.id, d.kind, d.fields FROM pending_details d JOIN places p ON p.id = d.id ORDER BY d.id, d.kind
            """)
        guard waiting.count > 0 else { return }
        for row in 0..<waiting.count {
            guard let id = waiting.text(row, 0), var p = try place(id: id),
                let kind = waiting.text(row, 1).flatMap(PlaceDetail.Kind.init(rawValue:)),
                let fields = waiting.text(row, 2).flatMap(PlaceDetail.fields(fromOriginalText:))
            else { continue }
            p.merge(PlaceDetail(id: id, kind: kind, fields: fields))
            try replace(id: id, with: p)
        }
        try connection.execute("DELETE FROM pending_details d USING places p WHERE p.id = d.id")
    }

    /// A staged column as it compares with the stored row `p`: a record without details keeps the
    /// stored place's (`Place.keepDetails`), so it is unchanged when it differs only by them; its own
    /// accessibility tags then join the stored ones (the union, sorted, as `keepDetails` makes it).
    private static func incoming(_ column: String) -> String {
        let noBarrierFree = "s.barrierfree IS NULL AND p.barrierfree IS NOT NULL"
        let noPet = "s.pet IS NULL AND s.petinfo IS NULL"
        return switch column {
        case "barrierfree": "coalesce(s.barrierfree, p.barrierfree)"
        case "accessibility":
            """
            CASE WHEN \(noBarrierFree) THEN (SELECT string_agg(t, ',' ORDER BY t COLLATE "C") FROM (SELECT DISTINCT
              unnest(string_to_array(s.accessibility, ',') || string_to_array(p.accessibility, ','))) u(t))
            ELSE s.accessibility END
            """
        case "pet", "petinfo": "CASE WHEN \(noPet) THEN p.\(column) ELSE s.\(column) END"
        default: "s." + column
        }
    }

    /// Ids staged more than once: their records are applied here in arrival order, one at a time as
    /// `PlaceCacheWriter` does, and taken out of the staging table.
    private func foldRepeatedIDs() throws {
        let repeated = "SELECT id FROM nearby_staging GROUP BY id HAVING count(*) > 1"
        let staged = try connection.query(
            """
            SELECT op, \(PostGISStore.placeColumns) FROM nearby_staging WHERE id IN (\(repeated)) ORDER BY id, seq
            """)
        guard staged.count > 0 else { return }
        let cachedRows = try connection.query(
            "SELECT \(PostGISStore.placeColumns) FROM places WHERE id IN (\(repeated))")
        var state: [String: Place?] = [:]
        for row in 0..<cachedRows.count {
            let p = try store.place(cachedRows, row)
            state[p.id] = .some(p)
        }
        var touched: [String] = []
        for row in 0..<staged.count {
            let id = staged.text(row, 1)!
            let cached = state[id] ?? nil
            if staged.text(row, 0) == "d" {
                if cached == nil {
                    counts.unchanged += 1
                } else {
                    counts.deleted += 1
                    state[id] = .some(nil)
                    touched.append(id)
                }
                continue
            }
            var p = try store.place(staged, row, first: 1)
            if let cached { p.keepDetails(of: cached) }
            if cached == nil {
                counts.inserted += 1
            } else if PlaceCacheWriter.isOlder(p.modified, than: cached!.modified) {
                counts.older += 1
                continue
            } else if cached == p {
                counts.unchanged += 1
                continue
            } else {
                counts.updated += 1
            }
            state[id] = .some(p)
            touched.append(id)
        }
        try connection.execute("DELETE FROM nearby_staging WHERE id IN (\(repeated))")
        var done = Set<String>()
        for id in touched where done.insert(id).inserted { try replace(id: id, with: state[id] ?? nil) }
    }

    /// Removes the row with `id` and, unless `p` is nil, inserts `p` in its place.
    private func replace(id: String, with p: Place?) throws {
        _ = try connection.prepared("nearby_remove", "DELETE FROM places WHERE id = $1", [id])
        guard let p else { return }
        let values: [String?] = PlaceField.allCases.map { field in
            switch field {
            case .lat: p.lat.description
            case .lon: p.lon.description
            case .category: String(p.category)
            case .accessibility: PostGISStore.accessibilityText(p.accessibility)
            default: p[text: field]
            }
        }
        let derived = PostGISStore.derivedValues(p)
        let placeholders = (1...values.count + derived.count).map { "$\($0)" }.joined(separator: ", ")
        _ = try connection.prepared(
            "nearby_insert",
            """
            INSERT INTO places (\(PostGISStore.placeColumns), \(PostGISStore.derivedColumns), geom)
            VALUES (\(placeholders), ST_SetSRID(ST_MakePoint($\(1 + PlaceField.lon.rawValue), $\(1 + PlaceField.lat.rawValue)), 4326))
            """, values + derived)
    }
}
