import NearbyCore
import Testing

/// WGS84 inverse geodesics against published reference values.
@Suite struct GeodesicTests {
    /// Lines of GeographicLib's GeodTest.dat as quoted in PROJ's `geodtest.c` (Karney, MIT licence):
    /// lat1, lon1, azi1, lat2, lon2, azi2, s12 — exact inputs, reference outputs accurate to ~1e-15.
    static let geodTest: [(Double, Double, Double, Double, Double, Double, Double)] = [
        (35.60777, -139.44815, 111.098748429560326, -11.17491, -69.95921, 129.289270889708762, 8935244.5604818305),
        (55.52454, 106.05087, 22.020059880982801, 77.03196, 197.18234, 109.112041110671519, 4105086.1713924406),
        (-21.97856, 142.59065, -32.44456876433189, 41.84138, 98.56635, -41.84359951440466, 8394328.894657671),
        (-66.99028, 112.2363, 173.73491240878403, -12.70631, 285.90344, 2.512956620913668, 11150344.2312080241),
        (-17.42761, 173.34268, -159.033557661192928, -15.84784, 5.93557, -20.787484651536988, 16076603.1631180673),
        (32.84994, 48.28919, 150.492927788121982, -56.28556, 202.29132, 48.113449399816759, 16727068.9438164461),
        (6.96833, 52.74123, 92.581585386317712, -7.39675, 206.17291, 90.721692165923907, 17102477.2496958388),
        (-87.85331, 85.66836, -65.120313040242748, 66.48646, 16.09921, -4.888658719272296, 17286615.3147144645),
        (-19.79938, -174.47484, 71.167275780171533, -11.99349, -154.35109, 65.589099775199228, 2319004.8601169389),
        (-41.22777, 122.32875, 14.285113402275739, -7.57291, 130.37946, 10.805303085187369, 3812686.035106021),
    ]

    @Test(arguments: 0..<geodTest.count)
    func geodTestLines(_ i: Int) {
        let (lat1, lon1, azi1, lat2, lon2, azi2, s12) = Self.geodTest[i]
        let r = Geodesic.wgs84.inverse(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
        #expect(abs(r.distance - s12) <= 1e-6)
        #expect(abs(r.azimuth1 - azi1) <= 1e-9)
        #expect(abs(r.azimuth2 - azi2) <= 1e-9)
        #expect(Geodesic.wgs84.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2) == r.distance)
    }

    /// JFK to Singapore Changi, the example of geodesic.h; reference values published in the
    /// documentation of geographiclib-rs (`Geodesic::inverse`): 15347512.94051294 m, 3.3057734780176125°,
    /// 177.48784020815515°.
    @Test func jfkToSingapore() {
        let r = Geodesic.wgs84.inverse(lat1: 40.64, lon1: -73.78, lat2: 1.36, lon2: 103.99)
        #expect(abs(r.distance - 15_347_512.94051294) <= 1e-6)
        #expect(abs(r.azimuth1 - 3.3057734780176125) <= 1e-12)
        #expect(abs(r.azimuth2 - 177.48784020815515) <= 1e-12)
    }

    /// Nearly antipodal pairs, where Newton's method needs Karney's special start: GeographicLib's
    /// GeodSolve6, 9, 10, 11 regression cases, published to the millimetre.
    @Test func nearlyAntipodal() {
        let cases: [(Double, Double, Double, Double, Double)] = [
            (88.202499451857, 0, -88.202499451857, 179.981022032992859592, 20003898.214),
            (89.262080389218, 0, -89.262080389218, 179.992207982775375662, 20003925.854),
            (89.333123580033, 0, -89.333123580032997687, 179.99295812360148422, 20003926.881),
            (56.320923501171, 0, -56.320923501171, 179.664747671772880215, 19993558.287),
            (52.784459512564, 0, -52.784459512563990912, 179.634407464943777557, 19991596.095),
            (48.522876735459, 0, -48.52287673545898293, 179.599720456223079643, 19989144.774),
        ]
        for (lat1, lon1, lat2, lon2, s12) in cases {
            #expect(abs(Geodesic.wgs84.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2) - s12) <= 0.5e-3)
        }
        // GeodSolve59: points close to 180° apart in longitude, published to 2.5e-9 m.
        let r = Geodesic.wgs84.inverse(lat1: 5, lon1: 0.00000000000001, lat2: 10, lon2: 180)
        #expect(abs(r.distance - 18345191.174332713) <= 2.5e-9)
    }

    /// Equatorial pairs (GeodSolve33): beyond 179.4° of longitude the shortest path leaves the equator,
    /// and the antipode is reached over the pole. Published to 0.5 m.
    @Test func equatorialAndAntipodal() {
        let g = Geodesic.wgs84
        #expect(abs(g.distance(lat1: 0, lon1: 0, lat2: 0, lon2: 179) - 19_926_189) <= 0.5)
        let r = g.inverse(lat1: 0, lon1: 0, lat2: 0, lon2: 180)
        #expect(abs(r.distance - 20_003_931) <= 0.5)
        #expect(abs(r.azimuth1) <= 0.5e-5)
        #expect(abs(g.distance(lat1: 0, lon1: 0, lat2: 1, lon2: 180) - 19_893_357) <= 0.5)
        // Pole to pole along a meridian: twice the WGS84 quarter meridian, 10,001,965.7293 m.
        let poles = g.distance(lat1: 90, lon1: 0, lat2: -90, lon2: 0)
        #expect(abs(poles - 2 * 10_001_965.7293) <= 1e-3)
        #expect(abs(poles - r.distance) <= 1e-6)
    }

    @Test func coincidentPointsAndPoles() {
        let g = Geodesic.wgs84
        #expect(g.distance(lat1: 37.5665, lon1: 126.978, lat2: 37.5665, lon2: 126.978) == 0)
        #expect(g.distance(lat1: 90, lon1: 0, lat2: 90, lon2: 123) == 0)  // the pole has every longitude
        #expect(g.distance(lat1: -90, lon1: -45, lat2: -90, lon2: 45) == 0)
        // From the pole every meridian is equally long: the quarter meridian.
        for lon in [-180.0, -90, 0, 45, 179.9] {
            #expect(abs(g.distance(lat1: 90, lon1: 0, lat2: 0, lon2: lon) - 10_001_965.7293) <= 1e-3)
        }
    }

    @Test func antimeridianAndSymmetry() {
        let g = Geodesic.wgs84
        let across = g.distance(lat1: 10, lon1: 179.5, lat2: -10, lon2: -179.5)
        let shifted = g.distance(lat1: 10, lon1: -0.5, lat2: -10, lon2: 0.5)
        #expect(abs(across - shifted) <= 1e-8)
        #expect(across < 2_300_000)  // the short way, not round the world
        #expect(g.distance(lat1: 10, lon1: 179.5 - 360, lat2: -10, lon2: -179.5) == across)
        #expect(abs(g.distance(lat1: -10, lon1: -179.5, lat2: 10, lon2: 179.5) - across) <= 1e-8)
    }

    @Test func otherEllipsoid() {
        // GeodSolve33 on a sphere of radius 6.4e6 m (f = 0): the antipode is π·6.4e6 away.
        let sphere = Geodesic(a: 6.4e6, f: 0)
        #expect(sphere.equatorialRadius == 6.4e6 && sphere.flattening == 0)
        #expect(abs(sphere.distance(lat1: 0, lon1: 0, lat2: 0, lon2: 180) - 20_106_193) <= 0.5)
    }
}
