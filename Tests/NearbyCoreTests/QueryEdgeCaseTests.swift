import NearbyTestSupport
import Testing

@testable import NearbyCore

/// Boundary cases of the memory engine, each checked against `QueryBruteForce` (and exact expectations).
@Suite struct QueryEdgeCaseTests {
    static func place(_ id: Int, _ lat: Double, _ lon: Double, title: String = "곳") -> Place {
        Place(id: String(id), title: title, lat: lat, lon: lon, category: 12)
    }

    /// Places at the poles, on both sides of the antimeridian, and a grid elsewhere.
    static let places: [Place] = {
        var ps: [Place] = []
        var id = 1
        for lat in stride(from: -90.0, through: 90, by: 7.5) {
            for lon in stride(from: -180.0, through: 180, by: 15) {
                ps.append(place(id, lat, lon))
                id += 1
            }
        }
        for (lat, lon) in [
            (89.999, 10.0), (89.999, -170.0), (-89.999, 45.0), (10, 179.999), (10, -179.999), (10.001, 180),
            (9.999, -180),
        ] {
            ps.append(place(id, lat, lon))
            id += 1
        }
        return ps
    }()

    func check(_ q: PlaceQuery, _ places: [Place] = Self.places, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let expected = QueryBruteForce(places).page(q)
        for engine in [MemoryEngine(places: places), MemoryEngine(places: places, indexed: false)] {
            let a = try engine.run(q)
            #expect(
                QueryBruteForce.Answer(total: a.total, ids: a.places.map(\.id), distances: a.distances) == expected,
                sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [DistanceModel.haversine, .geodesic])
    func polesAndAntimeridian(model: DistanceModel) throws {
        for (lat, lon) in [(90.0, 0.0), (-90.0, 0.0), (10.0, 180.0), (10.0, -180.0), (0.0, 179.9)] {
            let c = Coordinate(lat: lat, lon: lon)
            for r in [0.0, 1000, 500_000, 2_000_000] {
                try check(PlaceQuery(center: c, shape: .radius(r), distance: model))
                try check(PlaceQuery(center: c, shape: .radius(r), limit: 5, distance: model))
            }
            try check(PlaceQuery(center: c, shape: .knn(k: 12, maxDistance: nil), distance: model))
        }
    }

    @Test func radiusAcrossTheAntimeridianFindsBothSides() throws {
        let q = PlaceQuery(center: Coordinate(lat: 10, lon: 180), shape: .radius(1000))
        let ids = Set(
            try MemoryEngine(places: Self.places).run(q).places.map { ($0.lat, $0.lon) }.map { "\($0.0),\($0.1)" })
        #expect(ids == ["10.0,179.999", "10.0,-179.999", "10.001,180.0", "9.999,-180.0"])
        try check(q)
    }

    @Test func bboxCrossingTheAntimeridian() throws {
        let box = GeoBox(minLon: 170, minLat: -20, maxLon: -170, maxLat: 20)
        let q = PlaceQuery(filter: PlaceFilter(bbox: box), order: PlaceOrder(parsing: "title")!)
        let answer = try MemoryEngine(places: Self.places).run(q)
        #expect(answer.total! > 0)
        #expect(answer.places.allSatisfy { abs($0.lon) >= 170 && abs($0.lat) <= 20 })
        try check(q)
        try check(PlaceQuery(center: Coordinate(lat: 0, lon: 175), filter: PlaceFilter(bbox: box), limit: 3))
    }

    @Test func radiusLargerThanHalfTheEarthFindsEverything() throws {
        let q = PlaceQuery(center: Coordinate(lat: 37.5, lon: 127), shape: .radius(25_000_000))
        #expect(try MemoryEngine(places: Self.places).run(q).total == Self.places.count)
        try check(q)
        try check(PlaceQuery(center: Coordinate(lat: 37.5, lon: 127), shape: .radius(25_000_000), limit: 10, page: 4))
    }

    @Test func radiusZeroFindsExactlyTheCentre() throws {
        let q = PlaceQuery(center: Coordinate(lat: 10, lon: 179.999), shape: .radius(0))
        #expect(try MemoryEngine(places: Self.places).run(q).places.map(\.lat) == [10])
        try check(q)
    }

    /// Circles with no filter in distance order (the engine's plain-circle plan) at their edges: radii
    /// exactly at places' distances and an ulp either side, every limit kind, pages past the end,
    /// answers over the counting walk's budget (then best-first), both distance models.
    @Test(arguments: [DistanceModel.haversine, .geodesic])
    func plainCirclesAtTheirEdges(model: DistanceModel) throws {
        var g = QuerySampler(seed: 31)
        let places = g.places(2500)
        let reference = QueryBruteForce(places)
        let engine = MemoryEngine(places: places)
        for p in places.prefix(6) {
            let c = Coordinate(lat: p.lat, lon: p.lon)
            let sorted = reference.all(PlaceQuery(center: c, distance: model)).distances.compactMap { $0 }
            // 64 and 65 matches: a page collected wholly on the stack, and one that spills (`circlePage`).
            for d in [sorted[0], sorted[1], sorted[40], sorted[63], sorted[64], sorted[400], sorted[2000]] {
                for r in [d, d.nextDown, d.nextUp] where r >= 0 {
                    let whole = reference.all(PlaceQuery(center: c, shape: .radius(r), distance: model))
                    for (limit, page) in [(0, 1), (0, 3), (1, 1), (7, 2), (30, 1), (30, 200), (100, 1)] {
                        let q = PlaceQuery(center: c, shape: .radius(r), limit: limit, page: page, distance: model)
                        let a = try engine.run(q)
                        #expect(
                            QueryBruteForce.Answer(total: a.total, ids: a.places.map(\.id), distances: a.distances)
                                == reference.page(q, of: whole),
                            "r=\(r) limit \(limit) page \(page)")
                    }
                }
            }
        }
    }

    @Test func manyPlacesAtOnePointAreOrderedById() throws {
        let ids = [5, 300, 12, 7, 1000, 2, 44, 45, 3]
        let same = ids.map { Self.place($0, 37.5, 127) } + [Self.place(1, 37.6, 127)]
        let engine = MemoryEngine(places: same)
        let q = PlaceQuery(center: Coordinate(lat: 37.5, lon: 127), shape: .radius(10), limit: 4, page: 2)
        #expect(try engine.run(q).places.map(\.id) == ["12", "44", "45", "300"])
        try check(q, same)
        try check(PlaceQuery(center: Coordinate(lat: 37.5, lon: 127), shape: .knn(k: 3, maxDistance: nil)), same)
    }

    @Test func emptyCacheAndKLargerThanTheCache() throws {
        let empty = MemoryEngine(places: [])
        let c = Coordinate(lat: 37.5, lon: 127)
        for shape in [QueryShape.all, .radius(1000), .knn(k: 10, maxDistance: nil)] {
            let a = try empty.run(PlaceQuery(center: c, shape: shape, limit: 10))
            #expect(a.total == 0 && a.places.isEmpty && a.nextCursor == nil)
        }
        let a = try MemoryEngine(places: Self.places).run(
            PlaceQuery(center: c, shape: .knn(k: 100_000, maxDistance: nil)))
        #expect(a.total == Self.places.count)
        try check(PlaceQuery(center: c, shape: .knn(k: 100_000, maxDistance: nil), limit: 50, page: 2))
    }

    @Test func idsOrderNumbersFirstThenText() {
        let ids = ["b", "10", "9", "a", "0010", "100", "Z", "1"]
        let table = PlaceTable(ids.map { Place(id: $0, title: "", lat: 0, lon: 0, category: 1) })
        #expect(table.places.map(\.id) == ["1", "9", "0010", "10", "100", "Z", "a", "b"])
        #expect(table.row(ofId: "0010") == 2 && table.row(ofId: "10") == 3 && table.row(ofId: "nope") == nil)
    }

    @Test func invalidQueriesAreRefused() {
        let engine = MemoryEngine(places: Self.places)
        #expect(throws: RequestError.self) { try engine.run(PlaceQuery(order: PlaceOrder([SortKey(.distance)]))) }
        #expect(throws: RequestError.self) { try engine.run(PlaceQuery(center: Coordinate(lat: 91, lon: 0))) }
        #expect(throws: RequestError.self) {
            try engine.run(PlaceQuery(center: Coordinate(lat: 0, lon: 0), shape: .radius(-1)))
        }
        #expect(throws: RequestError.self) {
            try engine.run(PlaceQuery(center: Coordinate(lat: 0, lon: 0), shape: .radius(.nan)))
        }
        #expect(throws: RequestError.self) {
            try engine.run(PlaceQuery(filter: PlaceFilter(accessibility: ["teleporter"])))
        }
        #expect(throws: RequestError.self) { try engine.run(PlaceQuery(limit: 5, cursor: "garbage")) }
    }

    @Test func aCursorOfAnotherQueryOrGenerationIsRefused() throws {
        let q = PlaceQuery(center: Coordinate(lat: 0, lon: 0), limit: 5)
        let cursor = try #require(try MemoryEngine(places: Self.places).run(q).nextCursor)
        var other = q
        other.cursor = cursor
        other.limit = 6
        #expect(throws: RequestError.self) { try MemoryEngine(places: Self.places).run(other) }
        var same = q
        same.cursor = cursor
        #expect(throws: RequestError.self) { try MemoryEngine(places: Self.places, generation: 2).run(same) }
        #expect(try MemoryEngine(places: Self.places).run(same).page == 2)
    }

    @Test func sortSyntaxAndArrangeCodes() {
        #expect(
            PlaceOrder(parsing: "title,-modified")?.keys == [SortKey(.title), SortKey(.modified, descending: true)])
        #expect(PlaceOrder(parsing: "+created")?.keys == [SortKey(.created)])
        #expect(PlaceOrder(parsing: "title,title") == nil)
        #expect(PlaceOrder(parsing: "price") == nil)
        #expect(PlaceOrder(parsing: "") == nil)
        #expect(Arrange.C.order.keys == [SortKey(.modified, descending: true)])
        #expect(Arrange.S.order.keys == [SortKey(.distance)] && Arrange.S.requiresImage && !Arrange.E.requiresImage)
    }

    @Test func dateBounds() {
        #expect(DateBound.timestamp("2025-05-05") == 20_250_505_000_000)
        #expect(DateBound.timestamp("20250505", endOfDay: true) == 20_250_505_235_959)
        #expect(DateBound.timestamp("20250505123000") == 20_250_505_123_000)
        #expect(DateBound.timestamp("2025-13-01") == nil && DateBound.timestamp("2025505") == nil)
        // One date rule (TourDate): field ranges, not the calendar, so 30 February is a day here as in import.
        #expect(
            DateBound.day("2025-05-05") == 20_250_505 && DateBound.day("20250230") == nil
                && DateBound.day("20250132") == nil)
    }
}
