import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// Projected distances under CRSs whose scale is far from 1: the SQLite engine's
/// R*Tree box must hold every place the in-memory and snapshot engines find, whatever the CRS's scale.
@Suite struct ProjectedWideningTests {
    /// Places spread over ±0.4° around `centre`, and the three engines over one cache of them.
    static func engines(around centre: (Double, Double), seed: UInt64, count: Int = 1500)
        throws -> (engines: [(String, any QueryEngine)], folder: TempFolder)
    {
        var g = QuerySampler(seed: seed)
        let places = (0..<count).map { i in
            Place(
                id: String(i + 1), title: "p\(i)", lat: centre.0 + g.double(-0.4...0.4),
                lon: centre.1 + g.double(-0.4...0.4) / max(0.05, cos(centre.0 * .pi / 180)), category: 12)
        }
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("cache.sqlite"))
        try cache.write { w in for p in places { try w.upsert(p) } }
        let key = try cache.cursorKey()
        let memory = MemoryEngine(places: try cache.allPlaces(), generation: try cache.generation(), cursorKey: key)
        let snapshot = try CacheSnapshot.engine(for: cache) { _ in }
        return (
            [("memory", memory), ("sqlite", SQLiteEngine(cache: cache, cursorKey: key)), ("snapshot", snapshot)], dir
        )
    }

    /// (centre, CRS): Seoul under every kind of CRS (3035 is Europe's equal-area projection, its
    /// smallest scale at Seoul 0.79), and each polar stereographic CRS
    /// near its pole, where its scale drops to 0.97.
    static let scenes: [((Double, Double), ProjectedCRS)] = [
        ((37.5665, 126.9780), .epsg(3035)), ((37.5665, 126.9780), .epsg(3857)),
        ((37.5665, 126.9780), .korea2000), ((37.5665, 126.9780), .utm), ((37.5665, 126.9780), .epsg(32652)),
        ((37.5665, 126.9780), .epsg(3413)), ((37.5665, 126.9780), .epsg(3031)),
        ((89.5, 40.0), .epsg(3413)), ((-89.5, 100.0), .epsg(3031)), ((84.0, -45.0), .epsg(3857)),
    ]

    @Test(arguments: scenes.indices)
    func enginesAgreeUnderEveryCRS(scene: Int) throws {
        let (centre, crs) = Self.scenes[scene]
        let (engines, dir) = try Self.engines(around: centre, seed: UInt64(scene + 1))
        defer { withExtendedLifetime(dir) {} }
        var g = QuerySampler(seed: 1000 + UInt64(scene))
        var compared = 0
        var nonEmpty = 0
        for n in 0..<40 {
            let c = Coordinate(
                lat: max(-90, min(90, centre.0 + g.double(-0.2...0.2))),
                lon: centre.1 + g.double(-0.2...0.2))
            let shape: QueryShape =
                n % 3 == 2
                ? .knn(k: g.int(1...80), maxDistance: g.chance(0.5) ? g.double(1000...40_000) : nil)
                : .radius(n == 0 ? 5000 : g.double(0...40_000))
            let q = PlaceQuery(center: c, shape: shape, limit: 0, distance: .projected(crs))
            let answers = try engines.map { ($0.0, try $0.1.run(q)) }
            for (name, a) in answers.dropFirst() {
                let same = a == answers[0].1
                #expect(same, "\(crs) \(name) vs memory, query \(n): \(q): totals \(a.total) and \(answers[0].1.total)")
                if !same { return }
            }
            compared += 1
            if !answers[0].1.rows.isEmpty { nonEmpty += 1 }
        }
        #expect(nonEmpty >= compared / 2, "the queries must find places to compare")
    }

    /// `minimumScale` is PROJ's Tissot semi-minor axis: 1 on a transverse Mercator's central meridian
    /// times its scale (0.9996 for UTM and Korea 2000), 1 at EPSG:3035's centre and below 0.9 at Seoul.
    @Test func minimumScaleIsTissotsSemiMinorAxis() throws {
        let korea = try Projection(epsg: 5179)
        #expect(abs(try #require(korea.minimumScale(lat: 37, lon: 127.5)) - 0.9996) < 1e-6)
        let laea = try Projection(epsg: 3035)
        #expect(try #require(laea.minimumScale(lat: 37.5665, lon: 126.978)) < 0.9)
        #expect(abs(try #require(laea.minimumScale(lat: 52, lon: 10)) - 1) < 1e-9)
        // Web Mercator: sec(lat) on its sphere, 2 at 60°.
        #expect(abs(try #require(Projection(epsg: 3857).minimumScale(lat: 60, lon: 0)) - 2) < 1e-9)
    }
}
