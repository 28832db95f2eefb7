import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// The cache's change history (`ChangeHistory.swift`): each write marks the rows it writes, a removed
/// place leaves a tombstone with what it was, a place stored again drops it, and a cache from before
/// the history gets it on open with its rows dated at their own `modified`.
@Suite struct ChangeHistoryTests {
    func changes(_ cache: PlaceCache, prefix: String = "", side: PlaceCache.ChangeSide = .both) throws
        -> [(id: String, removed: Bool, changed: String?)]
    {
        var out: [(String, Bool, String?)] = []
        try cache.forEachChange(prefix: prefix, side: side) { out.append(($0.place.id, $0.removed, $0.changed)) }
        return out
    }

    @Test func writesAreDatedAndRemovalsLeaveTombstones() throws {
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        let places = SamplePlaces.random(5, seed: 9)
        let today = String(PlaceCache.changeTime().prefix(8))
        try cache.write { w in for p in places { try w.upsert(p) } }
        let first = try changes(cache)
        #expect(first.map(\.id) == places.map(\.id) && first.allSatisfy { !$0.removed })
        #expect(first.allSatisfy { $0.changed?.hasPrefix(today) == true && $0.changed?.count == 14 })
        #expect(try changes(cache, prefix: "19990101").isEmpty)

        // A removal keeps the place's fields; an id that is not cached leaves nothing.
        let counts = try cache.write { w in
            try w.delete(id: places[1].id)
            try w.delete(id: "absent")
            return w.counts
        }
        #expect(counts.deleted == 1 && counts.unchanged == 1)
        var removed: [PlaceCache.Change] = []
        try cache.forEachChange(prefix: today, side: .removed) { removed.append($0) }
        #expect(removed.map(\.place) == [places[1]] && removed.allSatisfy(\.removed))
        #expect(try changes(cache, side: .cached).map(\.id) == places.map(\.id).filter { $0 != places[1].id })

        // Stored again, it is a cached place once more, not a removed one.
        try cache.write { w in try w.upsert(places[1]) }
        #expect(try changes(cache, side: .removed).isEmpty)
        #expect(try cache.count() == 5)
    }

    @Test func aCacheFromBeforeTheHistoryGetsItOnOpen() throws {
        let dir = try TempFolder()
        let path = dir.file("v5.sqlite")
        let place = Place(id: "1", title: "경복궁", lat: 37.58, lon: 126.98, category: 12, modified: "20240305093000")
        do {
            let cache = try PlaceCache(path: path)
            try cache.write { w in try w.upsert(place) }
        }
        try SQLiteConnection(path: path, readOnly: false, create: false)
            .execute("ALTER TABLE places DROP COLUMN changed; DROP TABLE removed_places; PRAGMA user_version=5")
        let cache = try PlaceCache(path: path)
        #expect(try cache.allPlaces() == [place])
        // Its row counts at its own modifiedtime until it is written again.
        #expect(try changes(cache, prefix: "202403").map(\.id) == ["1"])
        #expect(try changes(cache, prefix: "20240305").first?.changed == "20240305093000")
        try cache.write { w in try w.delete(id: "1") }
        #expect(try changes(cache).map(\.removed) == [true])
    }
}
