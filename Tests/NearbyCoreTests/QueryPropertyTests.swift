import Foundation
import NearbyTestSupport
import Testing

@testable import NearbyCore

/// The memory engine (indexed, and in the scan mode the SQLite engine uses) against `QueryBruteForce`
/// on random queries of every shape, filter and sort key, with each distance model: zero mismatches.
@Suite struct QueryPropertyTests {
    static let places: [Place] = {
        var g = QuerySampler(seed: 7)
        return g.places(1500)
    }()
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
            q.limit = max(1, full.ids.count / g.pick([2, 5, 20]))
            q.page = 1
            for engine in [Self.indexed, Self.scanned] {
                var ids: [String] = []
                var byPage: [String] = []
                var answer = try engine.run(q)
                ids += answer.places.map(\.id)
                var pages = 1
                while let next = answer.nextCursor, pages <= full.ids.count {
                    var resumed = q
                    resumed.cursor = next
                    answer = try engine.run(resumed)
                    #expect(answer.total == full.ids.count)
                    ids += answer.places.map(\.id)
                    pages += 1
                }
                for page in 1...pages {
                    var p = q
                    p.page = page
                    byPage += try engine.run(p).places.map(\.id)
                }
                #expect(ids == full.ids, "cursor pages of \(q)")
                #expect(byPage == full.ids, "numbered pages of \(q)")
                if ids != full.ids || byPage != full.ids { return }
            }
        }
    }

    @Test func aLimitedPageIsThePrefixOfTheFullOrder() throws {
        var q = PlaceQuery(
            center: Coordinate(lat: 37.55, lon: 126.98), shape: .radius(15000),
            order: PlaceOrder(parsing: "title,-modified")!, limit: 30, page: 3)
        let page = try Self.indexed.run(q).places.map(\.id)
        q.limit = 0
        q.page = 1
        #expect(page == Array(try Self.indexed.run(q).places.map(\.id)[60..<90]))
    }
}

/// The same check on the real points of `data/kr_points.tsv` (20,323 Korean towns and villages), with
/// generated attributes: real clustering, real distances across the whole country.
@Suite struct QueryRealPointsTests {
    static let places: [Place] = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        // Columns: code level sido sigungu emd ri lat lon area_km2 (read directly: only the points matter).
        let text = try! String(contentsOf: root.appendingPathComponent("data/kr_points.tsv"), encoding: .utf8)
        let rows = text.split(separator: "\n").dropFirst().map {
            $0.split(separator: "\t", omittingEmptySubsequences: false)
        }
        var g = QuerySampler(seed: 5)
        return zip(rows, g.places(rows.count)).map { cols, generated in
            var p = generated
            p.id = String(cols[0])
            p.title = String(cols[5].isEmpty ? cols[4] : cols[5])
            p.lat = Double(cols[6])!
            p.lon = Double(cols[7])!
            return p
        }
    }()

    @Test(arguments: [DistanceModel.haversine, .geodesic, .projected(.korea2000)])
    func randomQueriesAroundRealTownsMatchBruteForce(model: DistanceModel) throws {
        #expect(Self.places.count > 20_000)
        let engine = MemoryEngine(places: Self.places)
        let reference = QueryBruteForce(Self.places)
        var g = QuerySampler(seed: 31)
        for n in 0..<40 {
            var q = g.query(model: model)
            let town = g.pick(Self.places)
            if q.center != nil { q.center = Coordinate(lat: town.lat, lon: town.lon) }
            if case .radius = q.shape { q.shape = .radius(g.pick([0, 1500, 10_000, 60_000])) }
            let a = try engine.run(q)
            let expected = reference.page(q)
            let got = QueryBruteForce.Answer(total: a.total, ids: a.places.map(\.id), distances: a.distances)
            #expect(got == expected, "query \(n): \(q)")
            if got != expected { return }
        }
    }
}
