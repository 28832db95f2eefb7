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
