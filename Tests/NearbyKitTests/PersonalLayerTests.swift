import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

/// The personal layer's use-cases: backup and restore (byte-identical answers after a restore into a
/// fresh cache), refused files, the rules of each item, tokens.
@Suite struct PersonalLayerTests {
    final class Sink { var bytes: [UInt8] = [] }

    static func cache(_ places: [Place], in dir: TempFolder, _ name: String) throws -> PlaceCache {
        let cache = try PlaceCache(path: dir.file(name))
        try cache.write { w in for p in places { try w.upsert(p) } }
        return cache
    }

    /// Every answer of `queries`, with the personal fields, as the CLI writes them (JSON lines).
    static func answers(_ queries: [PlaceQuery], _ cache: PlaceCache) throws -> [UInt8] {
        let engine = MemoryEngine(
            places: try cache.allPlaces(), generation: try cache.generation(), cursorKey: try cache.cursorKey())
        let sink = Sink()
        // No meta line: its nextCursor is signed with each cache's own key.
        var writer = PlaceWriter(format: .jsonl, to: StdoutBlocks(blockSize: 4096) { sink.bytes += $0 })
        writer.personalFields = PersonalField.allCases
        for var q in queries {
            try PersonalLayer.attach(&q, from: cache, always: true)
            q.cursor = nil
            try writer.write(try engine.run(q), query: q, tookMs: 0)
        }
        try writer.finish()
        return sink.bytes
    }

    /// Two writers with the same entity tag on two connections to one cache (a server and a command):
    /// the second's check waits for the first's transaction, then sees the new tag and is refused (or,
    /// past the busy timeout, refused as busy); only the first writes.
    @Test func twoConditionalWritersWithOneTagOneWins() throws {
        var g = QuerySampler(seed: 33)
        let places = g.places(5)
        let dir = try TempFolder()
        let path = dir.file("c.sqlite")
        let cache = try Self.cache(places, in: dir, "c.sqlite")
        let id = places[0].id
        let tag = try PersonalLayer(store: cache).putMemo(user: "me", place: id, text: "zero").etag
        let outcome = PersonalFixtures.interleave(
            first: { pause in
                var clock = 1_800_000_000_000 as Int64
                let layer = PersonalLayer(store: cache) {
                    pause()
                    clock += 1
                    return clock
                }
                return try layer.putMemo(user: "me", place: id, text: "first", if: .oneOf([tag]))
            },
            second: {
                let layer = PersonalLayer(store: try PlaceCache(path: path))
                return try layer.putMemo(user: "me", place: id, text: "second", if: .oneOf([tag]))
            })
        #expect((try? outcome.first.get()) != nil, "the first writer writes")
        if case .failure(let e) = outcome.second {
            #expect(e is PersonalPreconditionFailed || ErrorKind(of: e) == .unavailable, "\(e)")
        } else {
            Issue.record("the second writer wrote too")
        }
        #expect(try cache.memoRecord(user: "me", place: id)?.text == "first")
    }

    @Test func backupThenRestoreIntoAFreshCacheAnswersByteForByte() throws {
        var g = QuerySampler(seed: 31)
        let places = g.places(600)
        let dir = try TempFolder()
        let source = try Self.cache(places, in: dir, "a.sqlite")
        var clock: Int64 = 1_764_000_000_000
        let layer = PersonalLayer(store: source, historyLength: 5) {
            clock += 1000
            return clock
        }
        for user in ["me", "ana", "bo"] {
            for i in 0..<200 {
                let id = g.pick(places).id
                switch i % 5 {
                case 0: try layer.addBookmarks(user: user, places: [id], list: g.pick([nil, "seoul", "food"]))
                case 1: try layer.rate(user: user, place: id, stars: Double(g.int(2...10)) / 2)
                case 2: try layer.memo(user: user, place: id, text: g.title())
                case 3: try layer.visit(user: user, place: id, at: nil)
                default:
                    var q = try QueryParameters.parse([("keyword", g.pick(QuerySampler.syllables)), ("user", user)])
                    q.personal.user = user
                    try layer.recordSearch(of: q)
                }
            }
        }
        #expect(try layer.history(user: "ana").count == 5, "the history keeps its length")
        _ = try UserTokens.addUser("ana", store: source, now: 1)
        let backup = try PersonalBackup.write(store: source, user: nil, withPlaces: true)
        let target = try Self.cache(places, in: dir, "b.sqlite")
        try PersonalBackup.restore(backup, file: "backup.json", into: target, replace: false)
        #expect(try PersonalBackup.write(store: target, user: nil, withPlaces: true) == backup)
        // Restoring again changes nothing.
        try PersonalBackup.restore(backup, file: "backup.json", into: target, replace: false)
        #expect(try PersonalBackup.write(store: target, user: nil, withPlaces: true) == backup)

        var queries: [PlaceQuery] = []
        for n in 0..<60 {
            let data = try source.personalData(user: ["me", "ana", "bo"][n % 3])
            queries.append(g.personalQuery(model: .haversine, data: data))
        }
        let before = try Self.answers(queries, source)
        #expect(before.count > 10_000)
        #expect(try Self.answers(queries, target) == before)
    }

    @Test func replaceMakesTheUsersDataTheFiles() throws {
        let dir = try TempFolder()
        let places = [Place(id: "1", title: "a", lat: 37, lon: 127, category: 12)]
        let a = try Self.cache(places, in: dir, "a.sqlite")
        try PersonalLayer(store: a).rate(user: "me", place: "1", stars: 4)
        let backup = try PersonalBackup.write(store: a, user: "me", withPlaces: false)
        try PersonalLayer(store: a).addBookmarks(user: "me", places: ["1"], list: nil)
        try PersonalBackup.restore(backup, file: "f", into: a, replace: false)
        #expect(try a.personalRecords(user: "me").count == 2)
        try PersonalBackup.restore(backup, file: "f", into: a, replace: true)
        #expect(try PersonalBackup.write(store: a, user: "me", withPlaces: false) == backup)
    }

    @Test func aMalformedOrNewerFileIsRefusedNamingItsLineAndChangesNothing() throws {
        let dir = try TempFolder()
        let cache = try Self.cache([], in: dir, "a.sqlite")
        let head = "{\"format\":\"nearby-personal\",\"version\":1,\n\"users\":[\n],\n\"items\":[\n"
        let good = "{\"user\":\"me\",\"type\":\"rating\",\"place\":\"1\",\"stars\":4,\"updated\":5}"
        func restore(_ text: String) throws {
            try PersonalBackup.restore(Array(text.utf8), file: "f.json", into: cache, replace: true)
        }
        let bad =
            head + good + ",\n" + "{\"user\":\"me\",\"type\":\"rating\",\"place\":\"2\",\"stars\":7,\"updated\":5}\n]}"
        let e = try #require(throws: UsageError.self) { try restore(bad) }
        #expect(e.description.hasPrefix("f.json:6: items[1].stars"), "\(e)")
        let e2 = try #require(throws: UsageError.self) { try restore(head + good + ",\n{\"user\":\"me\",\n") }
        #expect(e2.description.hasPrefix("f.json:"), "\(e2)")
        let e3 = try #require(throws: UsageError.self) {
            try restore(head + "{\"user\":\"me\",\"type\":\"memo\",\"place\":\"2\",\"text\":\"x\",\"updated\":5}\n]}")
        }
        #expect(e3.description.contains("items[0].created"), "\(e3)")
        #expect(throws: BackupVersionError.self) {
            try restore("{\"format\":\"nearby-personal\",\"version\":2,\"items\":[]}")
        }
        #expect(try cache.personalRecords(user: "me").isEmpty)
    }

    @Test func itemRulesAndTokens() throws {
        let dir = try TempFolder()
        let cache = try Self.cache([Place(id: "1", title: "a", lat: 37, lon: 127, category: 12)], in: dir, "a.sqlite")
        let layer = PersonalLayer(store: cache)
        #expect(throws: UsageError.self) { try layer.rate(user: "me", place: "1", stars: 4.2) }
        #expect(throws: UsageError.self) { try layer.rate(user: "me", place: "1", stars: 5.5) }
        #expect(throws: PersonalNotFound.self) { try layer.addBookmarks(user: "me", places: ["9"], list: nil) }
        #expect(throws: UsageError.self) { try layer.addBookmarks(user: "me", places: ["1"], list: "a,b") }
        try layer.memo(user: "me", place: "1", text: "e\u{301}")
        #expect(try cache.personalData(user: "me").items["1"]?.memo?.text == "\u{e9}", "NFC")
        try layer.addBookmarks(user: "me", places: ["1"], list: nil)
        #expect(try layer.bookmarks(user: "me", list: nil).map(\.list) == ["default"])
        try cache.write { w in try w.delete(id: "1") }
        #expect(try layer.bookmarks(user: "me", list: nil).map(\.gone) == [true])

        let token = try UserTokens.addUser("ana", store: cache, now: 1)
        #expect(token.hasPrefix("nby_") && token.count >= 4 + 43)
        #expect(try UserTokens.user(forToken: token, in: cache) == "ana")
        #expect(try UserTokens.user(forToken: token + "x", in: cache) == nil)
        #expect(try cache.users().first?.tokenHashes == [UserTokens.hash(token)], "only the hash is stored")
        #expect(throws: UsageError.self) { try UserTokens.addUser("ana", store: cache, now: 2) }
        _ = try cache.revokeUser(name: "ana", at: 3)
        #expect(try UserTokens.user(forToken: token, in: cache) == nil)
    }

    /// Items one at a time with entity tags, and writes that check them first (what `/v1/me` runs).
    @Test func conditionalWritesCheckTheEntityTag() throws {
        let dir = try TempFolder()
        let cache = try Self.cache([Place(id: "1", title: "a", lat: 37, lon: 127, category: 12)], in: dir, "a.sqlite")
        var now: Int64 = 1_000
        let layer = PersonalLayer(store: cache, clock: { now })
        #expect(try layer.memo(user: "me", place: "1") == nil)
        let first = try layer.putMemo(user: "me", place: "1", text: "one")
        #expect(try layer.memo(user: "me", place: "1") == first)
        now += 1
        let second = try layer.putMemo(user: "me", place: "1", text: "two", if: .oneOf([first.etag]))
        #expect(second.etag != first.etag)
        #expect(throws: PersonalPreconditionFailed.self) {
            try layer.putMemo(user: "me", place: "1", text: "three", if: .oneOf([first.etag]))
        }
        #expect(String(decoding: try layer.memo(user: "me", place: "1")!.json, as: UTF8.self).contains("two"))
        #expect(throws: PersonalPreconditionFailed.self) {
            try layer.putRating(user: "me", place: "1", stars: 4, if: .oneOf(["\"x\""]))
        }
        #expect(
            try layer.putRating(user: "me", place: "1", stars: 4, if: PersonalPrecondition(ifMatch: "*")).etag.count
                == 18)
        #expect(PersonalPrecondition(ifMatch: nil) == .any)
        #expect(PersonalPrecondition(ifMatch: #""a", W/"b""#) == .oneOf([#""a""#, #"W/"b""#]))
        #expect(!PersonalPrecondition(ifMatch: #"W/"b""#).admits(#""b""#), "weak tags never match")
        #expect(try layer.deleteMemo(user: "me", place: "1", if: .oneOf([second.etag])))
        #expect(try !layer.deleteMemo(user: "me", place: "1"))

        // The token table: the hashes as stored, in either case of hex; a malformed one is skipped.
        let token = UserTokens.newToken()
        let table = UserTokens.Table([
            (UserTokens.hash(token).uppercased(), "ana"), ("zz", "bad"), (UserTokens.hash("other"), "bo"),
        ])
        #expect(table.count == 2)
        #expect(table.user(forToken: token) == "ana" && table.user(forToken: "other") == "bo")
        #expect(table.user(forToken: token + "x") == nil)
    }
}
