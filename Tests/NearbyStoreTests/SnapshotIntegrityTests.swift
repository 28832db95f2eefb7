import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// Damage anywhere in an index snapshot never changes an answer: a query either answers exactly as
/// over the undamaged file or the snapshot is refused (and rebuilt from the cache), and `nearby check`
/// (`PlaceCache.check`) reports every flipped bit.
@Suite(.serialized) struct SnapshotIntegrityTests {
    /// Sections of snapshot `bytes` by tag: offset and element count.
    static func sections(_ bytes: [UInt8]) -> [String: (offset: Int, count: Int)] {
        func integer(_ at: Int, _ size: Int) -> Int { (0..<size).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        var out: [String: (offset: Int, count: Int)] = [:]
        for i in 0..<integer(12, 4) {
            let e = 64 + 24 * i  // the header, then entries of 24 bytes (`IndexSnapshot`)
            out[String(decoding: bytes[e..<e + 4], as: UTF8.self)] = (integer(e + 8, 8), integer(e + 16, 8))
        }
        return out
    }

    /// The row of `id` in snapshot `bytes` (from its `IDOF` and `IDBY` sections).
    static func row(of id: String, in bytes: [UInt8]) -> Int {
        let s = sections(bytes)
        let offsets = s["IDOF"]!
        let ids = s["IDBY"]!
        func offset(_ i: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[offsets.offset + 4 * i + $1]) << (8 * $1) } }
        return (0..<offsets.count - 1).first {
            Array(bytes[ids.offset + offset($0)..<ids.offset + offset($0 + 1)]) == Array(id.utf8)
        }!
    }

    static func queries(seed: UInt64) -> [PlaceQuery] {
        var g = QuerySampler(seed: seed)
        return (0..<10).map { _ in g.query(model: .haversine) } + [
            PlaceQuery(limit: 0), PlaceQuery(order: PlaceOrder([SortKey(.title)]), limit: 20),
            PlaceQuery(center: Coordinate(lat: 37.57, lon: 126.99), shape: .knn(k: 5, maxDistance: nil)),
        ]
    }

    /// Hundreds of random bit flips over the whole file (header, section table, tree, columns,
    /// dictionaries, block checksums).
    @Test func randomFlipsNeverChangeAnAnswer() throws {
        var g = QuerySampler(seed: 77)
        let dir = try TempFolder()
        let cache = try CacheSnapshotTests.cache(g.places(2000), in: dir)
        let path = CacheSnapshot.path(ofCache: cache.path)
        let good = [UInt8](FileManager.default.contents(atPath: path)!)
        let byId = Dictionary(uniqueKeysWithValues: try cache.allPlaces().map { ($0.id, $0) })
        let stamp = IndexSnapshot.Stamp(identity: try cache.identity(), generation: try cache.generation())
        func open() throws -> MemoryEngine {
            try IndexSnapshot.engine(path, wanted: stamp) { $0.compactMap { byId[$0] } }
        }
        let queries = Self.queries(seed: 78)
        let expected = try queries.map { try open().run($0) }
        // What `nearby query` answers (records fetched from the cache as they are stored).
        let mapped = try CacheSnapshot.engine(for: try PlaceCache(path: cache.path, readOnly: true)) {
            Issue.record("\($0)")
        }
        let expectedRecords = try queries.map { try mapped.run($0) }
        // `check` reports the snapshot's damage (the sampler's places are not normalised as an
        // import's, which `check` also reports: those lines are left aside).
        func snapshotProblems() throws -> [String] {
            try cache.check(limit: 1_000_000).problems.filter { $0.contains("index snapshot") }
        }
        #expect(try snapshotProblems().isEmpty)
        var refused = 0
        for trial in 0..<300 {
            var bad = good
            let pos = g.int(0...good.count - 1)
            bad[pos] ^= UInt8(1 << g.int(0...7))
            try Data(bad).write(to: URL(fileURLWithPath: path))
            // What `nearby check` runs on the snapshot, then (on some trials: it reads the whole cache) `check`.
            #expect(IndexSnapshot.verify(path) != nil, "trial \(trial), byte \(pos): verify")
            if trial % 30 == 0 { #expect(try snapshotProblems().count == 1, "trial \(trial), byte \(pos): check") }
            // The engine over the file as it is: each answer exact, or refused.
            if let engine = try? open() {
                for (q, e) in zip(queries, expected) {
                    do { #expect(try engine.run(q) == e, "trial \(trial), byte \(pos): \(q)") } catch {
                        #expect(error is IndexSnapshot.Problem, "trial \(trial), byte \(pos): \(error)")
                        refused += 1
                    }
                }
            } else {
                refused += 1
            }
            // What `nearby query` uses, on some trials (a rebuild takes a while): exact answers, and a
            // snapshot that was refused is rebuilt.
            guard trial % 25 == 0 else { continue }
            var notes: [String] = []
            let engine = try CacheSnapshot.engine(for: try PlaceCache(path: cache.path, readOnly: true)) {
                notes.append($0)
            }
            for (q, e) in zip(queries, expectedRecords) {
                #expect(try engine.run(q) == e, "trial \(trial), byte \(pos): \(q)")
            }
            #expect(notes.allSatisfy { $0.hasSuffix("; rebuilding it") }, "\(notes)")
            if !notes.isEmpty {
                #expect([UInt8](FileManager.default.contents(atPath: path)!) == good, "rebuilt byte for byte")
            }
        }
        #expect(refused > 0)
    }

    /// A snapshot larger than 8 MiB, where a single flipped bit once went unnoticed.
    nonisolated(unsafe) static let large: (dir: TempFolder, cache: PlaceCache, good: [UInt8]) = {
        var g = QuerySampler(seed: 91)
        let dir = try! TempFolder()
        let cache = try! CacheSnapshotTests.cache(g.places(80_000), in: dir)
        return (dir, cache, [UInt8](FileManager.default.contents(atPath: CacheSnapshot.path(ofCache: cache.path))!))
    }()

    /// Writes `bytes` as the large cache's snapshot, runs `q` through `CacheSnapshot` and checks the
    /// answer against the SQLite engine's, the rebuild note and `check`'s report.
    static func expectRebuilt(_ bytes: [UInt8], _ q: PlaceQuery, section: String) throws {
        let (_, cache, good) = large
        let path = CacheSnapshot.path(ofCache: cache.path)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let before = try cache.check(limit: 1_000_000).problems.filter { $0.contains("index snapshot") }
        #expect(before.count == 1 && before[0].contains("section \(section)"), "\(before)")
        var notes: [String] = []
        let engine = try CacheSnapshot.engine(for: try PlaceCache(path: cache.path, readOnly: true)) {
            notes.append($0)
        }
        #expect(
            try engine.run(q).rows.ids == SQLiteEngine(cache: cache, cursorKey: try cache.cursorKey()).run(q).rows.ids)
        #expect(
            notes.count == 1 && notes[0].contains("damaged (checksum of block")
                && notes[0].contains("section \(section)")
                && notes[0].hasSuffix("; rebuilding it"), "\(notes)")
        // Byte for byte the snapshot `check` found whole before the damage (the `before` report names only
        // the damaged section), so no second `check` of 80,000 rows is needed.
        #expect([UInt8](FileManager.default.contents(atPath: path)!) == good, "rebuilt byte for byte")
    }

    /// A bit of a place's latitude flipped: the nearest places were answered without it.
    @Test func aFlippedCoordinateIsNotAnswered() throws {
        let (_, cache, good) = Self.large
        #expect(good.count > 8 << 20)
        let q = PlaceQuery(center: Coordinate(lat: 37.5701, lon: 126.9894), shape: .knn(k: 3, maxDistance: nil))
        let first = try SQLiteEngine(cache: cache, cursorKey: try cache.cursorKey()).run(q).places[0].id
        var bad = good
        let pos = Self.sections(good)["TPTS"]!.offset + 16 * Self.row(of: first, in: good) + 8 + 5
        bad[pos] ^= 1 << 4
        try Self.expectRebuilt(bad, q, section: "TPTS")
    }

    /// A bit of the box of the leaf that holds the nearest place flipped: a tree walk verifies a node's
    /// children's boxes once when it opens the node, so both a best-first and a counting walk refuse it.
    @Test func aFlippedBoxIsNotAnswered() throws {
        let (_, cache, good) = Self.large
        let centre = Coordinate(lat: 37.5701, lon: 126.9894)
        for shape in [QueryShape.knn(k: 3, maxDistance: nil), .radius(300)] {
            let q = PlaceQuery(center: centre, shape: shape)
            let first = try SQLiteEngine(cache: cache, cursorKey: try cache.cursorKey()).run(q).places[0].id
            var bad = good
            // Level 1 (the leaves, 16 points each) comes first in TBOX, 32 bytes a box; byte 5 of its minY.
            let pos = Self.sections(good)["TBOX"]!.offset + 32 * (Self.row(of: first, in: good) / 16) + 8 + 5
            bad[pos] ^= 1 << 4
            try Self.expectRebuilt(bad, q, section: "TBOX")
        }
    }

    /// A byte of an id changed: every answer with that row failed with "the cache changed while
    /// answering; run the query again", whatever was run again.
    @Test func aChangedIdIsNotAnswered() throws {
        let (_, cache, good) = Self.large
        let q = PlaceQuery(center: Coordinate(lat: 37.5701, lon: 126.9894), shape: .radius(100))
        let first = try SQLiteEngine(cache: cache, cursorKey: try cache.cursorKey()).run(q).places[0].id
        var bad = good
        let s = Self.sections(good)
        let row = Self.row(of: first, in: good)
        let start = (0..<4).reduce(0) { $0 | Int(good[s["IDOF"]!.offset + 4 * row + $1]) << (8 * $1) }
        bad[s["IDBY"]!.offset + start] = 0x45
        try Self.expectRebuilt(bad, q, section: "IDBY")
    }
}
