import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

@Suite struct PlaceCacheWriteTests {
    func place(_ id: String, modified: String?, title: String = "t", lat: Double = 37, lon: Double = 127) -> Place {
        Place(id: id, title: title, lat: lat, lon: lon, category: 12, modified: modified)
    }

    func cache(in dir: TempFolder, with places: [Place] = []) throws -> PlaceCache {
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        try cache.write { w in for p in places { try w.upsert(p) } }
        return cache
    }

    @Test func upsertFollowsModified() throws {
        let dir = try TempFolder()
        let cache = try cache(
            in: dir,
            with: [
                place("newer", modified: "20240101000000"), place("equal", modified: "20240101000000"),
                place("older", modified: "20240101000000"), place("same", modified: "20240101000000"),
                place("nilIn", modified: "20240101000000"), place("nilCached", modified: nil),
                place("nilBoth", modified: nil),
            ])
        let counts = try cache.write { w in
            try w.upsert(place("newer", modified: "20240102000000", title: "new"))
            try w.upsert(place("equal", modified: "20240101000000", title: "new"))
            try w.upsert(place("older", modified: "20231231235959", title: "new"))
            try w.upsert(place("same", modified: "20240101000000"))
            try w.upsert(place("nilIn", modified: nil, title: "new"))
            try w.upsert(place("nilCached", modified: "19000101000000", title: "new"))
            try w.upsert(place("nilBoth", modified: nil, title: "new"))
            try w.upsert(place("fresh", modified: nil, title: "new"))
            return w.counts
        }
        var expected = WriteCounts()
        expected.inserted = 1
        expected.updated = 4
        expected.unchanged = 1
        expected.older = 2
        #expect(counts == expected)
        for id in ["newer", "equal", "nilCached", "nilBoth", "fresh"] {
            #expect(try cache.place(id: id)?.title == "new")
        }
        for id in ["older", "same", "nilIn"] { #expect(try cache.place(id: id)?.title == "t") }
        #expect(try cache.count() == 8)
    }

    @Test func repeatedIDsInAFreshCacheFollowTheSameRules() throws {
        // An empty cache inserts without looking ids up first; a repeated id must still be an upsert.
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        let counts = try cache.write { w in
            try w.upsert(place("a", modified: "20240101000000"))
            try w.upsert(place("a", modified: "20240102000000", title: "newer", lat: 5, lon: 6))
            try w.upsert(place("a", modified: "20230101000000", title: "older"))
            try w.upsert(place("a", modified: "20240102000000", title: "newer", lat: 5, lon: 6))
            try w.upsert(place("b", modified: nil))
            return w.counts
        }
        var expected = WriteCounts()
        expected.inserted = 2
        expected.updated = 1
        expected.older = 1
        expected.unchanged = 1
        #expect(counts == expected)
        #expect(try cache.place(id: "a") == place("a", modified: "20240102000000", title: "newer", lat: 5, lon: 6))
        #expect(try cache.candidates(minLon: 6, minLat: 5, maxLon: 6, maxLat: 5).map(\.id) == ["a"])
        #expect(try cache.count() == 2 && rtreeCheck(cache) == "ok")
    }

    @Test func movedPlaceMovesInTheRTree() throws {
        let dir = try TempFolder()
        let cache = try cache(in: dir, with: [place("a", modified: "20240101000000", lat: 10, lon: 10)])
        try cache.write { w in try w.upsert(place("a", modified: "20240102000000", lat: -20, lon: 150)) }
        #expect(try cache.candidates(minLon: 9, minLat: 9, maxLon: 11, maxLat: 11).isEmpty)
        #expect(try cache.candidates(minLon: 150, minLat: -20, maxLon: 150, maxLat: -20).map(\.id) == ["a"])
        #expect(try cache.connection.integer("SELECT count(*) FROM places_rtree") == 1)
    }

    @Test func deleteRemovesRowAndBox() throws {
        let dir = try TempFolder()
        let cache = try cache(in: dir, with: [place("a", modified: nil), place("b", modified: nil)])
        let counts = try cache.write { w in
            try w.delete(id: "a")
            try w.delete(id: "missing")
            return w.counts
        }
        #expect(counts.deleted == 1 && counts.unchanged == 1)
        #expect(try cache.allPlaces().map(\.id) == ["b"])
        #expect(try cache.connection.integer("SELECT count(*) FROM places_rtree") == 1)
        #expect(try cache.candidates(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90).map(\.id) == ["b"])
        // Re-inserting a deleted id works.
        try cache.write { w in try w.upsert(place("a", modified: nil)) }
        #expect(try cache.count() == 2)
    }

    @Test func reusedRowidGetsTheNewBox() throws {
        // SQLite may give a new row the rowid of the last row deleted in the same write.
        let dir = try TempFolder()
        let cache = try cache(in: dir, with: SamplePlaces.random(100, seed: 8))
        let last = try #require(try cache.allPlaces().last)
        try cache.write { w in
            try w.delete(id: last.id)
            try w.upsert(place("newcomer", modified: nil, lat: -45, lon: -100))
        }
        #expect(try cache.candidates(minLon: -100, minLat: -45, maxLon: -100, maxLat: -45).map(\.id) == ["newcomer"])
        #expect(try cache.candidates(minLon: last.lon, minLat: last.lat, maxLon: last.lon, maxLat: last.lat).isEmpty)
        #expect(try rtreeCheck(cache) == "ok")
    }

    @Test func generationCountsChangingWritesOnly() throws {
        let dir = try TempFolder()
        let cache = try cache(in: dir, with: [place("a", modified: "20240101000000")])
        #expect(try cache.generation() == 1)
        try cache.write { w in try w.upsert(place("a", modified: "20240101000000")) }  // unchanged
        try cache.write { w in try w.upsert(place("a", modified: "20200101000000", title: "x")) }  // older
        #expect(try cache.generation() == 1)
        try cache.write { w in try w.delete(id: "a") }
        #expect(try cache.generation() == 2)
    }

    @Test func failedWriteChangesNothing() throws {
        struct Stop: Error {}
        let dir = try TempFolder()
        let before = SamplePlaces.random(100, seed: 3)
        let cache = try cache(in: dir, with: before)
        #expect(throws: Stop.self) {
            try cache.write { w in
                for p in SamplePlaces.random(300, seed: 4) {
                    try w.upsert(Place(id: p.id, title: "changed", lat: 1, lon: 1, category: 1))
                }
                try w.delete(id: "p5")
                throw Stop()
            }
        }
        #expect(try Set(cache.allPlaces()) == Set(before))
        #expect(try cache.generation() == 1)
        #expect(try cache.integrityCheck() == "ok")
        // The cache stays usable after the rollback.
        try cache.write { w in try w.delete(id: "p5") }
        #expect(try cache.count() == 99)
    }

    @Test func secondWriterIsBusyNotBlocked() throws {
        let dir = try TempFolder()
        let first = try cache(in: dir, with: [place("a", modified: nil)])
        let second = try PlaceCache(path: dir.file("c.sqlite"))
        try first.write { w in
            try w.upsert(place("b", modified: nil))
            let start = Date()
            #expect(throws: PlaceCacheError.busy(path: dir.file("c.sqlite"))) {
                try second.write { w in try w.upsert(place("c", modified: nil)) }
            }
            #expect(Date().timeIntervalSince(start) < 5)
        }
        #expect(try second.allPlaces().map(\.id).sorted() == ["a", "b"])
        #expect("\(PlaceCacheError.busy(path: "/x"))".contains("busy"))
    }

    @Test func readersSeeTheLastCommitDuringAWrite() throws {
        let dir = try TempFolder()
        let cache = try cache(in: dir, with: SamplePlaces.random(50, seed: 1))
        let reader = try PlaceCache(path: dir.file("c.sqlite"), readOnly: true)
        try cache.write { w in
            for p in SamplePlaces.random(500, seed: 2) {
                try w.upsert(Place(id: "new-" + p.id, title: "", lat: 0, lon: 0, category: 1))
            }
            try w.delete(id: "p1")
            // Both an open reader and one opened mid-write read the committed state, without waiting.
            let lateReader = try PlaceCache(path: dir.file("c.sqlite"), readOnly: true)
            for r in [reader, lateReader] {
                #expect(try r.count() == 50)
                #expect(try r.place(id: "p1") != nil)
                #expect(try r.generation() == 1)
            }
        }
        #expect(try reader.count() == 549)
        #expect(try reader.generation() == 2)
        // Reused statements do not pin an old snapshot.
        #expect(try reader.place(id: "p1") == nil)
        #expect(try reader.candidates(minLon: 0, minLat: 0, maxLon: 0, maxLat: 0).count == 500)
    }
}
