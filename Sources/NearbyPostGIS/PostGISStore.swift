import Foundation
import NearbyCore
import NearbyStore

/// Nearby's places in a PostgreSQL database with PostGIS: the shared source of truth behind several
/// `nearby serve` processes (docs/scale-out.md). The schema is the SQL files in `Migrations/`
/// (`001_places.sql` documents it); `nearby_meta.schemaVersion` says which of them were applied.
///
/// A writer (`nearby import --pg`) creates or migrates the schema; readers only check it, and refuse a
/// database without it or with a newer one. A `PostGISStore` is one connection: use it from one thread
/// at a time.
public final class PostGISStore {
    /// The schema version this code reads and writes: the number of the last file in `Migrations/`.
    public static let schemaVersion: Int64 = 9
    /// Key of the advisory lock a writer holds for its whole transaction ("NRBY", as the SQLite
    /// cache's application id): a second concurrent writer fails at once with `busy`.
    static let writerLock: Int64 = 0x4E52_4259

    /// The URL as messages show it: without a password.
    public let name: String
    let connection: PGConnection

    /// Connects to `url`. Unless `readOnly`, creates the schema in a database without one (PostGIS must
    /// be installed; creating the extension needs a superuser or an existing `postgis` extension) and
    /// applies newer migrations.
    public init(url: String, readOnly: Bool = true) throws {
        name = Self.redacted(url)
        do {
            connection = try PGConnection(url: url)
        } catch let error as PGError {
            throw PostGISError(name: name, message: error.message)
        }
        try wrap {
            let version = try schemaVersionInDatabase()
            if version > Self.schemaVersion {
                throw PostGISError(
                    name: name,
                    message: "the database has Nearby schema version \(version), newer than "
                        + "this nearby understands (\(Self.schemaVersion)); upgrade nearby")
            }
            if version < Self.schemaVersion {
                if readOnly {
                    throw PostGISError(
                        name: name,
                        message: version == 0
                            ? "no Nearby schema in this database (nearby import --pg URL FILES creates it)"
                            : "the database has Nearby schema version \(version); run nearby import --pg to migrate it")
                }
                try migrate()
            }
        }
    }

    /// 0 when the database has no `nearby_meta` table.
    private func schemaVersionInDatabase() throws -> Int64 {
        guard try connection.query("SELECT to_regclass('nearby_meta') IS NOT NULL").text(0, 0) == "t" else { return 0 }
        let r = try connection.query("SELECT coalesce((SELECT value FROM nearby_meta WHERE key = 'schemaVersion'), -1)")
        // A nearby_meta without a version is not ours.
        guard let v = r.int64(0, 0), v >= 0 else {
            throw PostGISError(
                name: name, message: "a table nearby_meta without a schemaVersion: not a Nearby database")
        }
        return v
    }

    /// The migration files, by number: `NNN_name.sql`.
    static func migrations() throws -> [(version: Int64, sql: String)] {
        guard let folder = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw PGError(message: "the Migrations folder is missing from nearby's resources")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }
            .sorted()
        return try names.map { name in
            guard let n = Int64(name.prefix { $0.isNumber }) else {
                throw PGError(message: "migration \(name) has no number")
            }
            return (n, try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
        }
    }

    /// Applies the migrations newer than the database's version, in one transaction, under the writer
    /// lock (two first imports at once: the second waits, then finds the schema made).
    private func migrate() throws {
        try connection.execute("BEGIN")
        do {
            try connection.execute("SELECT pg_advisory_xact_lock(\(Self.writerLock))")
            let current = try schemaVersionInDatabase()
            for m in try Self.migrations() where m.version > current {
                try connection.execute(m.sql)
                if m.version == 4 { try fillDerivedColumns() }
                try connection.execute(
                    """
                    INSERT INTO nearby_meta VALUES ('schemaVersion', \(m.version))
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value
                    """)
            }
            if current == 4 || current == 5 { try fillHanTitleKeys() }
            let key = PageCursor.Key.random()
            try connection.execute(
                """
                INSERT INTO nearby_meta VALUES ('cursorKey0', \(Int64(bitPattern: key.k0))), ('cursorKey1', \(Int64(bitPattern: key.k1)))
                ON CONFLICT (key) DO NOTHING
                """)
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// The columns the writer computes from a place's fields, with their types
    /// (`004_filter_indexes.sql` says what each is).
    static let derived = [
        ("accessmask", "integer"), ("titlekey", "bytea"), ("createdts", "bigint"), ("modifiedts", "bigint"),
        ("eventstartday", "integer"), ("eventendday", "integer"), ("titlefold", "text"),
        ("idkey", "text COLLATE \"C\""),
    ]
    static let derivedColumns = derived.map(\.0).joined(separator: ", ")

    /// The values of `derivedColumns` for `p`, as text (bytea in hex form): `appendDerived`'s values.
    static func derivedValues(_ p: Place) -> [String] {
        var fold: [UInt8] = []
        var idKey: [UInt8] = []
        appendUTF8(KeywordMatcher.fold(p.title), to: &fold)
        appendIDKey(p.id, to: &idKey)
        return [
            String(Accessibility.placeMask(p.accessibility)), hexBytea(KoreanCollation.sortKey(p.title)),
            String(PlaceTable.timestamp(p.created)), String(PlaceTable.timestamp(p.modified)),
            String(PlaceTable.day(p.eventStart)), String(PlaceTable.day(p.eventEnd ?? p.eventStart)),
            String(decoding: fold, as: UTF8.self), String(decoding: idKey, as: UTF8.self),
        ]
    }

    /// The values of `derivedColumns` for `p` appended to a row of a binary COPY (8 values), written
    /// straight into its buffer. The access mask's bits are below 2^31 (`Accessibility.placeMask`), so
    /// it fits the integer column.
    static func appendDerived(_ p: Place, to copy: inout PGBinaryCopy) {
        copy.int32(Int32(bitPattern: Accessibility.placeMask(p.accessibility)))
        copy.value(KoreanCollation.sortKey(p.title))
        copy.int64(PlaceTable.timestamp(p.created))
        copy.int64(PlaceTable.timestamp(p.modified))
        copy.int32(PlaceTable.day(p.eventStart))
        copy.int32(PlaceTable.day(p.eventEnd ?? p.eventStart))
        let fold = KeywordMatcher.fold(p.title)
        copy.value { appendUTF8(fold, to: &$0) }
        copy.value { appendIDKey(p.id, to: &$0) }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `\x` and the bytes in hex: bytea's text input.
    static func hexBytea(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        out.reserveCapacity(2 + 2 * bytes.count)
        for b in bytes {
            out.append(hexDigits[Int(b >> 4)])
            out.append(hexDigits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// UTF-16 `units` as UTF-8, a lone surrogate as U+FFFD (as `String(decoding:as:)` repairs it), without
    /// a `String` in between (making one would be a tenth of the import's client time).
    static func appendUTF8(_ units: [UInt16], to out: inout [UInt8]) {
        var i = 0
        while i < units.count {
            var v = UInt32(units[i])
            i += 1
            if v & 0xF800 == 0xD800 {
                if v < 0xDC00, i < units.count, units[i] & 0xFC00 == 0xDC00 {
                    v = 0x10000 + ((v - 0xD800) << 10) + (UInt32(units[i]) - 0xDC00)
                    i += 1
                } else {
                    v = 0xFFFD
                }
            }
            switch v {
            case ..<0x80: out.append(UInt8(v))
            case ..<0x800:
                out.append(UInt8(0xC0 | v >> 6))
                out.append(UInt8(0x80 | v & 0x3F))
            case ..<0x10000:
                out.append(UInt8(0xE0 | v >> 12))
                out.append(UInt8(0x80 | v >> 6 & 0x3F))
                out.append(UInt8(0x80 | v & 0x3F))
            default:
                out.append(UInt8(0xF0 | v >> 18))
                out.append(UInt8(0x80 | v >> 12 & 0x3F))
                out.append(UInt8(0x80 | v >> 6 & 0x3F))
                out.append(UInt8(0x80 | v & 0x3F))
            }
        }
    }

    /// The id order of `PlaceTable.idPrecedes` as text compared byte by byte (`004_filter_indexes.sql`):
    /// 'A', the number of digits without leading zeros in ten digits, those digits, ' ', the id, for an
    /// id of ASCII digits; 'B' and the id for any other.
    static func appendIDKey(_ id: String, to out: inout [UInt8]) {
        let utf8 = id.utf8
        guard !utf8.isEmpty, utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            out.append(UInt8(ascii: "B"))
            out.append(contentsOf: utf8)
            return
        }
        let digits = utf8.drop { $0 == UInt8(ascii: "0") }
        out.append(UInt8(ascii: "A"))
        var length = digits.count
        var place = 1_000_000_000
        while place > 0 {
            out.append(UInt8(48 + length / place))
            length %= place
            place /= 10
        }
        out.append(contentsOf: digits)
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: utf8)
    }

    /// Computes `derivedColumns` for the rows a schema older than 4 holds, row by row (once per
    /// database, in the migration's transaction).
    private func fillDerivedColumns() throws {
        let r = try connection.query("SELECT \(Self.placeColumns) FROM places")
        let set = Self.derived.enumerated().map { "\($0.element.0) = $\($0.offset + 2)" }.joined(separator: ", ")
        for row in 0..<r.count {
            let p = try place(r, row)
            _ = try connection.prepared(
                "nearby_fill", "UPDATE places SET \(set) WHERE id = $1", [p.id] + Self.derivedValues(p))
        }
    }

    /// Recomputes `titlekey` for the titles with a Han code point, the ones whose key changed when Hanja
    /// began to sort by their reading (`005_hanja_title_keys.sql`) and the other Han by radical and
    /// stroke (`006_han_order_title_keys.sql`): once for a database of schema 4 or 5 (from 3, migration
    /// 4 fills every key).
    private func fillHanTitleKeys() throws {
        let r = try connection.query(
            """
            SELECT id, title FROM places
            WHERE title ~ '[\u{3400}-\u{4DBF}\u{4E00}-\u{9FFF}\u{F900}-\u{FAFF}\u{20000}-\u{3FFFF}]'
            """)
        for row in 0..<r.count {
            let id = r.text(row, 0) ?? ""
            let title = r.text(row, 1) ?? ""
            _ = try connection.prepared(
                "nearby_hanja", "UPDATE places SET titlekey = $2 WHERE id = $1",
                [id, Self.hexBytea(KoreanCollation.sortKey(title))])
        }
    }

    /// Runs `body`, turning libpq's errors into `PostGISError`s naming the database.
    func wrap<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as PGError {
            throw PostGISError(name: name, message: error.message)
        }
    }

    /// `postgresql://user:secret@host/db` → `postgresql://user@host/db`; `password=…` in a key/value
    /// string → `password=…`.
    static func redacted(_ url: String) -> String {
        if let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@"),
            let colon = url[scheme.upperBound..<at].firstIndex(of: ":")
        {
            return String(url[..<colon] + url[at...])
        }
        return url.split(separator: " ").map { $0.hasPrefix("password=") ? "password=…" : String($0) }.joined(
            separator: " ")
    }

    // MARK: Reading

    /// The columns `place(from:)` decodes: every `PlaceField`, in its order (lower-case names).
    static let placeColumns = PlaceField.allCases.map { $0.name.lowercased() }.joined(separator: ", ")

    /// The place in row `row` of `r`, whose columns from `first` on are `placeColumns`.
    func place(_ r: PGResult, _ row: Int, first c: Int = 0) throws -> Place {
        func text(_ field: PlaceField) -> String? { r.text(row, c + field.rawValue) }
        guard let id = text(.id), let lat = r.double(row, c + PlaceField.lat.rawValue),
            let lon = r.double(row, c + PlaceField.lon.rawValue),
            let category = r.int64(row, c + PlaceField.category.rawValue).flatMap({ Int(exactly: $0) })
        else {
            throw PostGISError(name: name, message: "a row of places has no id, lat, lon or category")
        }
        return Place(
            id: id, title: text(.title) ?? "", lat: lat, lon: lon, category: category,
            created: text(.created), modified: text(.modified), areacode: text(.areacode),
            sigungucode: text(.sigungucode), addr: text(.addr), tel: text(.tel), image: text(.image),
            cat1: text(.cat1), cat2: text(.cat2), cat3: text(.cat3), eventStart: text(.eventStart),
            eventEnd: text(.eventEnd), accessibility: text(.accessibility).map(Self.accessibilityTags) ?? [],
            lDongRegnCd: text(.lDongRegnCd), lDongSignguCd: text(.lDongSignguCd),
            lclsSystm1: text(.lclsSystm1), lclsSystm2: text(.lclsSystm2), lclsSystm3: text(.lclsSystm3),
            kakaoCategory: text(.kakaoCategory), lDongSource: text(.lDongSource),
            pet: text(.pet), barrierFree: text(.barrierFree), petInfo: text(.petInfo))
    }

    /// As the SQLite cache stores them: joined with ",", NULL when empty.
    static func accessibilityText(_ tags: [String]) -> String? { tags.isEmpty ? nil : tags.joined(separator: ",") }
    static func accessibilityTags(_ text: String) -> [String] {
        text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    /// Bumped by every committed write that changed at least one row.
    public func generation() throws -> Int64 {
        try wrap { try connection.query("SELECT value FROM nearby_meta WHERE key = 'generation'").int64(0, 0) ?? 0 }
    }

    /// The key that signs this database's page cursors (written with the schema).
    public func cursorKey() throws -> PageCursor.Key {
        try wrap {
            let r = try connection.query(
                """
                SELECT (SELECT value FROM nearby_meta WHERE key = 'cursorKey0'), (SELECT value FROM nearby_meta WHERE key = 'cursorKey1')
                """)
            guard let k0 = r.int64(0, 0), let k1 = r.int64(0, 1) else { return .unkeyed }
            return PageCursor.Key(k0: UInt64(bitPattern: k0), k1: UInt64(bitPattern: k1))
        }
    }

    public func count() throws -> Int {
        try wrap { Int(try connection.query("SELECT count(*) FROM places").int64(0, 0) ?? 0) }
    }

    public func place(id: String) throws -> Place? {
        try wrap {
            let r = try connection.prepared(
                "nearby_place", "SELECT \(Self.placeColumns) FROM places WHERE id = $1", [id])
            return r.count == 0 ? nil : try place(r, 0)
        }
    }

    /// Calls `body` with every place in id order (byte order of the UTF-8 ids), streaming through a
    /// server-side cursor 10,000 rows at a time: the export path.
    public func forEachPlaceByID(_ body: (Place) throws -> Void) throws {
        try wrap {
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            defer { try? connection.execute("COMMIT") }
            try connection.execute(
                "DECLARE nearby_export NO SCROLL CURSOR FOR SELECT \(Self.placeColumns) FROM places ORDER BY id")
            while true {
                let r = try connection.query("FETCH 10000 FROM nearby_export")
                if r.count == 0 { break }
                for row in 0..<r.count { try body(try place(r, row)) }
            }
        }
    }

    /// A prefilter pushed down to PostGIS: places whose point is in one of `boxes` (`&&` on the GiST
    /// index on geom; no boxes: anywhere), within `within.metres` on PostGIS's sphere of
    /// `within.center` when set, and passing `tests` (`PostGISFilter`).
    struct Prefilter {
        var boxes: [GeoBox] = []
        var within: (center: Coordinate, metres: Double)? = nil
        var tests: [ColumnTest] = []

        /// The WHERE clause (empty when nothing narrows), its parameters numbered from $`first`, and
        /// a tag naming the set of conditions for a prepared statement (an `OR` of two identical
        /// boxes would scan the index twice, so each shape gets its own statement).
        func sql(parametersFrom first: Int = 1) -> (clause: String, tag: String, parameters: [String?]) {
            var tests = self.tests
            if !boxes.isEmpty {
                let any = boxes.indices.map { i in
                    "geom && ST_MakeEnvelope(?\(4 * i), ?\(4 * i + 1), ?\(4 * i + 2), ?\(4 * i + 3), 4326)"
                }.joined(separator: " OR ")
                tests.insert(
                    ColumnTest(
                        tag: "b\(boxes.count)", sql: "(\(any))",
                        values: boxes.flatMap { b in
                            [b.minLon, b.minLat, b.maxLon, b.maxLat].map { "\($0)" }
                        }), at: 0)
            }
            if let w = within {
                tests.insert(
                    ColumnTest(
                        tag: "w",
                        sql:
                            "ST_DWithin(geom::geography, ST_SetSRID(ST_MakePoint(?0, ?1), 4326)::geography, ?2, false)",
                        values: ["\(w.center.lon)", "\(w.center.lat)", "\(w.metres)"]), at: boxes.isEmpty ? 0 : 1)
            }
            var conditions: [String] = []
            var tag = ""
            var parameters: [String?] = []
            for t in tests {
                tag += "_" + t.tag
                var sql = t.sql
                // Downwards, so ?1 is not taken for the start of ?10.
                for i in t.values.indices.reversed() {
                    sql = sql.replacingOccurrences(of: "?\(i)", with: "$\(first + parameters.count + i)")
                }
                parameters += t.values.map { $0 }
                conditions.append(sql)
            }
            return (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "), tag, parameters)
        }
    }

    /// The places passing a prefilter, read with the generation in one statement (one snapshot, so an
    /// import committing meanwhile cannot pair new rows with an old generation): their ids and points,
    /// and with `full` their whole rows.
    struct Points {
        var generation: Int64
        var ids: [String] = [], lats: [Double] = [], lons: [Double] = []
        var places: [Place] = []
    }

    func points(_ prefilter: Prefilter, full: Bool) throws -> Points {
        try wrap {
            let (clause, tag, parameters) = prefilter.sql()
            let r = try connection.prepared(
                (full ? "nearby_places" : "nearby_points") + tag,
                """
                SELECT g.value, p.* FROM (SELECT value FROM nearby_meta WHERE key = 'generation') g(value) LEFT JOIN LATERAL (
                  SELECT \(full ? Self.placeColumns : "id, lat, lon") FROM places\(clause)) p ON true
                """, parameters)
            var points = Points(generation: r.int64(0, 0) ?? 0)
            points.ids.reserveCapacity(r.count)
            points.lats.reserveCapacity(r.count)
            points.lons.reserveCapacity(r.count)
            for row in 0..<r.count where !r.isNull(row, 1) {
                if full {
                    let p = try place(r, row, first: 1)
                    points.ids.append(p.id)
                    points.lats.append(p.lat)
                    points.lons.append(p.lon)
                    points.places.append(p)
                    continue
                }
                guard let id = r.text(row, 1), let lat = r.double(row, 2), let lon = r.double(row, 3) else {
                    throw PostGISError(name: name, message: "a row of places has no id, lat or lon")
                }
                points.ids.append(id)
                points.lats.append(lat)
                points.lons.append(lon)
            }
            return points
        }
    }

    /// A text[] literal: every element quoted, " and \ escaped (byte by byte: Foundation's
    /// `replacingOccurrences` would be a sixth of the engine's own time per query).
    static func arrayLiteral<S: Sequence<String>>(_ items: S) -> String {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for item in items {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            for b in item.utf8 {
                if b == UInt8(ascii: "\\") || b == UInt8(ascii: "\"") { out.append(UInt8(ascii: "\\")) }
                out.append(b)
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The points of the `k` places nearest `c` in PostGIS's planar order on lon/lat (`<->`, a KNN
    /// search of the GiST index on geom): a guess at the k nearest, to size a search circle.
    func nearestPoints(_ k: Int, to c: Coordinate) throws -> [Coordinate] {
        try wrap {
            let r = try connection.prepared(
                "nearby_knn",
                """
                SELECT lat, lon FROM places ORDER BY geom <-> ST_SetSRID(ST_MakePoint($1, $2), 4326) LIMIT $3
                """, ["\(c.lon)", "\(c.lat)", "\(k)"])
            return (0..<r.count).compactMap { row in
                r.double(row, 0).flatMap { lat in r.double(row, 1).map { Coordinate(lat: lat, lon: $0) } }
            }
        }
    }

    /// The places with `ids` (in no particular order), with the generation, in one statement.
    func places(ids: [String]) throws -> (generation: Int64, places: [Place]) {
        try wrap {
            let r = try connection.prepared(
                "nearby_page",
                """
                SELECT g.value, p.* FROM (SELECT value FROM nearby_meta WHERE key = 'generation') g(value) LEFT JOIN LATERAL (
                  SELECT \(Self.placeColumns) FROM places WHERE id = ANY($1::text[])) p ON true
                """, [Self.arrayLiteral(ids)])
            var places: [Place] = []
            for row in 0..<r.count where !r.isNull(row, 1) { places.append(try place(r, row, first: 1)) }
            return (r.int64(0, 0) ?? 0, places)
        }
    }
}

/// Why the database could not be reached, read or written. Every message starts with the database.
public struct PostGISError: NearbyError, Equatable {
    public var name: String
    public var message: String
    /// Another import is writing.
    public var isBusy = false
    public var description: String { "\(name): \(message)" }
    /// `.unavailable` while another import is writing, else `.internal`.
    public var kind: ErrorKind { isBusy ? .unavailable : .internal }
}
