import Foundation
import NearbyTestSupport
import Testing

@testable import NearbyCore

/// The engine mapped from an index snapshot file against `QueryBruteForce` and the in-memory engine,
/// and every kind of bad snapshot refused.
@Suite struct IndexSnapshotTests {
    static let places: [Place] = {
        var g = QuerySampler(seed: 7)
        return g.places(1500)
    }()
    static let byId = Dictionary(uniqueKeysWithValues: places.map { ($0.id, $0) })
    static let stamp = IndexSnapshot.Stamp(identity: 0x5EED, generation: 3)
    static let reference = QueryBruteForce(places)
    static let folder: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nearby-snapshot-\(getpid())").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()
    static let file: String = {
        let path = folder + "/good.nearby-index"
        try! IndexSnapshot.write(places.shuffled(), stamp: stamp, to: path)
        return path
    }()
    static let mapped = try! open(file)
    static let memory = MemoryEngine(places: places, generation: stamp.generation)

    static func open(_ path: String, wanted: IndexSnapshot.Stamp = stamp) throws(IndexSnapshot.Problem) -> MemoryEngine
    {
        try IndexSnapshot.engine(path, wanted: wanted) { ids in ids.compactMap { byId[$0] } }
    }

    static func answer(_ a: QueryAnswer) -> QueryBruteForce.Answer {
        QueryBruteForce.Answer(total: a.total, ids: a.places.map(\.id), distances: a.distances)
    }

    @Test(arguments: [DistanceModel.haversine, .geodesic, .projected(.korea2000)])
    func randomQueriesMatchBruteForceAndTheMemoryEngine(model: DistanceModel) throws {
        var g = QuerySampler(seed: 4000 + UInt64(model.description.utf8.count))
        for n in 0..<100 {
            let q = g.query(model: model)
            let got = try Self.mapped.run(q)
            let memory = try Self.memory.run(q)
            #expect(Self.answer(got) == Self.reference.page(q), "query \(n): \(q)")
            #expect(got == memory && got.nextCursor == memory.nextCursor, "query \(n): \(q)")
            if got != memory { return }
        }
    }

    /// Without records (`run(_:records:)`, an answer written as ids and distances) the mapped engine
    /// fetches nothing, and its rows' ids, distances, total and cursor are those of the full answer;
    /// the memory engine's too.
    @Test func answersWithoutRecordsFetchNothingAndHaveTheSameIds() throws {
        final class Fetches: @unchecked Sendable { var count = 0 }
        let fetches = Fetches()
        let mapped = try IndexSnapshot.engine(Self.file, wanted: Self.stamp) { ids in
            fetches.count += 1
            return ids.compactMap { Self.byId[$0] }
        }
        var g = QuerySampler(seed: 91)
        for n in 0..<100 {
            let q = g.query(model: .haversine)
            let bare = try mapped.run(q, records: false)
            let memoryBare = try Self.memory.run(q, records: false)
            let full = try Self.mapped.run(q)
            #expect(!bare.rows.hasRecords && memoryBare.rows.hasRecords, "query \(n)")
            for a in [bare, memoryBare] {
                #expect(
                    a.rows.ids == full.places.map(\.id) && a.distances == full.distances && a.total == full.total
                        && a.nextCursor == full.nextCursor, "query \(n): \(q)")
            }
            #expect(bare == full, "rows without records compare by id")
        }
        #expect(fetches.count == 0)
    }

    @Test func cursorPagesConcatenateToTheFullAnswer() throws {
        var g = QuerySampler(seed: 78)
        for _ in 0..<20 {
            var q = g.query(model: .haversine)
            let full = Self.reference.all(q)
            q.limit = max(1, full.ids.count / g.pick([2, 5, 20]))
            q.page = 1
            var answer = try Self.mapped.run(q)
            var ids = answer.places.map(\.id)
            while let next = answer.nextCursor, ids.count <= full.ids.count {
                var resumed = q
                resumed.cursor = next
                answer = try Self.mapped.run(resumed)
                ids += answer.places.map(\.id)
            }
            #expect(ids == full.ids, "cursor pages of \(q)")
        }
    }

    /// The streaming writer orders rows itself (tree order, ties and id ranks by id): places fed in id
    /// order (the cache's way, no id sort), shuffled (`file`) or reversed give the same bytes.
    @Test func theBytesDoNotDependOnTheOrderPlacesArriveIn() throws {
        let inOrder = Self.places.sorted { PlaceTable.idPrecedes($0.id, $1.id) }
        var bytes: [[UInt8]] = []
        for (name, list) in [("ordered", inOrder), ("reversed", Array(inOrder.reversed()))] {
            let path = Self.folder + "/\(name).nearby-index"
            try IndexSnapshot.write(list, stamp: Self.stamp, to: path)
            bytes.append([UInt8](FileManager.default.contents(atPath: path)!))
        }
        let shuffled = [UInt8](FileManager.default.contents(atPath: Self.file)!)
        #expect(bytes[0] == shuffled && bytes[1] == shuffled)
    }

    /// Rows are stored in tree order, so every tie must go by the stored id rank: places sharing one
    /// point, one title and one category (ids of digits and text, fed shuffled) answer in id order on
    /// the mapped engine, the memory engine and the brute force alike, pages and cursors too.
    @Test func tiesGoByIdOrderAlthoughRowsAreInTreeOrder() throws {
        let ids = ["9", "65", "7", "10", "100", "x", "b-2", "a", "8", "12"]
        var places: [Place] = []
        for (i, id) in ids.enumerated() {
            for (j, point) in [(37.5665, 126.978), (37.5, 127.0), (35.1796, 129.0756)].enumerated() {
                places.append(
                    Place(
                        id: "\(id)-\(j)", title: "같은 이름", lat: point.0, lon: point.1, category: 39,
                        created: i % 2 == 0 ? "20240101000000" : nil))
            }
            places.append(Place(id: id, title: "같은 이름", lat: 37.5665, lon: 126.978, category: 39))
        }
        let byId = Dictionary(uniqueKeysWithValues: places.map { ($0.id, $0) })
        let path = Self.folder + "/ties.nearby-index"
        try IndexSnapshot.write(places.shuffled(), stamp: Self.stamp, to: path)
        let mapped = try IndexSnapshot.engine(path, wanted: Self.stamp) { $0.compactMap { byId[$0] } }
        let memory = MemoryEngine(places: places, generation: Self.stamp.generation)
        let reference = QueryBruteForce(places)
        let centre = Coordinate(lat: 37.5665, lon: 126.978)
        var queries = [PlaceQuery]()
        for shape in [QueryShape.knn(k: 7, maxDistance: nil), .radius(100_000), .radius(0), .all] {
            for order in ["distance", "title", "-created", "category"] {
                var q = PlaceQuery(center: centre, shape: shape, limit: 4)
                q.order = PlaceOrder(parsing: order)!
                queries.append(q)
            }
        }
        for q in queries {
            var got = try mapped.run(q)
            var expected = try memory.run(q)
            #expect(got == expected && Self.answer(got) == reference.page(q), "\(q)")
            var seen = got.places.map(\.id)
            while let next = got.nextCursor {
                var resumed = q
                resumed.cursor = next
                got = try mapped.run(resumed)
                expected = try memory.run(resumed)
                #expect(got == expected, "\(q) resumed")
                seen += got.places.map(\.id)
            }
            #expect(seen == reference.all(q).ids, "\(q) by pages")
        }
    }

    @Test func anEmptySnapshotAnswersNothing() throws {
        let path = Self.folder + "/empty.nearby-index"
        try IndexSnapshot.write([], stamp: Self.stamp, to: path)
        let engine = try Self.open(path)
        let a = try engine.run(PlaceQuery(center: Coordinate(lat: 37.5, lon: 127), shape: .knn(k: 5, maxDistance: nil)))
        #expect(a.total == 0 && a.places.isEmpty)
        #expect(try engine.run(PlaceQuery()).total == 0)
    }

    @Test func aSnapshotOfAnotherStateIsStale() throws {
        _ = Self.file
        let newer = IndexSnapshot.Stamp(identity: Self.stamp.identity, generation: 4)
        #expect(throws: IndexSnapshot.Problem.stale(found: Self.stamp, wanted: newer)) {
            try Self.open(Self.file, wanted: newer)
        }
        let other = IndexSnapshot.Stamp(identity: 1, generation: Self.stamp.generation)
        #expect(throws: IndexSnapshot.Problem.stale(found: Self.stamp, wanted: other)) {
            try Self.open(Self.file, wanted: other)
        }
        #expect(try IndexSnapshot.stamp(at: Self.file) == Self.stamp)
    }

    /// Writes `bytes` as a snapshot file and opens it: the problem, or nil when it opened.
    static func problem(_ bytes: [UInt8], _ name: String) -> IndexSnapshot.Problem? {
        let path = folder + "/" + name
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try open(path)
            return nil
        } catch { return error }
    }

    /// Every flipped bit is found by `verify` (what `nearby check` runs), and an engine over the
    /// flipped file either refuses to open, answers exactly as over the good file, or refuses to answer.
    @Test func everyFlippedByteIsCaught() throws {
        let good = [UInt8](FileManager.default.contents(atPath: Self.file)!)
        #expect(Self.problem(good, "copy") == nil)
        let path = Self.folder + "/flipped"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var g = QuerySampler(seed: 9)
        let queries =
            (0..<8).map { _ in g.query(model: .haversine) } + [
                PlaceQuery(limit: 0), PlaceQuery(order: PlaceOrder([SortKey(.title)])),
            ]
        let expected = try queries.map { try Self.mapped.run($0) }
        // Every byte of the header and section table, then a spread of body bytes.
        let positions = Array(0..<700) + (0..<300).map { _ in g.int(700...good.count - 1) }
        for pos in positions {
            var bad = good
            bad[pos] ^= UInt8(1 << g.int(0...7))
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bad)))
            #expect(IndexSnapshot.verify(path) != nil, "flipped bit at byte \(pos) not caught")
            guard let engine = try? Self.open(path) else { continue }
            for (q, e) in zip(queries, expected) {
                do { #expect(try engine.run(q) == e, "flipped bit at byte \(pos) changed an answer") } catch {
                    #expect(error is IndexSnapshot.Problem, "flipped bit at byte \(pos): \(error)")
                }
            }
        }
    }

    @Test func truncatedForeignAndOtherVersionsAreRefused() throws {
        let good = [UInt8](FileManager.default.contents(atPath: Self.file)!)
        for length in [0, 7, 8, 40, 63, 64, 100, 600, good.count / 2, good.count - 1] {
            #expect(Self.problem(Array(good[..<length]), "short") != nil, "\(length) bytes")
        }
        #expect(Self.problem(Array(good[..<(good.count / 2)]), "short") == .truncated)
        #expect(Self.problem(good + [0], "long") == .damaged("file length"))
        #expect(Self.problem(Array("SQLite format 3\0 and more bytes than a magic".utf8), "foreign") == .foreign)
        #expect(Self.problem(Array(repeating: 0, count: 4096), "zeros") == .foreign)
        var next = good
        next[8] = UInt8(IndexSnapshot.formatVersion + 1)
        #expect(Self.problem(next, "next") == .version(IndexSnapshot.formatVersion + 1))
        #expect(throws: IndexSnapshot.Problem.missing) { try Self.open(Self.folder + "/absent") }
    }

    @Test func theSnapshotStaysWithinItsByteBudget() throws {
        let size = try FileManager.default.attributesOfItem(atPath: Self.file)[.size] as! Int
        let folded = Self.mapped.table.foldedTitles().byteCount
        let postings = try #require(Self.mapped.table.titlePostings()).byteCount
        let ids = Self.places.reduce(0) { $0 + $1.id.utf8.count + 4 }
        // Index and query columns (tree, id ranks, filter and sort columns, title ranks), per place,
        // plus the folded titles, their postings and ids; small fixed parts (header, dictionaries,
        // padding) aside.
        let perPlace = Double(size - folded - postings - ids) / Double(Self.places.count)
        // Format 7: 57 B of index and query columns here (16 of points, 8 of their cosines, 2 of boxes, 4 of
        // id rank, 4 of flags, 4 of title rank, 4 of area codes, and the packed columns: category 1, created
        // and modified 5 each, festival start and end 2 each), 4 B of cursor rows (`IDRW`), 10 B of
        // `CodeFamily` codes, about 2 B of fixed parts at this size (73 B), then 16 B for
        // the four stored orders (`SortOrders`, 4 B each) and the table statistics. Format 8: 8 B more for
        // the created and modified orders split by category (`CategoryOrder`).
        #expect(perPlace < 100, "\(perPlace) bytes per place")
        // The title postings: at most two keys a folded unit (a syllable and its initial consonant), 4 B each.
        let units = Self.mapped.table.foldedTitles().units.count
        #expect(postings <= 8 * units + 4 * (Hangul.initialCount + 1) * 1000, "\(postings) bytes of postings")
    }
}
