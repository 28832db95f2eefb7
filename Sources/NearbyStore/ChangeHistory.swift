import Foundation
import NearbyCore

/// What a cache keeps of its own changes, so another server can follow it as Nearby follows TourAPI
/// (`nearby serve`'s `areaBasedSyncList2`):
///
/// - `places.changed`: when the cache last wrote the row (inserted, replaced, a detail merged), Korean
///   time `yyyyMMddHHmmss` as TourAPI writes `modifiedtime`; one time for a whole write transaction.
///   NULL for rows written before the cache kept it (schema version 5 and older): those count as
///   changed at their own `modified`.
/// - `removed_places(id, changed, place)`: a tombstone for each place a write removed (a sync-list
///   item with `showflag` 0, a renamed place's old id), with the time and the removed row as its place
///   JSON (`PlaceJSON`), so a follower filtering by content type or area still sees it. A place stored
///   again under the same id drops its tombstone.
///
/// Both are written by `PlaceCacheWriter`, the one write path of every import and sync.
extension PlaceCache {
    static let removedPlacesSQL =
        "CREATE TABLE removed_places(id TEXT PRIMARY KEY, changed TEXT NOT NULL, place TEXT NOT NULL) WITHOUT ROWID"

    /// The time a write marks its rows with: now in Korea (UTC+9, no daylight saving), `yyyyMMddHHmmss`.
    public static func changeTime(_ date: Date = Date()) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down)) + 9 * 3600
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(
            format: "%04d%02d%02d%02d%02d%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    /// One entry of the change history: a cached place or a removed one, and when the cache changed it.
    public struct Change: Sendable {
        public var place: Place
        /// `yyyyMMddHHmmss` (Korean time), or the place's `modified` for a row older than the history.
        public var changed: String?
        public var removed: Bool
    }

    /// Which changes `forEachChange` reads: cached places, removed ones, or both.
    public enum ChangeSide: Sendable { case cached, removed, both }

    /// Calls `body` with every change whose time starts with `prefix` (every change when it is empty):
    /// the cached places in the order they were first stored (rowid), then the removed places in id
    /// order. Streams: a cache of any size is read a row at a time.
    public func forEachChange(prefix: String, side: ChangeSide = .both, _ body: (Change) throws -> Void) throws {
        do {
            if side != .removed {
                let s = try connection.prepare(
                    """
                    SELECT \(Self.rowColumns), coalesce(changed, modified) FROM places
                    WHERE ?1 = '' OR substr(coalesce(changed, modified), 1, length(?1)) = ?1 ORDER BY rowid
                    """)
                try s.bind(1, prefix)
                let timeColumn = Int32(Self.checkedColumns.count + 1)
                while try s.step() {
                    let place: Place
                    do { place = try Self.place(from: s) } catch {
                        throw PlaceCacheError.damaged(
                            path: path, row: Self.rowName(s), field: error.field, reason: error.reason)
                    }
                    try body(Change(place: place, changed: s.text(timeColumn), removed: false))
                }
            }
            if side != .cached {
                let s = try connection.prepare(
                    """
                    SELECT id, changed, place FROM removed_places
                    WHERE ?1 = '' OR substr(changed, 1, length(?1)) = ?1 ORDER BY id
                    """)
                try s.bind(1, prefix)
                while try s.step() {
                    let id = s.text(0) ?? ""
                    let json = s.text(2) ?? ""
                    let place: Place
                    do { place = try PlaceJSON.decode(Array(json.utf8)) } catch {
                        throw PlaceCacheError.damaged(
                            path: path, row: "removed id " + MessageText.quoted(id), field: "place",
                            reason: error.description)
                    }
                    try body(Change(place: place, changed: s.text(1), removed: true))
                }
            }
        } catch let error as SQLiteError { throw PlaceCacheError(error, path: path) }
    }
}
