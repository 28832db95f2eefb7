import CSQLite
import NearbyCore

/// What `PlaceCache.check()` found: the rows read, and every problem (at most `limit` listed).
public struct CacheCheckReport: Sendable, Equatable {
    public var rows = 0
    public var problems: [String] = []
    /// Problems beyond the listed ones.
    public var unlisted = 0
    public var ok: Bool { problems.isEmpty }
}

extension PlaceCache {
    /// Checks the whole cache, for users who suspect damage (`nearby check`): SQLite's
    /// `integrity_check` (pages, indexes, the `UNIQUE` id), `rtreecheck` (the R*Tree's own structure),
    /// every row readable as a place (types, UTF-8, ranges, checksum: `place(from:)`) and valid as an import would
    /// have written it (`PlaceValidator`, normalisation included), and every row's point inside its
    /// R*Tree box, with no box left over; then every block of the index snapshot beside it, when there is
    /// one (`IndexSnapshot.verify`: header, section table and every block's checksum; a snapshot of an
    /// older format is not checked, the next query rebuilds it). Throws only when the file cannot be read at all.
    public func check(limit: Int = 100) throws -> CacheCheckReport {
        var report = CacheCheckReport()
        func problem(_ text: String) {
            if report.problems.count < limit {
                report.problems.append(MessageText.oneLine(text))
            } else {
                report.unlisted += 1
            }
        }
        do {
            let integrity = try integrityCheck()
            if integrity != "ok" {
                for line in integrity.split(separator: "\n") { problem("integrity_check: \(line)") }
            }
            let rtree = try connection.prepare("SELECT rtreecheck('places_rtree')")
            if try rtree.step(), let text = rtree.text(0), text != "ok" {
                for line in text.split(separator: "\n") { problem("rtreecheck: \(line)") }
            }
            let rows = try connection.prepare("SELECT \(Self.rowColumns) FROM places")
            while try rows.step() {
                report.rows += 1
                var place: Place
                do { place = try Self.place(from: rows) } catch {
                    problem("\(Self.rowName(rows)): \(error.field): \(error.reason)")
                    continue
                }
                let stored = place
                do { try PlaceValidator.validate(&place) } catch {
                    problem("\(Self.rowName(rows)): \(error.field): \(error.reason)")
                    continue
                }
                if place != stored {
                    problem(
                        "\(Self.rowName(rows)): a field is not in the form an import writes (NFC text, sorted tags)")
                }
            }
            let boxes = try connection.prepare(
                """
                SELECT p.id, r.rowid IS NULL FROM places p LEFT JOIN places_rtree r USING (rowid)
                WHERE r.rowid IS NULL OR NOT (r.minLon <= p.lon AND p.lon <= r.maxLon AND r.minLat <= p.lat AND p.lat <= r.maxLat)
                """)
            while try boxes.step() {
                let name = boxes.validText(0).map { "id " + MessageText.quoted($0) } ?? "a row"
                problem(boxes.int64(1) == 1 ? "\(name): no R*Tree box" : "\(name): its point is outside its R*Tree box")
            }
            let orphans = try connection.integer(
                "SELECT count(*) FROM places_rtree WHERE rowid NOT IN (SELECT rowid FROM places)")
            if orphans > 0 { problem("places_rtree: \(orphans) boxes of no row") }
            let meta = try connection.prepare("SELECT typeof(value) FROM meta WHERE key = 'generation'")
            if try !meta.step() || meta.text(0) != "integer" { problem("meta: generation missing or not an integer") }
        } catch let error as SQLiteError {
            throw PlaceCacheError(error, path: path)
        }
        let snapshot = CacheSnapshot.path(ofCache: path)
        switch IndexSnapshot.verify(snapshot) {
        case nil, .missing?, .version?: break
        case let damage?: problem("index snapshot \(snapshot): \(damage); the next query rebuilds it")
        }
        return report
    }
}
