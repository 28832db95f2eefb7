import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// Hardening: a damaged cache is reported, never read as silently wrong places.
@Suite struct DamagedCacheTests {
    static func cache() throws -> (PlaceCache, TempFolder) {
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        try cache.write { w in
            for i in 1...3 {
                try w.upsert(
                    Place(
                        id: "\(i)", title: "place \(i)", lat: 37.5, lon: 127, category: 12,
                        image: "http://example.org/\(i).jpg"))
            }
        }
        return (cache, dir)
    }

    @Test(arguments: [
        ("UPDATE places SET lat = 'abc' WHERE id = '2'", #"id "2": lat: text where a number belongs"#),
        ("UPDATE places SET image = CAST(X'687474FF3A2F2F' AS TEXT) WHERE id = '2'", #"id "2": image: invalid UTF-8"#),
        ("UPDATE places SET lon = 9e999 WHERE id = '2'", #"id "2": lon: inf is outside [-180, 180]"#),
        ("UPDATE places SET lat = 91 WHERE id = '2'", #"id "2": lat: 91.0 is outside [-90, 90]"#),
        ("UPDATE places SET category = 1.5 WHERE id = '2'", #"id "2": category: a number where an integer belongs"#),
        ("UPDATE places SET title = X'41' WHERE id = '2'", #"id "2": title: a blob where text belongs"#),
        (
            "UPDATE places SET title = 'place 9' WHERE id = '2'",
            #"id "2": checksum: the stored values differ from those written (a changed byte)"#
        ),
        (
            "UPDATE places SET checksum = NULL WHERE id = '2'",
            #"id "2": checksum: NULL where the row's checksum belongs"#
        ),
    ])
    func damagedRowsAreReported(damage: String, problem: String) throws {
        let (cache, dir) = try Self.cache()
        defer { withExtendedLifetime(dir) {} }
        #expect(try cache.check() == CacheCheckReport(rows: 3))
        try cache.connection.execute(damage)
        let report = try cache.check()
        #expect(report.problems.first == problem)  // then, for a moved point, its R*Tree box
        #expect(throws: PlaceCacheError.self) { try cache.allPlaces() }
        do { _ = try cache.allPlaces() } catch {
            #expect(
                "\(error)"
                    == "\(cache.path): the cache is damaged: \(problem); run nearby check, then rebuild the cache from its sources"
            )
        }
        #expect(throws: PlaceCacheError.self) { try cache.forEachPlaceByID { _ in } }
    }

    @Test func rtreeBoxesAreChecked() throws {
        let (cache, dir) = try Self.cache()
        defer { withExtendedLifetime(dir) {} }
        try cache.connection.execute("UPDATE places_rtree SET minLon = minLon + 1, maxLon = maxLon + 1 WHERE rowid = 1")
        #expect(try cache.check().problems == [#"id "1": its point is outside its R*Tree box"#])
        try cache.connection.execute("DELETE FROM places_rtree WHERE rowid = 2")
        #expect(try cache.check().problems.contains(#"id "2": no R*Tree box"#))
    }

    /// A byte flipped inside a stored value on disk (no SQL involved).
    @Test func flippedByteOnDiskIsFoundNotPassedOn() throws {
        let (cache, dir) = try Self.cache()
        let path = cache.path
        _ = consume cache  // closes the connection: the WAL is checkpointed into the file
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let marker = Array("http://example.org/2".utf8)
        let at = try #require(
            (0...(bytes.count - marker.count)).first { bytes[$0..<$0 + marker.count].elementsEqual(marker) })
        bytes[at + 2] = 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reopened = try PlaceCache(path: path, readOnly: true)
        #expect(throws: PlaceCacheError.self) { try reopened.allPlaces() }
        #expect(try !reopened.check().ok)
        withExtendedLifetime(dir) {}
    }

    /// A byte flipped on disk inside a stored value that stays a valid value (a letter of a URL, the
    /// last bit of a coordinate, a bit of an integer) passes every type and range check. The row's
    /// checksum makes export, every engine's answer rows, the snapshot build and `check` refuse the
    /// row, naming the cache and the id; the other rows still read.
    @Test(arguments: [
        ("text", Array("http://example.org/2".utf8), 8, UInt8(0x01)),  // "example" → "eyample"
        ("real", withUnsafeBytes(of: 127.0827814.bitPattern.bigEndian, Array.init), 7, 0x01),  // last bit of lon
        ("integer", [0x5A, 0x3C, 0x7E, 0x19], 3, 0x02),  // category 0x5A3C7E19
    ])
    func flippedValueOnDiskIsRefusedEverywhere(kind: String, marker: [UInt8], offset: Int, mask: UInt8) throws {
        let dir = try TempFolder()
        let path = dir.file("c.sqlite")
        do {
            let cache = try PlaceCache(path: path)
            try cache.write { w in
                for i in 1...3 {
                    try w.upsert(
                        Place(
                            id: "\(i)", title: "place \(i)", lat: 37.5, lon: i == 2 ? 127.0827814 : 127,
                            category: i == 2 ? 0x5A3C_7E19 : 12, image: "http://example.org/\(i).jpg"))
                }
            }
            CacheSnapshot.update(cache)
        }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let found = (0...(bytes.count - marker.count)).filter { bytes[$0..<$0 + marker.count].elementsEqual(marker) }
        let at = try #require(found.count == 1 ? found[0] : nil, "\(kind): \(found.count) copies of the marker")
        bytes[at + offset] ^= mask
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let cache = try PlaceCache(path: path, readOnly: true)
        let refusal =
            "\(path): the cache is damaged: id \"2\": checksum: the stored values differ from those written (a changed byte); run nearby check, then rebuild the cache from its sources"
        func refuses(_ what: String, _ body: () throws -> Void) {
            #expect(throws: PlaceCacheError.self, "\(kind): \(what)") { try body() }
            do { try body() } catch { #expect("\(error)" == refusal, "\(kind): \(what)") }
        }
        let near = PlaceQuery(center: Coordinate(lat: 37.5, lon: 127.05), shape: .radius(10_000))
        refuses("export") { try cache.forEachPlaceByID { _ in } }
        refuses("memory engine") { _ = try cache.allPlaces() }
        refuses("SQLite engine") { _ = try SQLiteEngine(cache: cache, cursorKey: try cache.cursorKey()).run(near) }
        // The snapshot engine keeps its connection's read open: one connection per call.
        refuses("snapshot engine's rows") {
            _ = try CacheSnapshot.engine(for: PlaceCache(path: path, readOnly: true), report: { _ in }).run(near)
        }
        try FileManager.default.removeItem(atPath: CacheSnapshot.path(ofCache: path))
        refuses("snapshot build") {
            _ = try CacheSnapshot.engine(for: PlaceCache(path: path, readOnly: true), report: { _ in })
        }
        #expect(
            try cache.check().problems == [
                #"id "2": checksum: the stored values differ from those written (a changed byte)"#
            ])
        #expect(try cache.place(id: "1")?.title == "place 1")
    }

    /// A cache file in `dir` holding `places`, its connection closed (so another may change the schema).
    static func closedCache(_ places: [Place], in dir: TempFolder) throws -> String {
        let path = dir.file("c.sqlite")
        let cache = try PlaceCache(path: path)
        try cache.write { w in for p in places { try w.upsert(p) } }
        return path
    }

    /// A cache made before checksums (schema 3) gets them on open, from the rows as they are, and
    /// reads as before.
    @Test func olderCacheGetsChecksums() throws {
        let dir = try TempFolder()
        let places = SamplePlaces.random(20, seed: 7)
        let path = try Self.closedCache(places, in: dir)
        try SQLiteConnection(path: path, readOnly: false, create: false)
            .execute("ALTER TABLE places DROP COLUMN checksum; PRAGMA user_version=3")
        #expect(try PlaceCache(path: path, readOnly: true).allPlaces() == places)
        let cache = try PlaceCache(path: path)
        #expect(try cache.check() == CacheCheckReport(rows: 20))
        try cache.connection.execute("UPDATE places SET lat = lat + 1e-9 WHERE id = 'p3'")
        #expect(
            try cache.check().problems.first
                == #"id "p3": checksum: the stored values differ from those written (a changed byte)"#)
    }

    /// The fill runs in the schema step that adds the checksum, before later steps add their columns
    /// (as any later step may): it reads a column that does not exist yet as the NULL its step will leave.
    @Test func checksumFillBeforeALaterColumnExists() throws {
        let dir = try TempFolder()
        let places = SamplePlaces.random(10, seed: 3)
        let path = try Self.closedCache(places, in: dir)
        let db = try SQLiteConnection(path: path, readOnly: false, create: false)
        try db.execute("UPDATE places SET checksum = 0; ALTER TABLE places DROP COLUMN lDongSource")
        try RowChecksum.fill(db)
        try db.execute("ALTER TABLE places ADD COLUMN lDongSource TEXT")
        let cache = try PlaceCache(path: path, readOnly: true)
        #expect(try cache.allPlaces() == places)
        #expect(try cache.check().ok)
    }
}
