import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// The personal tables: what imports leave alone, the history rules, restore's merge and replace, and
/// personal queries answered alike by the snapshot, memory and SQLite engines of one cache.
@Suite struct PersonalStoreTests {
    @Test func importsKeepTheDataAndAGonePlaceGetsItBack() throws {
        var g = QuerySampler(seed: 3)
        let places = g.places(50)
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        try cache.write { w in for p in places { try w.upsert(p) } }
        let id = places[7].id
        let generation = try cache.generation()
        try cache.addBookmarks(user: "me", places: [id], list: "default", at: 10)
        try cache.setRating(user: "me", place: id, stars: 4.5, at: 11)
        try cache.setMemo(user: "me", place: id, text: "메모", at: 12)
        try cache.addVisit(user: "me", place: id, at: 13, now: 13)
        #expect(try cache.generation() == generation, "personal writes leave the places' generation")
        let before = try cache.personalRecords(user: "me")
        #expect(before.count == 4)
        // A re-import (changed places too) and a deletion keep every item.
        try cache.write { w in
            for var p in places {
                p.title += "!"
                try w.upsert(p)
            }
            try w.delete(id: id)
        }
        #expect(try cache.personalRecords(user: "me") == before)
        #expect(try cache.place(id: id) == nil)
        var q = try QueryParameters.parse([("bookmarked", "true")])
        q.personalData = PersonalDataRef(try cache.personalData(user: "me"))
        #expect(try SQLiteEngine(cache: cache).run(q).places.isEmpty)
        try cache.write { w in try w.upsert(places[7]) }
        #expect(try SQLiteEngine(cache: cache).run(q).places.map(\.id) == [id])
        // Memo: one per place, created kept, updated moved.
        try cache.setMemo(user: "me", place: id, text: "둘", at: 20)
        #expect(try cache.personalData(user: "me").items[id]?.memo == .init(text: "둘", created: 12, updated: 20))
        try cache.setRating(user: "me", place: id, stars: nil, at: 21)
        #expect(try cache.personalData(user: "me").items[id]?.rating == nil)
        #expect(try cache.personalRecords(user: "ana").isEmpty)
    }

    /// The rules every personal store keeps (`PersonalFixtures`, which the PostGIS store keeps too).
    @Test func historyRestoreUsersAndTokens() throws {
        let dir = try TempFolder()
        for rules in [PersonalFixtures.historyRules, PersonalFixtures.restoreRules] {
            let cache = try PlaceCache(path: dir.file("c\(UUID()).sqlite"))
            #expect(try rules(cache) == [])
        }
        let cache = try PlaceCache(path: dir.file("users.sqlite"))
        let observer = try PlaceCache(path: dir.file("users.sqlite"), readOnly: true)
        #expect(try PersonalFixtures.userRules(cache, observer: observer) == [])
    }

    @Test(arguments: [DistanceModel.haversine, .projected(.korea2000)])
    func theCacheEnginesAnswerPersonalQueriesAlike(model: DistanceModel) throws {
        var g = QuerySampler(seed: 808)
        let dir = try TempFolder()
        let places = g.places(1000)
        let users = [("me", 60), ("ana", 600), ("bo", 2500)].map {
            g.personalData(user: $0.0, places: places, items: $0.1)
        }
        let writable = try PlaceCache(path: dir.file("c.sqlite"))
        try writable.write { w in for p in places { try w.upsert(p) } }
        CacheSnapshot.update(writable) { Issue.record("update: \($0)") }
        for u in users {
            try writable.restorePersonal(users: [], items: [u.user: PersonalFixtures.records(u)], replace: true)
        }
        let cache = try PlaceCache(path: dir.file("c.sqlite"), readOnly: true)
        let snapshot = try CacheSnapshot.engine(for: cache) { Issue.record("snapshot: \($0)") }
        let key = try cache.cursorKey()
        let memory = MemoryEngine(places: try cache.allPlaces(), generation: try cache.generation(), cursorKey: key)
        let sqlite = SQLiteEngine(cache: cache, cursorKey: key)
        let loaded = try users.map { try cache.personalData(user: $0.user) }
        for (u, l) in zip(users, loaded) { #expect(u.items == l.items, "the stored data reads back") }
        for n in 0..<45 {
            let q = g.personalQuery(model: model, data: loaded[n % loaded.count])
            let m = try memory.run(q)
            #expect(try snapshot.run(q) == m, "snapshot, query \(n): \(QueryParameters.render(q))")
            #expect(try sqlite.run(q) == m, "sqlite, query \(n): \(QueryParameters.render(q))")
        }
    }
}
