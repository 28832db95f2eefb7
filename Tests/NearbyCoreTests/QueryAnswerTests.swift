import Testing

@testable import NearbyCore

/// `QueryAnswer` keeps an engine's distances beside its rows (`PlaceRows`, the search's own buffer cut
/// to the page): `distance(at:)`, `distances`, equality and hashing must agree with the same answer
/// given its distances as a list (the public initialiser other engines use), and a page cut from a
/// large search must not keep the search's whole buffer alive.
@Suite struct QueryAnswerTests {
    /// 4,000 places on a 0.001° grid around (37.5, 127), three categories.
    private let engine = MemoryEngine(
        places: (0..<4_000).map { i in
            Place(
                id: "p\(i)", title: "t\(i)", lat: 37.5 + Double(i % 64) * 0.001, lon: 127 + Double(i / 64) * 0.001,
                category: 12 + i % 3)
        })
    private let centre = Coordinate(lat: 37.53, lon: 127.03)

    /// The same answer with its distances given as a list.
    private func listed(_ a: QueryAnswer) -> QueryAnswer {
        QueryAnswer(
            total: a.total, rows: a.rows, distances: a.distances, page: a.page, next: a.next, explanation: a.explanation
        )
    }

    @Test func distancesAreTheRowsOwn() throws {
        let queries: [PlaceQuery] = [
            PlaceQuery(center: centre, shape: .radius(300), limit: 30),  // small answer, one page
            PlaceQuery(center: centre, shape: .radius(3_000), limit: 30, page: 3),  // a deep page, best-first
            PlaceQuery(center: centre, shape: .radius(3_000)),  // every match
            PlaceQuery(center: centre, shape: .radius(3_000), filter: PlaceFilter(categories: [13]), limit: 7),
            PlaceQuery(center: centre, shape: .knn(k: 9, maxDistance: nil)),
            PlaceQuery(center: centre, order: PlaceOrder([SortKey(.title)]), limit: 11),  // measured for the page
            PlaceQuery(order: PlaceOrder([SortKey(.title)]), limit: 5),  // no centre: no distances
            PlaceQuery(center: centre, shape: .radius(1)),  // nothing found
        ]
        for q in queries {
            let a = try engine.run(q)
            #expect(a.distances.count == a.rows.count)
            for i in a.rows.indices {
                let d = a.distance(at: i)
                #expect(d == a.distances[i])
                if let d {
                    let p = a.rows[i]
                    #expect(
                        d == Haversine.distance(lat1: centre.lat, lon1: centre.lon, lat2: p.lat, lon2: p.lon), "\(q)")
                }
                #expect((d == nil) == (q.center == nil))
            }
            let b = listed(a)
            #expect(a == b && b == a && a.hashValue == b.hashValue, "\(q)")
        }
    }

    @Test func answersWithOtherDistancesDiffer() throws {
        let a = try engine.run(PlaceQuery(center: centre, shape: .radius(300), limit: 30))
        try #require(a.rows.count > 1)
        var moved = a.distances
        moved[0] = moved[0]!.nextUp
        #expect(a != QueryAnswer(total: a.total, rows: a.rows, distances: moved, page: a.page, next: a.next))
        #expect(
            a
                != QueryAnswer(
                    total: a.total, rows: a.rows, distances: a.distances.map { _ in nil }, page: a.page, next: a.next))
    }

    /// A page of 5 of some 2,000 filtered matches (the buffer the circle's walk filled) and a page of 30
    /// of every match: the answer keeps a buffer of about its own size.
    @Test func aSmallPageOfALargeSearchKeepsASmallBuffer() throws {
        for q in [
            PlaceQuery(center: centre, shape: .radius(20_000), filter: PlaceFilter(categories: [13, 14]), limit: 5),
            PlaceQuery(
                center: centre, shape: .radius(20_000), filter: PlaceFilter(categories: [13, 14]), limit: 5, page: 4),
        ] {
            let a = try engine.run(q)
            #expect(a.rows.count == 5 && a.total! > 2_000)
            #expect(a.rows.rows.capacity <= 4 * a.rows.count + 64, "capacity \(a.rows.rows.capacity)")
        }
    }
}
