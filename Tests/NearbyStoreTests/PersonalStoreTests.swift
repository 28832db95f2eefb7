import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// The personal tables: what imports leave alone, the history rules, restore's merge and replace, and
/// personal queries answered alike by the snapshot, memory and SQLite engines of one cache.
@Suite struct PersonalStoreTests {
    static func records(_ data: PersonalData) -> [PersonalRecord] {
        var out: [PersonalRecord] = []
        for (id, item) in data.items {
            for b in item.bookmarks { out.append(.bookmark(place: id, list: b.list, added: b.added, updated: b.added)) }
            if let r = item.rating { out.append(.rating(place: id, stars: r, updated: 5)) }
            if let m = item.memo {
                out.append(.memo(place: id, text: m.text, created: m.created, updated: m.updated))
            }
            for v in item.visits { out.append(.visit(place: id, at: v, updated: v)) }
        }
        return out
    }

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

    @Test func historyIsNewestFirstMovesRepeatsUpAndKeepsTheNewest() throws {
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        for (i, k) in ["a", "b", "c", "a", "d"].enumerated() {
            try cache.recordSearch(user: "me", keyword: k, at: Int64(100 + i), cap: 3)
        }
        #expect(try cache.searchHistory(user: "me").map(\.keyword) == ["d", "a", "c"])
        // Same millisecond: still in the order of the calls.
        try cache.recordSearch(user: "me", keyword: "c", at: 0, cap: 3)
        #expect(try cache.searchHistory(user: "me").map(\.keyword) == ["c", "d", "a"])
        try cache.clearHistory(user: "me")
        #expect(try cache.searchHistory(user: "me").isEmpty)
    }

    @Test func restoreMergesByUpdatedIsIdempotentAndReplaces() throws {
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        try cache.setRating(user: "me", place: "1", stars: 2, at: 100)
        try cache.setRating(user: "me", place: "2", stars: 3, at: 300)
        try cache.setMemo(user: "me", place: "3", text: "kept", at: 100)
        let file: [PersonalRecord] = [
            .rating(place: "1", stars: 5, updated: 200), .rating(place: "2", stars: 1, updated: 200),
            .bookmark(place: "4", list: "x", added: 7, updated: 7),
        ]
        for _ in 0..<2 {
            try cache.restorePersonal(users: [], items: ["me": file], replace: false)
            let d = try cache.personalData(user: "me")
            #expect(d.items["1"]?.rating == 5 && d.items["2"]?.rating == 3 && d.items["3"]?.memo?.text == "kept")
            #expect(d.items["4"]?.bookmarks == [.init(list: "x", added: 7)])
        }
        try cache.restorePersonal(users: [], items: ["me": file], replace: true)
        #expect(Set(try cache.personalRecords(user: "me")) == Set(file))
    }

    @Test func usersTokensAndRevocation() throws {
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        #expect(try cache.addUser(name: "ana", tokenHash: "h1", at: 1))
        #expect(try !cache.addUser(name: "ana", tokenHash: "h2", at: 2))
        #expect(try cache.activeTokenHashes().map(\.user) == ["ana"])
        try cache.addBookmarks(user: "ana", places: ["1"], list: "default", at: 3)
        #expect(try cache.revokeUser(name: "ana", at: 4))
        #expect(try cache.activeTokenHashes().isEmpty)
        #expect(try cache.personalRecords(user: "ana").count == 1)
        #expect(try cache.removeUser(name: "ana"))
        #expect(try cache.personalRecords(user: "ana").isEmpty && cache.users().isEmpty)
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
        for u in users { try writable.restorePersonal(users: [], items: [u.user: Self.records(u)], replace: true) }
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
