import Foundation
import NearbyKit
import NearbyTestSupport
import Testing
@testable import NearbyPostGIS

/// The postgis engine answers exactly what the in-memory engine answers, on a real PostgreSQL with
/// PostGIS (the cluster the tests start, `PostgresCluster`).
@Suite struct PostGISEngineTests {
    /// A new database holding `places`, imported through the writer.
    static func database(_ places: [Place]) throws -> PostGISStore {
        let store = try PostGISStore(url: try PostgresCluster.shared().makeDatabase(), readOnly: false)
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
        for n in 0..<60 {
            let q = g.query(model: model)
            let m = try memory.run(q), p = try engine.run(q)
            #expect(m == p, "query \(n): \(q)")
            if m != p { return }
            // Cursors are interchangeable: same query, same generation, same key.
            if let next = m.nextCursor {
                var resumed = q; resumed.cursor = next
                do { #expect(try memory.run(resumed) == engine.run(resumed), "query \(n): \(q)") } catch {
                    Issue.record("query \(n): \(q): \(error)"); return
                }
            }
        }
    }

    @Test func polesAntimeridianRadiusZeroAndHuge() throws {
        let places = [(89.9, 0.0), (89.9, 180.0), (-89.9, -90.0), (0.0, 179.99), (0.0, -179.99), (0.0, 0.0), (45, 90), (45, 90)]
            .enumerated().map { Place(id: String($0.offset + 1), title: "p", lat: $0.element.0, lon: $0.element.1, category: 12) }
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
                    let q = PlaceQuery(center: Coordinate(lat: lat, lon: lon), shape: .knn(k: k, maxDistance: nil), distance: model)
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
        var next = q; next.cursor = try engine.run(q).nextCursor
        #expect(next.cursor != nil)
        _ = try engine.run(next)
        var moved = places[0]; moved.title = "changed"; moved.modified = "29991231000000"
        _ = try store.write { try $0.upsert(moved) }
        #expect(throws: RequestError.self) { try engine.run(next) }
    }
}
