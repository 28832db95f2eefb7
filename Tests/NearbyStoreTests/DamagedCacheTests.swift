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
                try w.upsert(Place(id: "\(i)", title: "place \(i)", lat: 37.5, lon: 127, category: 12, image: "http://example.org/\(i).jpg"))
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
        ("UPDATE places SET modified = '2024' WHERE id = '2'", #"id "2": modified: "2024" is not a yyyyMMddHHmmss date-time"#),
    ])
    func damagedRowsAreReported(damage: String, problem: String) throws {
        let (cache, dir) = try Self.cache()
        defer { withExtendedLifetime(dir) {} }
        #expect(try cache.check() == CacheCheckReport(rows: 3))
        try cache.connection.execute(damage)
        let report = try cache.check()
        #expect(report.problems.first == problem)  // then, for a moved point, its R*Tree box
        if problem.contains("yyyyMMdd") { return }  // a rule of imports, checked by `check` only
        #expect(throws: PlaceCacheError.self) { try cache.allPlaces() }
        do { _ = try cache.allPlaces() } catch {
            #expect("\(error)" == "\(cache.path): the cache is damaged: \(problem); run nearby check, then rebuild the cache from its sources")
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
        let at = try #require((0...(bytes.count - marker.count)).first { bytes[$0..<$0 + marker.count].elementsEqual(marker) })
        bytes[at + 2] = 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reopened = try PlaceCache(path: path, readOnly: true)
        #expect(throws: PlaceCacheError.self) { try reopened.allPlaces() }
        #expect(try !reopened.check().ok)
        withExtendedLifetime(dir) {}
    }
}
