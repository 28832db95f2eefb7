import NearbyCore
import NearbyStore

extension PostGISStore {
    /// Runs `body` with a writer inside ONE transaction: everything it wrote is committed when it
    /// returns, nothing when it throws (or the process dies). Bumps the generation when a row changed.
    /// Throws a busy `PostGISError` when another import is writing (an advisory lock, not a wait).
    public func write<T>(_ body: (PostGISWriter) throws -> T) throws -> T {
        try wrap {
            try connection.execute("BEGIN")
            do {
                let locked = try connection.query("SELECT pg_try_advisory_xact_lock(\(Self.writerLock))").text(0, 0) == "t"
                guard locked else {
                    throw PostGISError(name: name, message: "busy: another import is writing to the database; try again when it is done", isBusy: true)
                }
                let writer = try PostGISWriter(self)
                let result = try body(writer)
                try writer.apply()
                if writer.counts.changedRows {
                    try connection.execute("UPDATE nearby_meta SET value = value + 1 WHERE key = 'generation'")
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
/// Records stream into a temporary staging table through COPY, numbered in arrival order; `finish`
/// then applies them set-wise: each id seen once is classified against `places` by one join (new,
/// older, identical, changed; deletes found or not), and the few ids seen several times are folded in
/// order here, record by record, exactly as `PlaceCacheWriter` would. When the changes are many (an
/// eighth of the rows or more) the GiST index is dropped and built again after, as a bulk load does.
public final class PostGISWriter: PlaceSink {
    public private(set) var counts = WriteCounts()
    private let store: PostGISStore
    private var connection: PGConnection { store.connection }
    private var buffer: [UInt8] = []
    private var sequence: Int64 = 0
    private var applied = false
    /// Details, applied in arrival order after the places (`applyDetails`).
    private var details: [PlaceDetail] = []

    /// The staged columns: arrival number, u(psert) or d(elete), the place's columns, accessmask.
    private static let stagedColumns = "seq, op, \(PostGISStore.placeColumns), accessmask"

    fileprivate init(_ store: PostGISStore) throws {
        self.store = store
        let columns = PlaceField.allCases.map { field -> String in
            let name = field.name.lowercased()
            switch field {
            case .id, .modified: return "\(name) text COLLATE \"C\""
            case .lat, .lon: return "\(name) float8"
            case .category: return "\(name) integer"
            default: return "\(name) text"
            }
        }.joined(separator: ", ")
        try store.connection.execute("""
            CREATE TEMP TABLE nearby_staging (seq bigint, op "char", \(columns), accessmask integer) ON COMMIT DROP
            """)
        try store.connection.beginCopy("COPY nearby_staging (\(Self.stagedColumns)) FROM STDIN")
    }

    public func upsert(_ p: Place) throws {
        precondition(!applied, "PostGISWriter used after apply()")
        sequence += 1
        append("\(sequence)\tu\t")
        for field in PlaceField.allCases {
            switch field {
            case .lat: append(p.lat.description)
            case .lon: append(p.lon.description)
            case .category: append(String(p.category))
            case .accessibility: appendField(PostGISStore.accessibilityText(p.accessibility))
            default: appendField(p[text: field])
            }
            buffer.append(UInt8(ascii: "\t"))
        }
        append(String(Accessibility.placeMask(p.accessibility)))
        try endLine()
    }

    public func detail(_ detail: PlaceDetail) throws {
        precondition(!applied, "PostGISWriter used after apply()")
        details.append(detail)
    }

    public func delete(id: String) throws {
        precondition(!applied, "PostGISWriter used after apply()")
        sequence += 1
        append("\(sequence)\td\t")
        appendField(id)
        for _ in 1..<PlaceField.allCases.count { append("\t\\N") }
        append("\t0")
        try endLine()
    }

    private func append(_ s: String) { buffer.append(contentsOf: s.utf8) }

    /// A value in COPY's text format: NULL as \N; backslash, tab, newline and carriage return escaped.
    private func appendField(_ s: String?) {
        guard let s else { return append("\\N") }
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\t"): append("\\t")
            case UInt8(ascii: "\n"): append("\\n")
            case UInt8(ascii: "\r"): append("\\r")
            default: buffer.append(b)
            }
        }
    }

    private func endLine() throws {
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 20 { try connection.putCopyData(buffer); buffer.removeAll(keepingCapacity: true) }
    }

    /// Applies the staged records and fills in `counts` (`write` calls it after its body; a body that
    /// needs the counts calls it first). Nothing can be written after.
    public func apply() throws {
        guard !applied else { return }
        applied = true
        try connection.putCopyData(buffer)
        buffer = []
        try connection.endCopy()
        try applyPlaces()
        try applyDetails()
    }

    private func applyPlaces() throws {
        guard sequence > 0 else { return }
        try foldRepeatedIDs()
        let columns = PostGISStore.placeColumns
        let same = PlaceField.allCases.filter { $0 != .id }.map { $0.name.lowercased() }
        try connection.execute("""
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
        for row in 0..<r.count {
            let n = Int(r.int64(row, 1) ?? 0)
            switch r.text(row, 0) {
            case "inserted": counts.inserted += n
            case "updated": counts.updated += n
            case "unchanged": counts.unchanged += n
            case "older": counts.older += n
            case "deleted": counts.deleted += n
            default: break
            }
        }
        guard counts.changedRows else { return }
        // Replaced places that had details the new record does not bring keep them (`Place.keepDetails`).
        let detailed = try connection.query("""
            SELECT \(PlaceField.allCases.map { "p." + $0.name.lowercased() }.joined(separator: ", "))
            FROM places p JOIN nearby_outcome o ON o.id = p.id
            WHERE o.outcome = 'updated' AND ((p.barrierfree IS NOT NULL AND o.barrierfree IS NULL)
                                          OR (p.petinfo IS NOT NULL AND o.petinfo IS NULL AND o.pet IS NULL))
            """)
        let kept = try (0..<detailed.count).map { try store.place(detailed, $0) }
        let changes = counts.inserted + counts.updated + counts.deleted
        let rebuild = try changes * 8 >= store.count()
        if rebuild { try connection.execute("DROP INDEX places_geom") }
        try connection.execute("""
            DELETE FROM places p USING nearby_outcome o WHERE o.id = p.id AND o.outcome IN ('updated', 'deleted');
            INSERT INTO places (\(columns), accessmask, geom)
            SELECT \(columns), accessmask, ST_SetSRID(ST_MakePoint(lon, lat), 4326)
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
        let r = try connection.prepared("nearby_find", "SELECT \(PostGISStore.placeColumns) FROM places WHERE id = $1", [id])
        return r.count == 0 ? nil : try store.place(r, 0)
    }

    /// Merges the details into their places in arrival order, then the waiting details into the places
    /// that have arrived; a detail whose place is not there waits in `pending_details`. The same rules
    /// and counts as `PlaceCacheWriter.detail`.
    private func applyDetails() throws {
        for d in details {
            guard var p = try place(id: d.id) else {
                _ = try connection.prepared("nearby_pend", """
                    INSERT INTO pending_details (id, kind, fields) VALUES ($1, $2, $3)
                    ON CONFLICT (id, kind) DO UPDATE SET fields = excluded.fields
                    """, [d.id, d.kind.rawValue, d.originalText])
                counts.pending += 1
                continue
            }
            let before = p
            p.merge(d)
            if p == before { counts.unchanged += 1; continue }
            counts.updated += 1
            try replace(id: p.id, with: p)
        }
        let waiting = try connection.query("""
            SELECT d.id, d.kind, d.fields FROM pending_details d JOIN places p ON p.id = d.id ORDER BY d.id, d.kind
            """)
        guard waiting.count > 0 else { return }
        for row in 0..<waiting.count {
            guard let id = waiting.text(row, 0), var p = try place(id: id),
                  let kind = waiting.text(row, 1).flatMap(PlaceDetail.Kind.init(rawValue:)),
                  let fields = waiting.text(row, 2).flatMap(PlaceDetail.fields(fromOriginalText:)) else { continue }
            p.merge(PlaceDetail(id: id, kind: kind, fields: fields))
            try replace(id: id, with: p)
        }
        try connection.execute("DELETE FROM pending_details d USING places p WHERE p.id = d.id")
    }

    /// A staged column as it compares with the stored row `p`: a record without details keeps the
    /// stored place's (`Place.keepDetails`), so it is unchanged when it differs only by them.
    private static func incoming(_ column: String) -> String {
        let noBarrierFree = "s.barrierfree IS NULL AND p.barrierfree IS NOT NULL"
        let noPet = "s.pet IS NULL AND s.petinfo IS NULL"
        return switch column {
        case "barrierfree": "coalesce(s.barrierfree, p.barrierfree)"
        case "accessibility": "CASE WHEN \(noBarrierFree) THEN coalesce(s.accessibility, p.accessibility) ELSE s.accessibility END"
        case "pet", "petinfo": "CASE WHEN \(noPet) THEN p.\(column) ELSE s.\(column) END"
        default: "s." + column
        }
    }

    /// Ids staged more than once: their records are applied here in arrival order, one at a time as
    /// `PlaceCacheWriter` does, and taken out of the staging table.
    private func foldRepeatedIDs() throws {
        let repeated = "SELECT id FROM nearby_staging GROUP BY id HAVING count(*) > 1"
        let staged = try connection.query("""
            SELECT op, \(PostGISStore.placeColumns) FROM nearby_staging WHERE id IN (\(repeated)) ORDER BY id, seq
            """)
        guard staged.count > 0 else { return }
        let cachedRows = try connection.query("SELECT \(PostGISStore.placeColumns) FROM places WHERE id IN (\(repeated))")
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
                if cached == nil { counts.unchanged += 1 } else { counts.deleted += 1; state[id] = .some(nil); touched.append(id) }
                continue
            }
            var p = try store.place(staged, row, first: 1)
            if let cached { p.keepDetails(of: cached) }
            if cached == nil {
                counts.inserted += 1
            } else if PlaceCacheWriter.isOlder(p.modified, than: cached!.modified) {
                counts.older += 1; continue
            } else if cached == p {
                counts.unchanged += 1; continue
            } else {
                counts.updated += 1
            }
            state[id] = .some(p); touched.append(id)
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
        let mask = String(Accessibility.placeMask(p.accessibility))
        let n = PlaceField.allCases.count
        let placeholders = (1...n + 1).map { "$\($0)" }.joined(separator: ", ")
        _ = try connection.prepared("nearby_insert", """
            INSERT INTO places (\(PostGISStore.placeColumns), accessmask, geom)
            VALUES (\(placeholders), ST_SetSRID(ST_MakePoint($\(1 + PlaceField.lon.rawValue), $\(1 + PlaceField.lat.rawValue)), 4326))
            """, values + [mask])
    }
}
