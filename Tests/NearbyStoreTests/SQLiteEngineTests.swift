import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// The SQLite engine answers exactly what the in-memory engine answers, on a real cache file.
@Suite struct SQLiteEngineTests {
    /// A cache in a fresh temporary folder holding `places`; the folder goes when the caller drops it.
    static func cache(_ places: [Place]) throws -> (PlaceCache, TempFolder) {
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("cache.sqlite"))
        try cache.write { w in for p in places { try w.upsert(p) } }
        return (cache, dir)
    }

    @Test(arguments: [DistanceModel.haversine, .geodesic, .projected(.korea2000), .projected(.utm)])
    func sameAnswersAsTheMemoryEngine(model: DistanceModel) throws {
        var g = QuerySampler(seed: 99)
        let places = g.places(1200)
        let (cache, dir) = try Self.cache(places)
        defer { withExtendedLifetime(dir) {} }
        let key = try cache.cursorKey()
        let memory = MemoryEngine(places: try cache.allPlaces(), generation: try cache.generation(), cursorKey: key)
        let sqlite = SQLiteEngine(cache: cache, cursorKey: key)
        for n in 0..<60 {
            let q = g.query(model: model)
            let m = try memory.run(q)
            let s = try sqlite.run(q)
            #expect(m == s, "query \(n): \(q)")
            if m != s { return }
            // Cursors are interchangeable: same query, same cache generation.
            if let next = m.nextCursor {
                var resumed = q
                resumed.cursor = next
                #expect(try memory.run(resumed) == sqlite.run(resumed))
            }
        }
    }

    @Test func edgesOfTheSearchBox() throws {
        let places = [(89.9, 0.0), (89.9, 180.0), (-89.9, -90.0), (0.0, 179.99), (0.0, -179.99), (0.0, 0.0), (45, 90)]
            .enumerated().map {
                Place(id: String($0.offset + 1), title: "p", lat: $0.element.0, lon: $0.element.1, category: 12)
            }
        let (cache, dir) = try Self.cache(places)
        defer { withExtendedLifetime(dir) {} }
        let memory = MemoryEngine(places: places, generation: try cache.generation())
        let sqlite = SQLiteEngine(cache: cache)
        for (lat, lon) in [(90.0, 0.0), (0.0, 180.0), (0.0, -179.995), (-90.0, 0.0), (45, 90)] {
            for r in [0.0, 1000, 30_000, 5_000_000, 30_000_000] {
                let q = PlaceQuery(center: Coordinate(lat: lat, lon: lon), shape: .radius(r))
                #expect(try memory.run(q) == sqlite.run(q), "\(q)")
            }
            for k in [1, 3, 100] {
                let q = PlaceQuery(center: Coordinate(lat: lat, lon: lon), shape: .knn(k: k, maxDistance: nil))
                #expect(try memory.run(q) == sqlite.run(q), "\(q)")
            }
        }
        let box = PlaceQuery(filter: PlaceFilter(bbox: GeoBox(minLon: 179, minLat: -1, maxLon: -179, maxLat: 1)))
        #expect(try sqlite.run(box).places.map(\.id) == ["4", "5"])
    }

    @Test func searchBoxesHoldTheCircle() {
        let boxes = SQLiteEngine.searchBoxes(around: Coordinate(lat: 0, lon: 179.9), radius: 50_000)
        #expect(boxes.count == 2 && boxes.allSatisfy { $0.minLon <= $0.maxLon })
        #expect(
            SQLiteEngine.searchBoxes(around: Coordinate(lat: 89.9, lon: 0), radius: 50_000)
                .first.map { $0.minLon == -180 && $0.maxLon == 180 && $0.maxLat == 90 } == true)
        #expect(SQLiteEngine.searchBoxes(around: Coordinate(lat: 37, lon: 127), radius: 30_000_000).count == 1)
    }
}
