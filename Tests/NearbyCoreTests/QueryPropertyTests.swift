import Testing
@testable import NearbyCore

/// The memory engine (indexed, and in the scan mode the SQLite engine uses) against `QueryBruteForce`
/// on random queries of every shape, filter and sort key, with each distance model: zero mismatches.
@Suite struct QueryPropertyTests {
    static let places: [Place] = { var g = QuerySampler(seed: 7); return g.places(1500) }()
    static let indexed = MemoryEngine(places: places)
    static let scanned = MemoryEngine(places: places.reversed(), indexed: false)
    static let reference = QueryBruteForce(places)

    static let models: [DistanceModel] = [.haversine, .geodesic, .projected(.korea2000)]

    @Test(arguments: models)
    func randomQueriesMatchBruteForce(model: DistanceModel) throws {
        var g = QuerySampler(seed: 1000 + UInt64(Self.models.firstIndex(of: model)!))
        for n in 0..<100 {
            let q = g.query(model: model)
            let expected = Self.reference.page(q)
            for engine in [Self.indexed, Self.scanned] {
                let a = try engine.run(q)
                let got = QueryBruteForce.Answer(total: a.total, ids: a.places.map(\.id), distances: a.distances)
                #expect(got == expected, "query \(n): \(q)")
                if got != expected { return }
            }
        }
    }

    @Test(arguments: models)
    func cursorPagesConcatenateToTheFullAnswer(model: DistanceModel) throws {
        var g = QuerySampler(seed: 77)
        for _ in 0..<15 {
            var q = g.query(model: model)
            let full = Self.reference.all(q)
            q.limit = max(1, full.total / g.pick([2, 5, 20])); q.page = 1
            for engine in [Self.indexed, Self.scanned] {
                var ids: [String] = [], byPage: [String] = []
                var answer = try engine.run(q)
                ids += answer.places.map(\.id)
                var pages = 1
                while let next = answer.nextCursor, pages <= full.total {
                    var resumed = q; resumed.cursor = next
                    answer = try engine.run(resumed)
                    #expect(answer.total == full.total)
                    ids += answer.places.map(\.id)
                    pages += 1
                }
                for page in 1...pages {
                    var p = q; p.page = page
                    byPage += try engine.run(p).places.map(\.id)
                }
                #expect(ids == full.ids, "cursor pages of \(q)")
                #expect(byPage == full.ids, "numbered pages of \(q)")
                if ids != full.ids || byPage != full.ids { return }
            }
        }
    }

    @Test func aLimitedPageIsThePrefixOfTheFullOrder() throws {
        var q = PlaceQuery(center: Coordinate(lat: 37.55, lon: 126.98), shape: .radius(15000),
                           order: PlaceOrder(parsing: "title,-modified")!, limit: 30, page: 3)
        let page = try Self.indexed.run(q).places.map(\.id)
        q.limit = 0; q.page = 1
        #expect(page == Array(try Self.indexed.run(q).places.map(\.id)[60..<90]))
    }
}
