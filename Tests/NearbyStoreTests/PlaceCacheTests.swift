import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// A place with every field set, including an empty (not nil) string and an unknown accessibility tag.
func fullPlace(id: String = "full-1") -> Place {
    Place(
        id: id, title: "경복궁 (景福宮) é\u{301}", lat: 37.579617123456789, lon: 126.97704012345678,
        category: 12, created: "20100101090000", modified: "20240131235959", areacode: "1",
        sigungucode: "23", addr: "", tel: "02-3700-3900", image: "http://tong.visitkorea.or.kr/a.jpg",
        cat1: "A02", cat2: "A0201", cat3: "A02010100", eventStart: "20240501", eventEnd: "20240505",
        accessibility: ["elevator", "wheelchair", "x-unknown-tag"], lDongRegnCd: "11",
        lDongSignguCd: "110", lclsSystm1: "HS", lclsSystm2: "HS01", lclsSystm3: "HS010100")
}

func rtreeCheck(_ cache: PlaceCache) throws -> String? {
    let check = try cache.connection.prepare("SELECT rtreecheck('places_rtree')")
    _ = try check.step()
    return check.text(0)
}

@Suite struct PlaceCacheOpenTests {
    @Test func newCacheHasSchemaAndIsEmpty() throws {
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        #expect(try cache.count() == 0)
        #expect(try cache.allPlaces().isEmpty)
        #expect(try cache.generation() == 0)
        #expect(try cache.place(id: "x") == nil)
        #expect(try cache.connection.integer("PRAGMA application_id") == PlaceCache.applicationID)
        #expect(try cache.connection.integer("PRAGMA user_version") == PlaceCache.schemaVersion)
        let mode = try cache.connection.prepare("PRAGMA journal_mode")
        _ = try mode.step()
        #expect(mode.text(0) == "wal")
        // Reopening (also read-only) accepts the file.
        #expect(try PlaceCache(path: dir.file("c.sqlite"), readOnly: true).count() == 0)
    }

    @Test func missingFileReadOnlyNamesThePath() throws {
        let dir = try TempFolder()
        let path = dir.file("absent.sqlite")
        #expect { try PlaceCache(path: path, readOnly: true) } throws: { error in
            guard case .cannotOpen(path, _) = error as? PlaceCacheError else { return false }
            return "\(error)".hasPrefix(path + ": ")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func textFileIsNotACache() throws {
        let dir = try TempFolder()
        let path = dir.file("notes.txt")
        try Data(String(repeating: "not a database\n", count: 400).utf8).write(to: URL(fileURLWithPath: path))
        for readOnly in [false, true] {
            #expect { try PlaceCache(path: path, readOnly: readOnly) } throws: { error in
                guard case .notACache(path, _) = error as? PlaceCacheError else { return false }
                return "\(error)".contains(path)
            }
        }
    }

    @Test func foreignSQLiteFileIsRefusedAndUntouched() throws {
        let dir = try TempFolder()
        let path = dir.file("foreign.sqlite")
        do {
            let other = try SQLiteConnection(path: path, readOnly: false, create: true)
            try other.execute("CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES('keep me')")
        }
        #expect { try PlaceCache(path: path) } throws: { error in
            guard case .notACache(path, let reason) = error as? PlaceCacheError else { return false }
            return reason.contains("another application")
        }
        let other = try SQLiteConnection(path: path, readOnly: true, create: false)
        #expect(try other.integer("SELECT count(*) FROM sqlite_master") == 1)
    }

    @Test func newerSchemaVersionIsRefused() throws {
        let dir = try TempFolder()
        let path = dir.file("future.sqlite")
        _ = try PlaceCache(path: path)
        try SQLiteConnection(path: path, readOnly: false, create: false).execute("PRAGMA user_version=7")
        #expect(throws: PlaceCacheError.newerSchema(path: path, version: 7, supported: PlaceCache.schemaVersion)) {
            try PlaceCache(path: path)
        }
    }

    /// A schema-1 cache (no kakaoCategory column) is upgraded in place on open, read-only opens too;
    /// without write access the error says what to do.
    @Test func olderSchemaIsMigratedInPlace() throws {
        let dir = try TempFolder()
        let path = dir.file("v1.sqlite")
        let place = Place(id: "1", title: "경복궁", lat: 37.58, lon: 126.98, category: 12, cat3: "A02010100")
        do {
            let cache = try PlaceCache(path: path)
            try cache.write { w in try w.upsert(place) }
        }
        let v1 = try SQLiteConnection(path: path, readOnly: false, create: false)
        try v1.execute(Self.downToVersion1)
        #expect(try PlaceCache(path: path, readOnly: true).allPlaces() == [place])
        #expect(try v1.integer("PRAGMA user_version") == PlaceCache.schemaVersion)
        let kakao = Place(id: "kakao:9", title: "카페", lat: 37.5, lon: 127, category: 39, kakaoCategory: "CE7")
        let cache = try PlaceCache(path: path)
        try cache.write { w in try w.upsert(kakao) }
        #expect(try cache.allPlaces() == [place, kakao])

        try SQLiteConnection(path: path, readOnly: false, create: false)
            .execute(Self.downToVersion1)
        chmod(path, 0o444)
        defer { chmod(path, 0o644) }
        guard getuid() != 0 else { return }  // root writes anyway
        #expect { try PlaceCache(path: path, readOnly: true) } throws: { error in
            "\(error)".contains(
                "schema version 1 must be upgraded to \(PlaceCache.schemaVersion), which needs write access")
        }
    }

    /// What a schema-1 file lacks: schema 2's Kakao columns, schema 3's details and schema 4's checksums.
    static let downToVersion1 =
        "ALTER TABLE places DROP COLUMN kakaoCategory; ALTER TABLE places DROP COLUMN lDongSource; "
        + downToVersion2.replacingOccurrences(of: "PRAGMA user_version=2", with: "PRAGMA user_version=1")
    static let downToVersion2 =
        "ALTER TABLE places DROP COLUMN pet; ALTER TABLE places DROP COLUMN barrierFree; "
        + "ALTER TABLE places DROP COLUMN petInfo; DROP TABLE pending_details; ALTER TABLE places DROP COLUMN checksum; "
        + "PRAGMA user_version=2"

    /// A schema-2 cache gets the detail columns, the pending table and the visitor-group bits in
    /// `accessMask` (what the snapshot's `--accessible physical` reads), and keeps its places.
    @Test func schemaTwoGetsDetailsAndGroupBits() throws {
        let dir = try TempFolder()
        let path = dir.file("v2.sqlite")
        let place = Place(id: "1", title: "경복궁", lat: 37.58, lon: 126.98, category: 12, accessibility: ["guide-dog"])
        do {
            let cache = try PlaceCache(path: path)
            try cache.write { w in try w.upsert(place) }
        }
        let v2 = try SQLiteConnection(path: path, readOnly: false, create: false)
        try v2.execute("UPDATE places SET accessMask = \(Accessibility.mask(["guide-dog"])!); " + Self.downToVersion2)
        let cache = try PlaceCache(path: path)
        #expect(try cache.allPlaces() == [place])
        #expect(try v2.integer("SELECT accessMask FROM places") == Int64(Accessibility.mask(["guide-dog", "visual"])!))
        let waiting = PlaceDetail(id: "2", kind: .pet, fields: [.init(name: "acmpyTypeCd", text: "전구역 동반가능")])
        let counts = try cache.write { w in
            try w.detail(waiting)
            return w.counts
        }
        #expect(counts.pending == 1)
    }

    @Test func corruptedSchemaPageIsRefused() throws {
        let dir = try TempFolder()
        let path = dir.file("broken.sqlite")
        do {
            let cache = try PlaceCache(path: path)
            try cache.write { w in for p in SamplePlaces.random(50, seed: 1) { try w.upsert(p) } }
        }
        // Keep the 100-byte header, overwrite the rest of page 1 (the schema's b-tree page).
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 3996))
        try handle.close()
        #expect { try PlaceCache(path: path) } throws: { error in
            guard case .notACache(path, _) = error as? PlaceCacheError else { return false }
            return true
        }
    }
}

@Suite struct PlaceCacheReadTests {
    @Test func everyFieldRoundTripsExactly() throws {
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        let bare = Place(id: "bare", title: "", lat: -90, lon: 180, category: -3)
        let oneTag = Place(id: "tag", title: "t", lat: 0, lon: -180, category: 0, accessibility: ["parking"])
        try cache.write { w in for p in [fullPlace(), bare, oneTag] { try w.upsert(p) } }
        #expect(try cache.place(id: "full-1") == fullPlace())
        #expect(try cache.place(id: "bare") == bare)
        #expect(try cache.place(id: "tag") == oneTag)
        #expect(try cache.count() == 3)
        #expect(try Set(cache.allPlaces()) == [fullPlace(), bare, oneTag])
        // The known-tag bitmask, with the visitor groups the tags serve, is stored beside the exact text.
        let mask = try cache.connection.integer("SELECT accessMask FROM places WHERE id = 'full-1'")
        #expect(UInt32(mask) == Accessibility.mask(["elevator", "wheelchair", "physical", "elderly"]))
    }

    @Test func exportOrderIsByID() throws {
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        var rng = SplitMix64(seed: 3)
        let places = SamplePlaces.random(200, seed: 7).shuffled(using: &rng)
        try cache.write { w in for p in places { try w.upsert(p) } }
        var ids: [String] = []
        try cache.forEachPlaceByID { ids.append($0.id) }
        #expect(ids == places.map(\.id).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    @Test func candidatesContainEveryPlaceInTheBox() throws {
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        var places = SamplePlaces.random(3000, seed: 42)
        // Boundary points: poles, antimeridian, duplicates, values that are not Floats.
        let edges: [(Double, Double)] = [
            (90, 180), (-90, -180), (0, 0), (37.5665, 126.978), (37.5665, 126.978),
            (1e-300, -1e-300), (45.000000001, 179.99999999),
        ]
        for (i, (lat, lon)) in edges.enumerated() {
            places.append(Place(id: "edge\(i)", title: "", lat: lat, lon: lon, category: 12))
        }
        // The first write packs the tree (RTreeBulkLoader); the second changes a few rows through SQLite's
        // own R*Tree code on top of it: 40 new places and 40 moved ones.
        try cache.write { w in for p in places.dropLast(40) { try w.upsert(p) } }
        #expect(try rtreeCheck(cache) == "ok")
        try cache.write { w in
            for p in places.suffix(40) { try w.upsert(p) }
            for i in 0..<40 {
                let moved = Place(
                    id: "p\(i)", title: "moved", lat: -Double(i), lon: Double(i) * 4, category: 1,
                    modified: "20250101000000")
                places[i] = moved
                try w.upsert(moved)
            }
        }
        #expect(try rtreeCheck(cache) == "ok")
        #expect(try cache.connection.integer("SELECT count(*) FROM places_rtree") == places.count)
        var rng = SplitMix64(seed: 9)
        var boxes: [(Double, Double, Double, Double)] = places.suffix(edges.count).map {
            ($0.lon, $0.lat, $0.lon, $0.lat)
        }
        for _ in 0..<60 {
            let lon = Double.random(in: -180...180, using: &rng)
            let lat = Double.random(in: -90...90, using: &rng)
            let w = Double.random(in: 0...40, using: &rng)
            let h = Double.random(in: 0...20, using: &rng)
            boxes.append((lon, lat, min(lon + w, 180), min(lat + h, 90)))
        }
        for (minLon, minLat, maxLon, maxLat) in boxes {
            let found = try cache.candidates(minLon: minLon, minLat: minLat, maxLon: maxLon, maxLat: maxLat)
            let inside = places.filter { minLon...maxLon ~= $0.lon && minLat...maxLat ~= $0.lat }
            #expect(Set(inside.map(\.id)).isSubset(of: found.map(\.id)))
            // Extra candidates are only Float rounding away from the box.
            let slack = 1e-4
            #expect(
                found.allSatisfy {
                    (minLon - slack)...(maxLon + slack) ~= $0.lon && (minLat - slack)...(maxLat + slack) ~= $0.lat
                })
        }
    }

    @Test func floatBoundsStrictlyContainThePoint() {
        for x in [0.0, 1e-300, -1e-300, 37.5665, 126.978, 180, -180, 90, -90, 179.99999999, 0.1] {
            let (lower, upper) = PlaceCacheWriter.floatBounds(x)
            #expect(lower < x && x < upper)
            #expect(Double(Float(lower)) == lower && Double(Float(upper)) == upper)
        }
    }
}
