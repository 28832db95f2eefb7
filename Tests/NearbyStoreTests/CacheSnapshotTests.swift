import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// The snapshot engine on real cache files: the same answers as the memory and SQLite engines, and
/// every snapshot that does not match the cache rebuilt (or, when it cannot be written, bypassed).
@Suite struct CacheSnapshotTests {
    static func cache(_ places: [Place], in dir: TempFolder, name: String = "cache.sqlite") throws -> PlaceCache {
        let cache = try PlaceCache(path: dir.file(name))
        try cache.write { w in for p in places { try w.upsert(p) } }
        CacheSnapshot.update(cache) { Issue.record("update: \($0)") }
        return try PlaceCache(path: dir.file(name), readOnly: true)
    }

    /// The snapshot engine for `cache`, with what it reported.
    static func engine(_ cache: PlaceCache) throws -> (any QueryEngine, [String]) {
        var notes: [String] = []
        let engine = try CacheSnapshot.engine(for: cache) { notes.append($0) }
        return (engine, notes)
    }

    @Test(arguments: [DistanceModel.haversine, .geodesic, .projected(.korea2000), .projected(.utm)])
    func sameAnswersAsTheMemoryAndSQLiteEngines(model: DistanceModel) throws {
        var g = QuerySampler(seed: 123)
        let dir = try TempFolder()
        let cache = try Self.cache(g.places(1200), in: dir)
        let (mapped, notes) = try Self.engine(cache)
        #expect(notes.isEmpty && (mapped as? SnapshotEngine)?.current is MemoryEngine)
        let other = try PlaceCache(path: cache.path, readOnly: true)
        let memory = MemoryEngine(
            places: try other.allPlaces(), generation: try other.generation(), cursorKey: try other.cursorKey())
        let sqlite = SQLiteEngine(cache: other, cursorKey: try other.cursorKey())
        for n in 0..<60 {
            let q = g.query(model: model)
            let a = try mapped.run(q)
            let m = try memory.run(q)
            #expect(a == m, "query \(n): \(q)")
            #expect(a == (try sqlite.run(q)), "query \(n): \(q)")
            if a != m { return }
            if let next = a.nextCursor {  // cursors are interchangeable between engines
                var resumed = q
                resumed.cursor = next
                #expect(try mapped.run(resumed) == memory.run(resumed))
            }
        }
    }

    /// k nearest without a total, several pages: every engine's answer the same, the next page (the
    /// query it resumes, which the server's `next` link is written from) included.
    @Test func kNearestWithoutATotalHasTheSameNextPageOnEveryEngine() throws {
        var g = QuerySampler(seed: 77)
        let dir = try TempFolder()
        let cache = try Self.cache(g.places(600), in: dir)
        let (mapped, _) = try Self.engine(cache)
        let other = try PlaceCache(path: cache.path, readOnly: true)
        let memory = MemoryEngine(
            places: try other.allPlaces(), generation: try other.generation(), cursorKey: try other.cursorKey())
        let sqlite = SQLiteEngine(cache: other, cursorKey: try other.cursorKey())
        for (k, page) in [(5, 1), (30, 2), (200, 3)] {
            var q = PlaceQuery(center: Coordinate(lat: 37.5, lon: 127.0), shape: .knn(k: k, maxDistance: nil), limit: 2)
            q.countsTotal = false
            q.page = page
            let a = try mapped.run(q)
            #expect(a.total == nil && a.next?.query.countsTotal == false)
            #expect(a == (try memory.run(q)), "k \(k)")
            #expect(a == (try sqlite.run(q)), "k \(k)")
        }
    }

    /// Each filter condition alone (`FilterExamples`) on the snapshot written from the cache's stored
    /// fields and on the SQLite engine, against the memory engine over the same places (which the core's
    /// `FilterLayerTests` check against the brute force): a field the snapshot's writer does not read,
    /// or a condition an engine drops, fails here.
    @Test(arguments: PlaceFilter.Condition.allCases)
    func everyFilterConditionOnTheCacheEngines(_ c: PlaceFilter.Condition) throws {
        var g = QuerySampler(seed: 2929)
        let dir = try TempFolder()
        let cache = try Self.cache(g.places(1500), in: dir)
        let (mapped, notes) = try Self.engine(cache)
        #expect(notes.isEmpty && (mapped as? SnapshotEngine)?.current is MemoryEngine)
        let memory = MemoryEngine(
            places: try cache.allPlaces(), generation: try cache.generation(), cursorKey: try cache.cursorKey())
        let sqlite = SQLiteEngine(cache: cache, cursorKey: try cache.cursorKey())
        let f = FilterExamples.filter(c)
        for q in [
            PlaceQuery(filter: f, order: PlaceOrder([SortKey(.title)]), limit: 0),
            PlaceQuery(center: Coordinate(lat: 37.57, lon: 126.98), shape: .radius(20_000), filter: f, limit: 30),
        ] {
            let m = try memory.run(q)
            #expect(m.total! > 0, "\(c): no match")
            #expect(try mapped.run(q) == m, "snapshot engine, \(c)")
            #expect(try sqlite.run(q) == m, "sqlite engine, \(c)")
        }
    }

    @Test func aWriteWithoutUpdateLeavesAStaleSnapshotThatIsRebuiltOnce() throws {
        var g = QuerySampler(seed: 5)
        let dir = try TempFolder()
        let places = g.places(300)
        _ = try Self.cache(places, in: dir)
        // Another write, as if the process died between the commit and the snapshot.
        let writable = try PlaceCache(path: dir.file("cache.sqlite"))
        try writable.write { w in for p in places.prefix(40) { try w.delete(id: p.id) } }
        let cache = try PlaceCache(path: dir.file("cache.sqlite"), readOnly: true)
        let (engine, notes) = try Self.engine(cache)
        #expect(
            notes.count == 1 && notes[0].contains("made at cache generation 1, the cache is at 2; rebuilding it"),
            "\(notes)")
        let q = PlaceQuery()
        #expect(try engine.run(q).total == 260)
        #expect(try engine.run(q) == SQLiteEngine(cache: writable).run(q))
        let (_, again) = try Self.engine(try PlaceCache(path: dir.file("cache.sqlite"), readOnly: true))
        #expect(again.isEmpty, "\(again)")
    }

    @Test func damagedOrForeignSnapshotsAreRebuilt() throws {
        var g = QuerySampler(seed: 6)
        let dir = try TempFolder()
        let cache = try Self.cache(g.places(200), in: dir)
        let path = CacheSnapshot.path(ofCache: cache.path)
        let good = FileManager.default.contents(atPath: path)!
        var flipped = good
        flipped[good.count - 3] ^= 0x10  // in the block checksums (`BSUM`), checked at open
        let q = PlaceQuery(center: Coordinate(lat: 37.5, lon: 127), shape: .radius(30_000), limit: 7)
        let expected = try SQLiteEngine(cache: cache, cursorKey: try cache.cursorKey()).run(q)
        var older = good
        older[8] = 2  // a snapshot of format 2 (rows in id order), written by an older nearby
        for (bytes, reason) in [
            (flipped, "damaged (checksum of BSUM)"), (good.prefix(good.count - 9), "truncated"),
            (older, "format version 2, this nearby reads \(IndexSnapshot.formatVersion)"),
            (Data("hello".utf8), "not a Nearby index snapshot"), (Data(), "truncated"),
        ] {
            try bytes.write(to: URL(fileURLWithPath: path))
            let (engine, notes) = try Self.engine(try PlaceCache(path: cache.path, readOnly: true))
            #expect(notes == ["index snapshot \(path): \(reason); rebuilding it"])
            #expect(try engine.run(q) == expected)
            #expect(FileManager.default.contents(atPath: path) == good, "rebuilt byte for byte")
        }
    }

    @Test func aSnapshotOfAnotherCacheFileIsNotUsed() throws {
        var g = QuerySampler(seed: 8)
        let dir = try TempFolder()
        _ = try Self.cache(g.places(100), in: dir)
        let old = FileManager.default.contents(atPath: CacheSnapshot.path(ofCache: dir.file("cache.sqlite")))!
        // The cache deleted and made again from other places: same generation (1), another identity.
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: dir.file("cache.sqlite" + suffix))
        }
        let cache = try Self.cache(g.places(100), in: dir)
        try old.write(to: URL(fileURLWithPath: CacheSnapshot.path(ofCache: cache.path)))
        #expect(try cache.generation() == 1)
        let (engine, notes) = try Self.engine(cache)
        #expect(notes.count == 1 && notes[0].contains("made from another cache file"), "\(notes)")
        #expect(try engine.run(PlaceQuery()) == SQLiteEngine(cache: cache).run(PlaceQuery()))
    }

    @Test func whenTheSnapshotCannotBeWrittenTheAnswerComesFromMemory() throws {
        var g = QuerySampler(seed: 9)
        let dir = try TempFolder()
        let cache = try Self.cache(g.places(150), in: dir)
        let path = CacheSnapshot.path(ofCache: cache.path)
        try FileManager.default.removeItem(atPath: path)
        // A folder where the temporary file would go: no write can succeed, not even as root.
        try FileManager.default.createDirectory(atPath: "\(path).tmp-\(getpid())", withIntermediateDirectories: false)
        let (engine, notes) = try Self.engine(cache)
        #expect(notes.count == 2 && notes[1].contains("answering from memory"), "\(notes)")
        #expect(!FileManager.default.fileExists(atPath: path))
        let q = PlaceQuery(center: Coordinate(lat: 36, lon: 128), shape: .knn(k: 9, maxDistance: nil))
        #expect(try engine.run(q) == SQLiteEngine(cache: cache).run(q))
    }

    /// An import into an empty cache hands its places to the snapshot (`SnapshotFeed`): the file is
    /// byte for byte the one read back from the cache, and no spill file is left in the folder. A feed
    /// is not used when the write did more than insert new ids, or when another write committed before
    /// the snapshot.
    @Test func aFedSnapshotIsTheOneReadFromTheCache() throws {
        var g = QuerySampler(seed: 11)
        let places = g.places(400)
        let dir = try TempFolder()
        func fedCache(_ name: String, _ records: [Place], deleting: [String] = []) throws -> (PlaceCache, SnapshotFeed)
        {
            let cache = try PlaceCache(path: dir.file(name))
            let feed = SnapshotFeed()
            try cache.write(feeding: feed) { w in
                for p in records { try w.upsert(p) }
                for id in deleting { try w.delete(id: id) }
            }
            return (cache, feed)
        }
        func rebuilt(_ cache: PlaceCache) throws -> Data {
            let path = CacheSnapshot.path(ofCache: cache.path)
            try FileManager.default.removeItem(atPath: path)
            CacheSnapshot.update(cache) { Issue.record("update: \($0)") }
            return FileManager.default.contents(atPath: path)!
        }
        // Fed, then the same cache's snapshot read back: identical.
        let (cache, feed) = try fedCache("fed.sqlite", places.shuffled())
        #expect(feed.isFilled)
        CacheSnapshot.update(cache, feed: feed) { Issue.record("update: \($0)") }
        let fed = FileManager.default.contents(atPath: CacheSnapshot.path(ofCache: cache.path))!
        #expect(try rebuilt(cache) == fed)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".nearby-index") }
        #expect(left == ["fed.sqlite.nearby-index"], "\(left)")
        // A repeated id and a delete drop the feed; the snapshot still holds exactly the cache's rows.
        var changed = places
        changed[3].title = "바뀐 이름"
        changed[3].modified = "20990101000000"
        let (other, otherFeed) = try fedCache("changed.sqlite", places + [changed[3]], deleting: [places[5].id])
        #expect(!otherFeed.isFilled)
        CacheSnapshot.update(other, feed: otherFeed) { Issue.record("update: \($0)") }
        let written = FileManager.default.contents(atPath: CacheSnapshot.path(ofCache: other.path))!
        #expect(try rebuilt(other) == written)
        let mapped = try CacheSnapshot.engine(for: other) { Issue.record("engine: \($0)") }
        #expect(try mapped.run(PlaceQuery()).total == places.count - 1)
        // Another write between the fed write and the snapshot: the feed is stale, the cache is read.
        let (third, thirdFeed) = try fedCache("third.sqlite", places)
        #expect(thirdFeed.isFilled)
        try third.write { w in try w.delete(id: places[0].id) }
        CacheSnapshot.update(third, feed: thirdFeed) { Issue.record("update: \($0)") }
        let engine = try CacheSnapshot.engine(for: third) { Issue.record("engine: \($0)") }
        #expect(try engine.run(PlaceQuery()) == SQLiteEngine(cache: third).run(PlaceQuery()))
    }

    @Test func updateWritesOnlyWhenTheCacheChanged() throws {
        var g = QuerySampler(seed: 10)
        let dir = try TempFolder()
        let cache = try Self.cache(g.places(50), in: dir)
        let path = CacheSnapshot.path(ofCache: cache.path)
        let before = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as! Int
        CacheSnapshot.update(cache)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as! Int == before)
        #expect(try IndexSnapshot.stamp(at: path) == IndexSnapshot.Stamp(identity: cache.identity(), generation: 1))
    }
}
