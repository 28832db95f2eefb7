import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyPostGIS

/// The personal tables in PostGIS (`008_personal.sql`, `PostGISPersonal.swift`): the same records as the
/// cache for the same writes, what imports leave alone, and personal queries answered alike by the
/// snapshot, memory, SQLite and PostGIS engines, on generated places and on the default dataset.
@Suite struct PostGISPersonalTests {
    /// The same places, distances, total, page and next cursor (`==` also asks the same data object).
    static func same(_ a: QueryAnswer, _ b: QueryAnswer) -> Bool {
        a.places == b.places && a.distances == b.distances && a.total == b.total && a.page == b.page
            && a.nextCursor == b.nextCursor
    }

    /// A cache and a PostGIS database (and its URL) holding the same places.
    static func stores(_ places: [Place], in dir: TempFolder) throws -> (PlaceCache, PostGISStore, String) {
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        try cache.write { w in for p in places { try w.upsert(p) } }
        let url = try PostgresCluster.shared().makeDatabase()
        return (cache, try PostGISEngineTests.database(places, url: url), url)
    }

    /// The same use-cases through `PersonalLayer` on both stores (one clock) leave the same records,
    /// users and history, and the same backup byte for byte.
    @Test func theSameWritesLeaveTheSameRecordsAsTheCache() throws {
        var g = QuerySampler(seed: 61)
        let places = g.places(120)
        let dir = try TempFolder()
        let (cache, store, _) = try Self.stores(places, in: dir)
        final class Clock: @unchecked Sendable { var now: Int64 = 1_764_000_000_000 }
        let clock = Clock()
        let layers = [cache as any PersonalStorage, store].map { s in
            PersonalLayer(store: s, historyLength: 4) {
                clock.now += 500
                return clock.now
            }
        }
        for i in 0..<300 {
            let user = g.pick(["me", "ana"])
            let id = g.pick(places).id
            let list = g.pick([nil, "seoul", "food"])
            let stars = g.chance(0.2) ? nil : Double(g.int(2...10)) / 2
            let text = g.chance(0.2) ? nil : g.title()
            let keyword = g.pick(QuerySampler.syllables)
            let at: Int64? = g.chance(0.5) ? nil : 1_700_000_000_000 + Int64(g.int(0...5))
            let step = clock.now
            for layer in layers {
                clock.now = step
                switch i % 7 {
                case 0, 1: try layer.addBookmarks(user: user, places: [id], list: list)
                case 2: try layer.removeBookmarks(user: user, places: [id, places[0].id], list: list)
                case 3: try layer.rate(user: user, place: id, stars: stars)
                case 4: try layer.memo(user: user, place: id, text: text)
                case 5: try layer.visit(user: user, place: id, at: at)
                default:
                    var q = try QueryParameters.parse([("keyword", keyword)])
                    q.personal.user = user
                    try layer.recordSearch(of: q)
                }
            }
        }
        _ = try UserTokens.addUser("ana", store: cache, now: 1)
        let hash = try #require(try cache.users().first?.tokenHashes.first)
        #expect(try store.addUser(name: "ana", tokenHash: hash, at: 1))
        #expect(try !store.addUser(name: "ana", tokenHash: "other", at: 2))
        for user in ["me", "ana"] {
            #expect(try store.personalRecords(user: user) == cache.personalRecords(user: user), "\(user)")
            #expect(
                try store.searchHistory(user: user).map(\.keyword) == cache.searchHistory(user: user).map(\.keyword))
            #expect(try store.personalData(user: user).items == cache.personalData(user: user).items)
            #expect(try layers[1].bookmarks(user: user, list: nil) == layers[0].bookmarks(user: user, list: nil))
        }
        #expect(try store.searchHistory(user: "ana").count == 4, "the history keeps its length")
        #expect(try store.users() == cache.users())
        #expect(try store.usersWithData() == cache.usersWithData())
        let backup = try PersonalBackup.write(store: cache, user: nil, withPlaces: true)
        #expect(try PersonalBackup.write(store: store, user: nil, withPlaces: true) == backup)
        // Refused as on the cache: stars off the half steps, a place not stored.
        #expect(throws: UsageError.self) { try layers[1].rate(user: "me", place: places[1].id, stars: 4.2) }
        #expect(throws: PersonalNotFound.self) { try layers[1].addBookmarks(user: "me", places: ["nope"], list: nil) }
    }

    /// Imports never touch the personal tables: a re-import keeps every item, a deleted place keeps its
    /// items (`gone` in the bookmark list, no answer to a query) and gets them back when it returns.
    @Test func importsKeepTheDataAndAGonePlaceGetsItBack() throws {
        var g = QuerySampler(seed: 62)
        let places = g.places(60)
        let store = try PostGISEngineTests.database(places)
        let engine = try PostGISEngine(store: store)
        let id = places[7].id
        let generation = try store.generation()
        let layer = PersonalLayer(store: store)
        try layer.addBookmarks(user: "me", places: [id], list: nil)
        try layer.rate(user: "me", place: id, stars: 4.5)
        try layer.memo(user: "me", place: id, text: "메모")
        try layer.visit(user: "me", place: id, at: 13)
        #expect(try store.generation() == generation, "personal writes leave the places' generation")
        let before = try store.personalRecords(user: "me")
        #expect(before.count == 4)
        _ = try store.write { w in
            for var p in places {
                p.title += "!"
                try w.upsert(p)
            }
            try w.delete(id: id)
        }
        #expect(try store.personalRecords(user: "me") == before)
        #expect(try layer.bookmarks(user: "me", list: nil).map(\.gone) == [true])
        let q = try QueryParameters.parse([("bookmarked", "true")])
        #expect(try engine.run(q).places.isEmpty)
        _ = try store.write { w in try w.upsert(places[7]) }
        #expect(try engine.run(q).places.map(\.id) == [id], "the engine reads the user's data itself")
        #expect(try layer.bookmarks(user: "me", list: nil).map(\.gone) == [false])
        // Memo: one per place, created kept, updated moved; a cleared rating is gone.
        let memo = try #require(try store.memoRecord(user: "me", place: id))
        try store.setMemo(user: "me", place: id, text: "둘", at: memo.updated + 5)
        let second = try #require(try store.memoRecord(user: "me", place: id))
        #expect(second.text == "둘" && second.created == memo.created && second.updated == memo.updated + 5)
        try layer.rate(user: "me", place: id, stars: nil)
        #expect(try store.ratingRecord(user: "me", place: id) == nil)
        #expect(try store.personalRecords(user: "ana").isEmpty)
    }

    /// The rules every personal store keeps (`PersonalFixtures`, as on the cache), and what only the
    /// database's versions do: items leave the token version, searches the items version, and another
    /// connection (another server) sees both move with the commit.
    @Test func historyRestoreUsersAndTokens() throws {
        let url = try PostgresCluster.shared().makeDatabase()
        let store = try PostGISEngineTests.database([], url: url)
        let other = try PostGISStore(url: url, readOnly: true)
        #expect(try PersonalFixtures.historyRules(store) == [])
        #expect(try PersonalFixtures.restoreRules(store) == [])
        #expect(try PersonalFixtures.userRules(store, observer: other) == [])
        // The table refuses a rating off the half steps, whatever wrote it.
        #expect(throws: PostGISError.self) { try store.setRating(user: "me", place: "1", stars: 4.2, at: 1) }
        let (tokens, items) = (try other.tokenVersion(), try other.itemsVersion())
        try store.addBookmarks(user: "bo", places: ["1"], list: "default", at: 3)
        try store.recordSearch(user: "bo", keyword: "k", at: 4, cap: 10)
        #expect(try other.tokenVersion() == tokens, "items leave the token version")
        let afterItem = try other.itemsVersion()
        #expect(afterItem != items, "an item moves the items version, seen by another connection")
        try store.recordSearch(user: "bo", keyword: "l", at: 5, cap: 10)
        try store.clearHistory(user: "bo")
        #expect(try other.itemsVersion() == afterItem, "searches leave the items version")
        for write in [
            { try store.setRating(user: "bo", place: "1", stars: 4, at: 6) },
            { try store.setMemo(user: "bo", place: "1", text: "m", at: 7) },
            { try store.addVisit(user: "bo", place: "1", at: 8, now: 8) },
            { _ = try store.removeBookmarks(user: "bo", places: ["1"], list: "default") },
            { try store.restorePersonal(users: [], items: ["bo": []], replace: true) },
        ] {
            let before = try other.itemsVersion()
            try write()
            #expect(try other.itemsVersion() != before)
        }
    }

    /// Two writers with the same entity tag on two connections (two servers): the second's check waits
    /// for the first's transaction, then sees the new tag and is refused; only the first writes.
    @Test func twoConditionalWritersWithOneTagOneWins() throws {
        var g = QuerySampler(seed: 64)
        let places = g.places(5)
        let url = try PostgresCluster.shared().makeDatabase()
        let store = try PostGISEngineTests.database(places, url: url)
        let id = places[0].id
        let first = PersonalLayer(store: store)
        let tag = try first.putMemo(user: "me", place: id, text: "zero").etag
        // The other connection's layer, made on its own thread (a connection is used by one thread at a time).
        let secondURL = url
        let outcome = PersonalFixtures.interleave(
            first: { pause in
                var clock = 1_800_000_000_000 as Int64
                let layer = PersonalLayer(store: store) {
                    pause()
                    clock += 1
                    return clock
                }
                return try layer.putMemo(user: "me", place: id, text: "first", if: .oneOf([tag]))
            },
            second: {
                let layer = PersonalLayer(store: try PostGISStore(url: secondURL, readOnly: true))
                return try layer.putMemo(user: "me", place: id, text: "second", if: .oneOf([tag]))
            })
        #expect((try? outcome.first.get()) != nil, "the first writer writes")
        #expect(throws: PersonalPreconditionFailed.self, "the second is refused") { try outcome.second.get() }
        #expect(try store.memoRecord(user: "me", place: id)?.text == "first")
    }

    /// Random personal queries (conditions, sort keys, keyword in memos, cursors) for several generated
    /// users: snapshot, memory and SQLite over a cache, and PostGIS over a database with the same places
    /// and the same personal tables, all give the memory engine's answer.
    @Test(arguments: [DistanceModel.haversine, .projected(.korea2000)])
    func theFourEnginesAnswerRandomPersonalQueriesAlike(model: DistanceModel) throws {
        var g = QuerySampler(seed: 909)
        let places = g.places(1000)
        let dir = try TempFolder()
        let (writable, store, url) = try Self.stores(places, in: dir)
        let users = [("me", 60), ("ana", 600), ("bo", 2500)].map {
            g.personalData(user: $0.0, places: places, items: $0.1)
        }
        CacheSnapshot.update(writable) { Issue.record("update: \($0)") }
        for u in users {
            try writable.restorePersonal(users: [], items: [u.user: PersonalFixtures.records(u)], replace: true)
            try store.restorePersonal(users: [], items: [u.user: PersonalFixtures.records(u)], replace: true)
        }
        let cache = try PlaceCache(path: dir.file("c.sqlite"), readOnly: true)
        let snapshot = try CacheSnapshot.engine(for: cache) { Issue.record("snapshot: \($0)") }
        let key = try cache.cursorKey()
        let memory = MemoryEngine(places: try cache.allPlaces(), generation: try cache.generation(), cursorKey: key)
        let sqlite = SQLiteEngine(cache: cache, cursorKey: key)
        let postgis = try PostGISEngine(store: try PostGISStore(url: url, readOnly: true))
        // The memory engine with the database's generation and key: the postgis engine's cursors.
        let reference = MemoryEngine(places: places, generation: try store.generation(), cursorKey: postgis.cursorKey)
        for u in users {
            #expect(try store.personalData(user: u.user).items == u.items, "the stored data reads back")
        }
        var nonEmpty = 0
        for n in 0..<30 {
            let q = g.personalQuery(model: model, data: users[n % users.count])
            let m = try memory.run(q)
            if m.total ?? m.places.count > 0 { nonEmpty += 1 }
            #expect(try snapshot.run(q) == m, "snapshot, query \(n): \(QueryParameters.render(q))")
            #expect(try sqlite.run(q) == m, "sqlite, query \(n): \(QueryParameters.render(q))")
            // PostGIS with the data attached (as the CLI and the server do), and reading it itself.
            let r = try reference.run(q)
            #expect(r.places.map(\.id) == m.places.map(\.id) && r.total == m.total)
            let p = try postgis.run(q)
            #expect(p == r, "postgis, query \(n): \(QueryParameters.render(q))")
            if n % 3 == 0 {
                var bare = q
                bare.personalData = nil
                #expect(Self.same(try postgis.run(bare), r), "postgis reading the tables, query \(n)")
            }
            // The next page by either engine's cursor, on the other.
            if let next = r.nextCursor {
                var resumed = q
                resumed.cursor = next
                #expect(try postgis.run(resumed) == reference.run(resumed), "next page, query \(n)")
                // A cursor is bound to its user.
                var other = resumed
                other.personal.user = users[(n + 1) % users.count].user
                other.personalData = PersonalDataRef(users[(n + 1) % users.count])
                #expect(throws: RequestError.self, "query \(n)") { try postgis.run(other) }
            }
        }
        #expect(nonEmpty > 10, "the sampled queries select something")
    }

    /// Each personal condition alone and each keyword target, in turn on one connection (each set of SQL
    /// tests is its own prepared statement), with and without a shape, give the memory engine's answer.
    @Test func everyPersonalConditionAndKeywordTargetOnOneConnection() throws {
        var g = QuerySampler(seed: 313)
        let places = g.places(400)
        let store = try PostGISEngineTests.database(places)
        let data = g.personalData(user: "me", places: places, items: 300)
        try store.restorePersonal(users: [], items: ["me": PersonalFixtures.records(data)], replace: true)
        let postgis = try PostGISEngine(store: store)
        let memory = MemoryEngine(places: places, generation: try store.generation(), cursorKey: postgis.cursorKey)
        let memos = data.items.values.compactMap { $0.memo?.text }.sorted()
        let memoWord = String(memos.first?.prefix(1) ?? "")
        var cases: [[(String, String)]] = [
            [("bookmarked", "true")], [("bookmarked-in", "food")], [("min-rating", "3.5")], [("has-memo", "true")],
            [("visited", "true")], [("not-visited", "true")], [("sort", "-rating,title")], [("sort", "visited")],
        ]
        for target in ["title", "memo", "title,memo"] {
            for keyword in [memoWord, "ㄱ"] { cases.append([("keyword", keyword), ("keyword-in", target)]) }
        }
        for pairs in cases {
            for shape in [[], [("lat", "37.5665"), ("lon", "126.978"), ("radius", "20000")]] {
                var q = try QueryParameters.parse(pairs + shape + [("limit", "0")])
                q.personalData = PersonalDataRef(data)
                let m = try memory.run(q)
                #expect(Self.same(try postgis.run(q), m), "\(pairs) \(shape)")
                if !pairs.contains(where: { $0.0 == "sort" || $0.0 == "not-visited" }) {
                    #expect(m.total! > 0 && m.total! < places.count, "\(pairs) \(shape): selects some")
                }
            }
        }
    }

    /// The default dataset's first 20,000 places (ids 1…20,000 of `DefaultDataset.places()`; the whole
    /// takes seconds of CPU to generate and load) in PostGIS with generated users: random personal
    /// queries, with the data attached and read from the tables, give the memory engine's answers.
    @Test func theDefaultDatasetAnswersPersonalQueriesAsTheMemoryEngine() throws {
        let places = try DefaultDataset.generator(seed: DefaultDataset.seed).places(count: 20_000)
        let url = try PostgresCluster.shared().makeDatabase()
        let store = try PostGISEngineTests.database(places, url: url)
        var g = QuerySampler(seed: 2026)
        let users = [("me", 300), ("ana", 2000)].map { g.personalData(user: $0.0, places: places, items: $0.1) }
        for u in users {
            try store.restorePersonal(users: [], items: [u.user: PersonalFixtures.records(u)], replace: true)
        }
        let postgis = try PostGISEngine(store: try PostGISStore(url: url, readOnly: true))
        let memory = MemoryEngine(places: places, generation: try store.generation(), cursorKey: postgis.cursorKey)
        for n in 0..<16 {
            var q = g.personalQuery(model: .haversine, data: users[n % users.count])
            if n % 2 == 1 { q.personalData = nil }
            var attached = q
            attached.personalData = PersonalDataRef(users[n % users.count])
            #expect(Self.same(try postgis.run(q), try memory.run(attached)), "query \(n): \(QueryParameters.render(q))")
        }
    }
}
