import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyPostGIS

/// The postgis engine answers exactly what the in-memory engine answers, on a real PostgreSQL with
/// PostGIS (the cluster the tests start, `PostgresCluster`).
@Suite struct PostGISEngineTests {
    /// A new database holding `places`, imported through the writer.
    static func database(_ places: [Place], url: String? = nil) throws -> PostGISStore {
        let store = try PostGISStore(url: try url ?? PostgresCluster.shared().makeDatabase(), readOnly: false)
        _ = try store.write { w in for p in places { try w.upsert(p) } }
        return store
    }

    @Test(arguments: [DistanceModel.haversine, .geodesic, .projected(.korea2000), .projected(.utm)])
    func sameAnswersAsTheMemoryEngine(model: DistanceModel) throws {
        var g = QuerySampler(seed: 77)
        let places = g.places(1200)
        let store = try Self.database(places)
        let engine = try PostGISEngine(store: store)
        let memory = MemoryEngine(places: places, generation: try store.generation(), cursorKey: engine.cursorKey)
        for n in 0..<150 {
            let q = g.query(model: model)
            let m = try memory.run(q)
            let p = try engine.run(q)
            #expect(m == p, "query \(n): \(q)")
            if m != p { return }
            // Cursors are interchangeable: same query, same generation, same key.
            if let next = m.nextCursor {
                var resumed = q
                resumed.cursor = next
                do { #expect(try memory.run(resumed) == engine.run(resumed), "query \(n): \(q)") } catch {
                    Issue.record("query \(n): \(q): \(error)")
                    return
                }
            }
        }
    }

    /// Each filter condition alone (`FilterExamples`), in SQL or refined in Swift, against the memory
    /// engine: a condition `PostGISFilter` neither translates nor leaves to Swift fails here.
    @Test func everyFilterConditionAnswersAsTheMemoryEngine() throws {
        var g = QuerySampler(seed: 2929)
        let places = g.places(1500)
        let store = try Self.database(places)
        let engine = try PostGISEngine(store: store)
        let memory = MemoryEngine(places: places, generation: try store.generation(), cursorKey: engine.cursorKey)
        for c in PlaceFilter.Condition.allCases {
            let f = FilterExamples.filter(c)
            for q in [
                PlaceQuery(filter: f, order: PlaceOrder([SortKey(.title)]), limit: 0),
                PlaceQuery(filter: f, order: PlaceOrder([SortKey(.modified, descending: true)]), limit: 30),
                PlaceQuery(center: Coordinate(lat: 37.57, lon: 126.98), shape: .radius(20_000), filter: f, limit: 30),
            ] {
                let m = try memory.run(q)
                #expect(m.total! > 0, "\(c): no match")
                #expect(try engine.run(q) == m, "\(c): \(q)")
            }
        }
    }

    @Test func polesAntimeridianRadiusZeroAndHuge() throws {
        let places = [
            (89.9, 0.0), (89.9, 180.0), (-89.9, -90.0), (0.0, 179.99), (0.0, -179.99), (0.0, 0.0), (45, 90), (45, 90),
        ]
        .enumerated().map {
            Place(id: String($0.offset + 1), title: "p", lat: $0.element.0, lon: $0.element.1, category: 12)
        }
        let store = try Self.database(places)
        let engine = try PostGISEngine(store: store)
        let memory = MemoryEngine(places: places, generation: try store.generation(), cursorKey: engine.cursorKey)
        for (lat, lon) in [(90.0, 0.0), (0.0, 180.0), (0.0, -179.995), (-90.0, 0.0), (45, 90)] {
            for model in [DistanceModel.haversine, .geodesic] {
                for r in [0.0, 1000, 30_000, 5_000_000, 30_000_000] {
                    let q = PlaceQuery(center: Coordinate(lat: lat, lon: lon), shape: .radius(r), distance: model)
                    #expect(try memory.run(q) == engine.run(q), "\(q)")
                }
                for k in [1, 3, 100] {
                    let q = PlaceQuery(
                        center: Coordinate(lat: lat, lon: lon), shape: .knn(k: k, maxDistance: nil), distance: model)
                    #expect(try memory.run(q) == engine.run(q), "\(q)")
                }
            }
        }
        let box = PlaceQuery(filter: PlaceFilter(bbox: GeoBox(minLon: 179, minLat: -1, maxLon: -179, maxLat: 1)))
        #expect(try engine.run(box).places.map(\.id) == ["4", "5"])
        // Two places at one point, radius 0: both, ordered by id.
        let same = PlaceQuery(center: Coordinate(lat: 45, lon: 90), shape: .radius(0))
        #expect(try engine.run(same).places.map(\.id) == ["7", "8"])
    }

    @Test func emptyDatabaseAnswersNothing() throws {
        let engine = try PostGISEngine(store: try Self.database([]))
        let q = PlaceQuery(center: Coordinate(lat: 37.5, lon: 127), shape: .knn(k: 5, maxDistance: nil))
        #expect(try engine.run(q).total == 0)
        #expect(try engine.run(PlaceQuery()).total == 0)
    }

    /// A cursor from before an import that changed rows is refused as stale, as on a cache.
    @Test func cursorsGoStaleAfterAWrite() throws {
        var g = QuerySampler(seed: 5)
        let places = g.places(200)
        let store = try Self.database(places)
        let engine = try PostGISEngine(store: store)
        let q = PlaceQuery(center: Coordinate(lat: 37.5665, lon: 126.978), shape: .radius(50_000), limit: 5)
        var next = q
        next.cursor = try engine.run(q).nextCursor
        #expect(next.cursor != nil)
        _ = try engine.run(next)
        var moved = places[0]
        moved.title = "changed"
        moved.modified = "29991231000000"
        _ = try store.write { try $0.upsert(moved) }
        #expect(throws: RequestError.self) { try engine.run(next) }
    }
}

/// Sorts, pages and filters pushed into SQL (`PostGISStore.keysetPage`, `PostGISFilter`) give the
/// memory engine's pages, and a cursor from either engine gives the same next page on both.
@Suite struct PostGISKeysetTests {
    /// Places whose sort keys tie often (few titles, dates and categories), with ids of every form
    /// `PlaceTable.idPrecedes` orders: numbers with leading zeros, long numbers, text.
    static func ties() -> [Place] {
        var g = QuerySampler(seed: 41)
        let ids = ["7", "007", "07", "10", "9", "12345678901234567890123", "0", "x1", "x10", "a", "B", "가"]
        return g.places(400).enumerated().map { n, p in
            var p = p
            if n < ids.count { p.id = ids[n] }
            p.title = g.pick(["경복궁", "경복궁 ", "cafe", "Cafe", "café", "63빌딩", "ㄱ"])
            if n % 3 == 0 { p.created = g.pick(["20200101000000", "2020-01-01", nil]) }
            if n % 4 == 0 { p.modified = g.pick(["20240101000000", "garbage", nil]) }
            return p
        }
    }

    @Test func everyPageByCursorEqualsTheMemoryEngine() throws {
        let places = Self.ties()
        let store = try PostGISEngineTests.database(places)
        let engine = try PostGISEngine(store: store)
        let memory = MemoryEngine(places: places, generation: try store.generation(), cursorKey: engine.cursorKey)
        var g = QuerySampler(seed: 9)
        let orders = [
            "", "title", "-modified", "-created", "category,-title", "-title,created", "modified,-category,title",
        ]
        for (n, text) in orders.enumerated() {
            var q = PlaceQuery(
                order: text.isEmpty ? PlaceOrder([]) : PlaceOrder(parsing: text)!, limit: [7, 30, 1][n % 3])
            if n % 2 == 1 { q.filter = g.filter() }
            if n == 3 { q.center = Coordinate(lat: 37.5, lon: 127) }
            var pages = 0
            while true {
                let m = try memory.run(q)
                let p = try engine.run(q)
                #expect(m == p, "\(text) page \(pages + 1): \(q)")
                guard m == p, let next = m.nextCursor else { break }
                q.cursor = next
                pages += 1
            }
            #expect(pages > 0 || q.filter != PlaceFilter(), "\(text): one page only")
        }
        // Page numbers without a cursor, past the end too.
        for page in [1, 2, 5, 60] {
            let q = PlaceQuery(order: PlaceOrder(parsing: "-created")!, limit: 7, page: page)
            #expect(try memory.run(q) == engine.run(q), "page \(page)")
        }
    }

    /// Every filter SQL tests, alone and under each plan (no shape, radius, k nearest), and the ones
    /// left to `MemoryEngine` beside them.
    @Test func filtersInSQLEqualTheMemoryEngine() throws {
        var g = QuerySampler(seed: 17)
        let places =
            Self.ties()
            + g.places(600).map {
                var p = $0
                p.id = "n" + p.id
                return p
            }
        let store = try PostGISEngineTests.database(places)
        let engine = try PostGISEngine(store: store)
        let memory = MemoryEngine(places: places, generation: try store.generation(), cursorKey: engine.cursorKey)
        let c = Coordinate(lat: 37.5665, lon: 126.978)
        for n in 0..<150 {
            var q = PlaceQuery(filter: g.filter(), limit: g.pick([0, 5, 20]))
            switch n % 3 {
            case 1:
                q.center = c
                q.shape = .radius(g.pick([3000, 20000, 500_000]))
            case 2:
                q.center = c
                q.shape = .knn(k: g.pick([1, 10, 100]), maxDistance: nil)
            default: q.order = g.order(hasCentre: false)
            }
            let m = try memory.run(q)
            let p = try engine.run(q)
            #expect(m == p, "query \(n): \(q)")
            if let next = m.nextCursor {
                var resumed = q
                resumed.cursor = next
                #expect(try memory.run(resumed) == engine.run(resumed), "query \(n) resumed: \(q)")
            }
        }
    }

    /// A database of schema 3 with places gets the sort and filter keys on migration, and sorts by them.
    @Test func migrationFillsTheKeys() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.makeDatabase()
        let places = Self.ties()
        _ = try PostGISEngineTests.database(places, url: url)
        try cluster.psql(
            "ALTER TABLE places DROP COLUMN titlekey, DROP COLUMN createdts, DROP COLUMN modifiedts, "
                + "DROP COLUMN eventstartday, DROP COLUMN eventendday, DROP COLUMN titlefold, DROP COLUMN idkey; "
                + "UPDATE nearby_meta SET value = 3 WHERE key = 'schemaVersion'", url: url)
        #expect { try PostGISStore(url: url) } throws: { "\($0)".contains("schema version 3") }
        let engine = try PostGISEngine(store: try PostGISStore(url: url, readOnly: false))
        let memory = MemoryEngine(
            places: places, generation: try engine.store.generation(), cursorKey: engine.cursorKey)
        for order in ["title", "-modified,-created", "category"] {
            let q = PlaceQuery(
                filter: PlaceFilter(created: 20_200_101_000_000...20_251_231_235_959),
                order: PlaceOrder(parsing: order)!, limit: 20)
            #expect(try memory.run(q) == engine.run(q), "\(order)")
        }
    }

    /// A database of schema 4 holds the title keys from before Hanja sorted by their reading: migration
    /// 5 recomputes them, so 기암(基岩)리 sorts among the 기암 titles as in the memory engine.
    @Test func migrationRecomputesHanjaTitleKeys() throws {
        _ = try titleOrderAfterMigration(
            from: 4, titles: ["기암리", "기암(基岩)리", "기암(岐岩)리", "基 1", "기 2", "岐", "기", "丂"],
            staleKeys: "[基岐]", seed: 43)
    }

    /// A database of schema 5 holds the keys from before Han without a reading sorted by radical and
    /// stroke: migration 6 recomputes them (𠀀 U+20000 between 丄 U+4E04 and 丌 U+4E0C, as in ICU).
    @Test func migrationRecomputesHanOrderTitleKeys() throws {
        let titles = try titleOrderAfterMigration(
            from: 5, titles: ["丌", "𠀀", "丄", "𪛙", "丂 1", "基", "기", "A"],
            staleKeys: "[丌𠀀丄𪛙丂]", seed: 44)
        #expect(titles.filter { $0 != "A" } == ["기", "基", "𪛙", "丂 1", "丄", "𠀀", "丌"].filter(titles.contains))
    }

    /// Places titled from `titles`, stored at schema `version` with the keys of titles matching the regex
    /// `staleKeys` emptied (as an older Nearby left them), then opened for writing (which migrates): the
    /// title order must be the memory engine's. Returns the distinct titles in the database's order.
    private func titleOrderAfterMigration(from version: Int, titles: [String], staleKeys: String, seed: UInt64) throws
        -> [String]
    {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.makeDatabase()
        var g = QuerySampler(seed: seed)
        let places = g.places(50).map { p in
            var p = p
            p.title = g.pick(titles)
            return p
        }
        _ = try PostGISEngineTests.database(places, url: url)
        try cluster.psql(
            "UPDATE places SET titlekey = '\\x' WHERE title ~ '\(staleKeys)'; "
                + "UPDATE nearby_meta SET value = \(version) WHERE key = 'schemaVersion'", url: url)
        let engine = try PostGISEngine(store: try PostGISStore(url: url, readOnly: false))
        let memory = MemoryEngine(
            places: places, generation: try engine.store.generation(), cursorKey: engine.cursorKey)
        let q = PlaceQuery(order: PlaceOrder(parsing: "title")!, limit: 50)
        let answer = try engine.run(q)
        #expect(try memory.run(q) == answer)
        return answer.places.map(\.title).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
    }
}

/// Which plan a query gets: the SQL ones whenever SQL can answer exactly.
@Suite struct PostGISPlanTests {
    @Test func plans() throws {
        let c = Coordinate(lat: 37.5, lon: 127)
        var keyword = PlaceFilter(keyword: "ㄱㅂㄱ")
        keyword.cat = ["A05"]
        keyword.pet = ["all"]
        var region = PlaceFilter()
        region.region = AreaFilter(codes: ["11"], box: GeoBox(minLon: 126, minLat: 37, maxLon: 128, maxLat: 38)) {
            lat, _ in lat > 37.5
        }
        let cases: [(PlaceQuery, PostGISEngine.Plan)] = [
            (PlaceQuery(), .keyset),
            (PlaceQuery(filter: keyword, order: PlaceOrder([SortKey(.title)]), limit: 10), .keyset),
            (PlaceQuery(center: c, order: PlaceOrder([SortKey(.modified, descending: true)])), .keyset),
            (PlaceQuery(center: c, order: PlaceOrder([SortKey(.modified)]), distance: .projected(.korea2000)), .scan),
            (PlaceQuery(center: c, shape: .radius(1000), filter: keyword, limit: 10), .distance),
            (PlaceQuery(center: c, shape: .knn(k: 5, maxDistance: nil), distance: .geodesic), .distance),
            (PlaceQuery(center: c), .distance),
            (PlaceQuery(center: c, shape: .radius(1000), order: PlaceOrder([SortKey(.title)])), .scan),
            (PlaceQuery(center: c, shape: .radius(1000), distance: .projected(.utm)), .scan),
            (PlaceQuery(filter: region), .scan),
        ]
        for (q, plan) in cases { #expect(PostGISEngine.plan(q, PostGISFilter(q.filter)) == plan, "\(q)") }
    }
}
