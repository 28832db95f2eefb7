import Foundation
import NearbyTestSupport
import Testing

@testable import NearbyCore

/// Personal conditions and sort keys on the memory engine (indexed, and in the SQLite engine's scan
/// mode) against `QueryBruteForce`, for several generated users of hundreds to thousands of items.
@Suite struct PersonalQueryTests {
    // The places and engines of `QueryPropertyTests`, built once for both suites.
    static var places: [Place] { QueryPropertyTests.places }
    static var indexed: MemoryEngine { QueryPropertyTests.indexed }
    static var scanned: MemoryEngine { QueryPropertyTests.scanned }
    static var reference: QueryBruteForce { QueryPropertyTests.reference }
    static let users: [PersonalData] = {
        var g = QuerySampler(seed: 99)
        return [("me", 40), ("ana", 300), ("bo", 1200), ("cy", 3000)].map {
            g.personalData(user: $0.0, places: places, items: $0.1)
        }
    }()

    static func answer(_ a: QueryAnswer) -> QueryBruteForce.Answer {
        QueryBruteForce.Answer(total: a.total, ids: a.places.map(\.id), distances: a.distances)
    }

    /// A circle around one of the places (500 m, 5 km or 50 km) for `data`'s user, one of `limits` a page.
    static func userCircle(
        _ g: inout QuerySampler, _ data: PersonalData, model: DistanceModel, limits: [Int]
    ) -> PlaceQuery {
        let centre = g.pick(places)
        var q = PlaceQuery(
            center: Coordinate(lat: centre.lat, lon: centre.lon), shape: .radius(g.pick([500, 5_000, 50_000])),
            limit: g.pick(limits))
        q.distance = model
        q.personal.user = data.user
        q.personalData = PersonalDataRef(data)
        return q
    }

    /// Expects query `i` to answer as the brute force on both engines; whether the indexed engine
    /// took the plan named `plan`.
    static func matchBruteForce(_ q: PlaceQuery, _ i: Int, plan: String) throws -> Bool {
        let expected = reference.page(q)
        var took = false
        for engine in [indexed, scanned] {
            var explained = q
            explained.explain = true
            let a = try engine.run(explained)
            #expect(answer(a) == expected, "query \(i): \(QueryParameters.render(q))")
            if engine === indexed { took = a.explanation?.plan.hasPrefix(plan) == true }
        }
        return took
    }

    @Test(arguments: [DistanceModel.haversine, .geodesic, .projected(.korea2000)])
    func randomPersonalQueriesMatchBruteForce(model: DistanceModel) throws {
        var g = QuerySampler(seed: 500 + UInt64(model.description.count))
        var nonEmpty = 0
        for n in 0..<60 {
            let q = g.personalQuery(model: model, data: Self.users[n % Self.users.count])
            let expected = Self.reference.page(q)
            if !expected.ids.isEmpty { nonEmpty += 1 }
            for engine in [Self.indexed, Self.scanned] {
                let got = Self.answer(try engine.run(q))
                #expect(got == expected, "query \(n): \(QueryParameters.render(q))")
                if got != expected { return }
            }
        }
        #expect(nonEmpty > 15, "the sampled queries select something")
    }

    /// Circles in an order led by a personal key, descending (`--sort -rating,distance`: the plan that
    /// reads the user's items by value), with and without conditions that keep only items or a place
    /// filter, small and large, pages 1–3: the brute force's answers, and that plan taken for most.
    @Test(arguments: [DistanceModel.haversine, .geodesic])
    func circlesLedByAPersonalKeyDescendingMatchBruteForce(model: DistanceModel) throws {
        var g = QuerySampler(seed: 7070)
        var taken = 0
        let n = 120
        for i in 0..<n {
            let data = Self.users[i % Self.users.count]
            var q = Self.userCircle(&g, data, model: model, limits: [1, 3, 30])
            q.page = g.int(1...3)
            let first = g.pick([SortField.rating, .bookmarked, .memo, .visited])
            q.order = PlaceOrder(
                [SortKey(first, descending: true)]
                    + g.pick([
                        [], [SortKey(.distance)], [SortKey(.title)], [SortKey(.rating, descending: g.chance(0.5))],
                    ]))
            switch g.int(0...4) {
            case 0: q.personal.minRating = Double(g.int(2...10)) / 2
            case 1: q.personal.bookmarked = true
            case 2: q.personal.bookmarkedIn = g.pick(QuerySampler.lists)
            case 3 where g.chance(0.5): q.filter = g.filter()
            default: break
            }
            if try Self.matchBruteForce(q, i, plan: "personal order first") { taken += 1 }
        }
        #expect(taken > n / 3, "the plan answers most of them (\(taken) of \(n))")
    }

    /// Circles in distance order kept to the user's items (bookmarked, in a list, rated), with no place
    /// filter (the items' own coordinates, nothing else tested) or with one: the brute force's
    /// answers, and the items' plan taken.
    @Test(arguments: [DistanceModel.haversine, .geodesic])
    func circlesOfTheUsersItemsMatchBruteForce(model: DistanceModel) throws {
        var g = QuerySampler(seed: 9191)
        var taken = 0
        let n = 120
        for i in 0..<n {
            let data = Self.users[i % Self.users.count]
            var q = Self.userCircle(&g, data, model: model, limits: [1, 3, 30, 0])
            q.page = q.limit == 0 ? 1 : g.int(1...3)
            switch g.int(0...2) {
            case 0: q.personal.minRating = Double(g.int(2...10)) / 2
            case 1: q.personal.bookmarked = true
            default: q.personal.bookmarkedIn = g.pick(QuerySampler.lists)
            }
            if g.chance(0.3) { q.filter = g.filter() }
            if try Self.matchBruteForce(q, i, plan: "personal items first") { taken += 1 }
        }
        #expect(taken > n / 2, "the plan answers most of them (\(taken) of \(n))")
    }

    @Test func cursorPagesOfPersonalQueriesConcatenate() throws {
        var g = QuerySampler(seed: 4242)
        for n in 0..<20 {
            var q = g.personalQuery(model: .haversine, data: Self.users[2 + n % 2])
            let full = Self.reference.all(q)
            q.limit = max(1, full.ids.count / 3)
            q.page = 1
            for engine in [Self.indexed, Self.scanned] {
                var answer = try engine.run(q)
                var ids = answer.places.map(\.id)
                while let next = answer.nextCursor, ids.count <= full.ids.count {
                    var resumed = q
                    resumed.cursor = next
                    answer = try engine.run(resumed)
                    ids += answer.places.map(\.id)
                }
                #expect(ids == full.ids, "\(QueryParameters.render(q))")
            }
        }
    }

    @Test func aCursorBelongsToItsUser() throws {
        var q = try QueryParameters.parse([("bookmarked", "true"), ("limit", "2"), ("user", "bo")])
        q.personalData = PersonalDataRef(Self.users[2])
        let next = try #require(try Self.indexed.run(q).nextCursor)
        var other = try QueryParameters.parse([("bookmarked", "true"), ("limit", "2"), ("user", "cy")])
        other.personalData = PersonalDataRef(Self.users[3])
        other.cursor = next
        #expect(throws: RequestError.self) { try Self.indexed.run(other) }
    }

    @Test func aChangedUserDataIsSeenByTheNextQueryOfTheSameEngine() throws {
        var q = try QueryParameters.parse([("bookmarked", "true"), ("limit", "0")])
        q.personalData = PersonalDataRef(PersonalData.empty("me"))
        #expect(try Self.indexed.run(q).places.isEmpty)
        var item = PersonalData.Item()
        item.bookmarks = [.init(list: "default", added: 1)]
        q.personalData = PersonalDataRef(PersonalData(user: "me", items: [Self.places[3].id: item]))
        #expect(try Self.indexed.run(q).places.map(\.id) == [Self.places[3].id])
    }

    @Test func personalParametersWithoutDataAreRefused() throws {
        let q = try QueryParameters.parse([("min-rating", "3")])
        #expect(throws: PersonalDataUnavailable.self) { try Self.indexed.run(q) }
        // A public query needs none.
        #expect(try Self.indexed.run(try QueryParameters.parse([("limit", "1")])).places.count == 1)
    }

    @Test func parserRulesOfThePersonalParameters() throws {
        #expect(throws: RequestError.self) { try QueryParameters.parse([("keyword-in", "memo")]) }
        #expect(throws: RequestError.self) { try QueryParameters.parse([("visited", "true"), ("not-visited", "1")]) }
        #expect(throws: RequestError.self) { try QueryParameters.parse([("min-rating", "6")]) }
        #expect(throws: RequestError.self) { try QueryParameters.parse([("user", "-x")]) }
        #expect(throws: RequestError.self) { try QueryParameters.parse([("keyword", "a"), ("keyword-in", "addr")]) }
        let q = try QueryParameters.parse([("sort", "-rating,distance"), ("lat", "37"), ("lon", "127")])
        #expect(q.order.description == "-rating,distance" && q.usesPersonalData)
    }
}
