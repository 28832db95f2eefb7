import Foundation
import NearbyTestSupport
import Testing

@testable import NearbyCore

/// Every plan of a query over every place (column scan, order walk, the planner's choice) gives the
/// brute force's answer, in memory and from a snapshot, with and without its stored orders; the
/// explanation names the plan.
@Suite struct QueryPlannerTests {
    static let places: [Place] = {
        var g = QuerySampler(seed: 15)
        return g.places(2000)
    }()
    static let byId = Dictionary(uniqueKeysWithValues: places.map { ($0.id, $0) })
    static let reference = QueryBruteForce(places)
    static let memory = MemoryEngine(places: places.shuffled())
    static let stamp = IndexSnapshot.Stamp(identity: 0x0D, generation: 1)
    static let folder: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nearby-planner-\(getpid())").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()
    static let snapshot: String = {
        let path = folder + "/orders.nearby-index"
        try! IndexSnapshot.write(places.shuffled(), stamp: stamp, to: path)
        return path
    }()
    static let mapped = try! open(snapshot)
    /// The same snapshot with its order and statistics sections renamed: as one written before them.
    static let mappedWithoutOrders: MemoryEngine = {
        let path = folder + "/old.nearby-index"
        var bytes = [UInt8](FileManager.default.contents(atPath: snapshot)!)
        let k = bytes[12..<16].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        let hidden = Set(
            (SortOrders.fields.map { SortOrders.tag(of: $0) } + CategoryOrder.fields.map { CategoryOrder.tag(of: $0) }
                + [TableStatistics.categoryTag, TableStatistics.areaTag, TitlePostings.keysTag])
                .map { Array($0.utf8) })
        for i in 0..<k {
            let e = IndexSnapshot.headerSize + IndexSnapshot.entrySize * i
            if hidden.contains(Array(bytes[e..<e + 4])) { bytes[e] = UInt8(ascii: "x") }
        }
        let tableEnd = IndexSnapshot.headerSize + IndexSnapshot.entrySize * k
        let checksum = bytes.withUnsafeBytes { SnapshotHash.of(UnsafeRawBufferPointer(rebasing: $0[0..<tableEnd])) }
        withUnsafeBytes(of: checksum.littleEndian) { for (n, b) in $0.enumerated() { bytes[tableEnd + n] = b } }
        precondition(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "could not write \(path)")
        return try! open(path)
    }()

    /// The same snapshot with its title order naming a row outside the table (checksums made to match,
    /// as damage no checksum can see).
    static let mappedWithDamagedOrder: MemoryEngine = {
        let path = folder + "/damaged.nearby-index"
        var bytes = [UInt8](FileManager.default.contents(atPath: snapshot)!)
        func integer(_ at: Int, _ size: Int) -> Int { (0..<size).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        let k = integer(12, 4)
        let entry = (0..<k).map { IndexSnapshot.headerSize + IndexSnapshot.entrySize * $0 }
            .first { Array(bytes[$0..<$0 + 4]) == Array(SortOrders.tag(of: .title).utf8) }!
        let offset = integer(entry + 8, 8)
        for n in 0..<4 { bytes[offset + n] = 0xFF }
        IndexSnapshot.reseal(&bytes)
        precondition(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "could not write \(path)")
        return try! open(path)
    }()

    static func open(_ path: String) throws -> MemoryEngine {
        try IndexSnapshot.engine(path, wanted: stamp) { ids in ids.compactMap { byId[$0] } }
    }

    static func answer(_ a: QueryAnswer) -> QueryBruteForce.Answer {
        QueryBruteForce.Answer(total: a.total, ids: a.places.map(\.id), distances: a.distances)
    }

    /// Queries an order walk can answer: every place, filters, no key or a first key with a stored
    /// order, sometimes a range on the sort key, sometimes a centre (distances on the rows).
    static func walkableQuery(_ g: inout QuerySampler) -> PlaceQuery {
        var q = PlaceQuery()
        if g.chance(0.2) { q.center = Coordinate(lat: 37.5665, lon: 126.9780) }
        q.filter = g.chance(0.3) ? PlaceFilter() : g.filter()
        if g.chance(0.3) {
            q.filter = PlaceFilter(categories: Set([g.pick(QuerySampler.categories), g.pick(QuerySampler.categories)]))
        }
        if g.chance(0.15) {
            q.filter = PlaceFilter(areacodes: [String(g.int(1...9))])
            if g.chance(0.5) { q.filter.withImage = true }
        }
        let field = g.pick([SortField?.none, .title, .modified, .created, .category])
        if let field { q.order = PlaceOrder([SortKey(field, descending: g.chance(0.5))]) }
        if let field, g.chance(0.3) {
            // A second key: the walk sorts each run of equal first keys by it.
            let second = g.pick([SortField.title, .modified, .created, .category].filter { $0 != field })
            q.order.keys.append(SortKey(second, descending: g.chance(0.5)))
        }
        if g.chance(0.3), field == .created || field == .modified {
            let a = Int64(g.int(2015...2024)) * 10_000_000_000 + 0101_000000
            let range = a...(a + Int64(g.int(1...3)) * 10_000_000_000)
            if field == .created { q.filter.created = range } else { q.filter.modified = range }
        }
        q.limit = g.pick([0, 1, 10, 30, 100])
        q.page = q.limit == 0 ? 1 : g.int(1...4)
        if g.chance(0.2) { q.countsTotal = false }
        return q
    }

    @Test func everyPlanGivesTheBruteForceAnswer() throws {
        var g = QuerySampler(seed: 1515)
        for n in 0..<300 {
            let q = Self.walkableQuery(&g)
            let expected = Self.reference.page(q)
            for engine in [Self.memory, Self.mapped, Self.mappedWithoutOrders] {
                for plan in [PlanChoice.scan, .orderWalk, .cheapest] {
                    let got = try engine.run(q, plan: plan)
                    #expect(Self.answer(got) == expected, "query \(n), plan \(plan): \(q)")
                    if Self.answer(got) != expected { return }
                }
            }
        }
    }

    /// A stored order naming a row outside the table is not used: title-sorted pages are scanned and
    /// still give the brute force's answer (walking it would stop the process on a precondition).
    @Test func aDamagedStoredOrderIsNotUsed() throws {
        var q = PlaceQuery()
        q.order = PlaceOrder([SortKey(.title)])
        q.limit = 10
        for plan in [PlanChoice.orderWalk, .cheapest] {
            #expect(try Self.answer(Self.mappedWithDamagedOrder.run(q, plan: plan)) == Self.reference.page(q))
        }
    }

    @Test func theRandomQueriesOfEveryShapeToo() throws {
        var g = QuerySampler(seed: 1516)
        for n in 0..<150 {
            let q = g.query(model: .haversine)
            let expected = Self.reference.page(q)
            for plan in [PlanChoice.scan, .orderWalk, .cheapest, .categoryRuns, .postings] {
                let got = try Self.mapped.run(q, plan: plan)
                #expect(Self.answer(got) == expected, "query \(n), plan \(plan): \(q)")
                if Self.answer(got) != expected { return }
            }
        }
    }

    @Test func explainNamesThePlanAndTheRowsTouched() throws {
        var q = try QueryParameters.parse([
            ("category", "12,39"), ("sort", "-modified"), ("limit", "5"), ("explain", "true"),
        ])
        #expect(q.explain)
        let walked = try #require(try Self.mapped.run(q).explanation)
        #expect(walked.plan.hasPrefix("order walk: modified descending"), "\(walked)")
        #expect(walked.plan.contains("total: category statistics"), "\(walked)")
        #expect(walked.rowsTouched >= 5 && walked.rowsTouched < Self.places.count / 4, "\(walked)")

        q.filter.created = 20_180_101_000_000...20_191_231_235_959
        q.order = PlaceOrder([SortKey(.created)])
        let ranged = try #require(try Self.mapped.run(q).explanation)
        #expect(ranged.plan.contains("by binary search"), "\(ranged)")

        // Without stored orders the same query scans every row.
        let old = try #require(try Self.mappedWithoutOrders.run(q).explanation)
        #expect(old.plan.hasPrefix("column scan") && old.rowsTouched == Self.places.count, "\(old)")

        q.center = Coordinate(lat: 37.5665, lon: 126.9780)
        q.shape = .radius(2000)
        q.order = PlaceOrder([])
        let spatial = try #require(try Self.mapped.run(q).explanation)
        #expect(spatial.plan.hasPrefix("spatial index first"), "\(spatial)")

        q.explain = false
        #expect(try Self.mapped.run(q).explanation == nil)
    }

    /// A circle filtered by category visits the circle on the category's first query (a one-shot process
    /// never pays for a tree it would use once) and uses the category's own tree from the second on,
    /// with the same answer.
    @Test func aCategoryTreeIsBuiltOnItsSecondQuery() throws {
        let engine = MemoryEngine(places: Self.places)
        var q = try QueryParameters.parse([
            ("lat", "37.5665"), ("lon", "126.978"), ("radius", "20000"), ("category", "39"),
            ("limit", "10"), ("explain", "true"),
        ])
        let first = try engine.run(q)
        let second = try engine.run(q)
        #expect(
            first.explanation?.plan.contains("every point of the circle") == true,
            "\(String(describing: first.explanation))")
        #expect(
            second.explanation?.plan.contains("the trees of categories [39]") == true,
            "\(String(describing: second.explanation))")
        q.explain = false
        #expect(Self.answer(first) == Self.reference.page(q) && Self.answer(second) == Self.reference.page(q))
    }

    /// Without a total (`total=none`) a filtered title page stops once it is full (one row more tells
    /// that a next page exists) instead of counting every row, and its rows and cursor are the counted
    /// query's.
    @Test func withoutATotalAWalkStopsWhenThePageIsFull() throws {
        var q = try QueryParameters.parse([
            ("with-image", "true"), ("sort", "title"), ("limit", "5"), ("page", "2"),
            ("total", "none"), ("explain", "true"),
        ])
        #expect(!q.countsTotal)
        let uncounted = try Self.mapped.run(q)
        let walk = try #require(uncounted.explanation)
        #expect(walk.plan.contains("order walk: title ascending") && walk.plan.contains("not counted"), "\(walk)")
        #expect(walk.rowsTouched < Self.places.count / 4, "\(walk)")
        #expect(uncounted.total == nil && uncounted.rows.count == 5)
        q.countsTotal = true
        let counted = try Self.mapped.run(q)
        #expect(try #require(counted.explanation).rowsTouched >= Self.places.count)
        #expect(counted.places.map(\.id) == uncounted.places.map(\.id) && counted.nextCursor == uncounted.nextCursor)
        #expect(counted.nextCursor != nil)
        // The last page: no next cursor, though the walk found no row past it.
        let pages = (counted.total! + 4) / 5
        q.page = pages
        q.countsTotal = false
        let last = try Self.mapped.run(q)
        #expect(last.next == nil && last.rows.count == counted.total! - (pages - 1) * 5)
        // The parser takes exact and none only.
        #expect(throws: RequestError.self) { try QueryParameters.parse([("total", "some")]) }
    }

    /// A page of one area walks that area's run of the order split by area from the second such
    /// query on, reading about the page's rows; the answer is the brute force's either way.
    @Test func aPageOfOneAreaWalksThatAreasRun() throws {
        let engine = MemoryEngine(places: Self.places)
        var q = try QueryParameters.parse([
            ("areacode", "3"), ("with-image", "true"), ("sort", "-title"), ("limit", "5"),
            ("page", "2"), ("total", "none"), ("explain", "true"),
        ])
        let first = try engine.run(q)
        let second = try engine.run(q)
        let (a, b) = (try #require(first.explanation), try #require(second.explanation))
        #expect(
            !a.plan.contains("within areacode") && b.plan.contains("title descending within areacode 3"), "\(a) / \(b)")
        #expect(b.rowsTouched < a.rowsTouched && b.rowsTouched <= 40, "\(a) / \(b)")
        q.explain = false
        #expect(Self.answer(first) == Self.reference.page(q) && Self.answer(second) == Self.reference.page(q))
        // Counted: the total is the area's run filtered, not every row.
        q.countsTotal = true
        q.explain = true
        let counted = try engine.run(q)
        #expect(counted.explanation!.rowsTouched < Self.places.count / 2, "\(counted.explanation!)")
        q.explain = false
        #expect(Self.answer(counted) == Self.reference.page(q))
    }

    @Test func explainIsNoPartOfTheCursor() throws {
        var q = PlaceQuery(order: PlaceOrder([SortKey(.title)]), limit: 10)
        let plain = PageCursor.fingerprint(of: q, generation: 1)
        q.explain = true
        #expect(PageCursor.fingerprint(of: q, generation: 1) == plain)
        q.countsTotal = false
        #expect(PageCursor.fingerprint(of: q, generation: 1) == plain)
        #expect(try QueryParameters.parse(QueryParameters.render(q)) == q)
    }
}
