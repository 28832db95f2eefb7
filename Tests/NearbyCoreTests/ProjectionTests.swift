import Foundation
import NearbyCore
import Testing

@Suite struct ProjectionTests {
    /// Reference coordinates from PROJ 9.1.1's cs2cs (proj-bin), e.g.
    /// `echo 37.5665 126.9780 | cs2cs -d 6 EPSG:4326 EPSG:5179`, which prints northing first for
    /// EPSG:5179 (its axis order); stored here as (lat, lon, easting, northing).
    static let korea2000: [(Double, Double, Double, Double)] = [
        (37.5665, 126.9780, 953901.165312, 1952032.080979),  // Seoul City Hall
        (35.1796, 129.0756, 1143467.379665, 1688281.982072),  // Busan
        (33.4996, 126.5312, 910010.545712, 1501279.788866),  // Jeju
        (-89, 10, 900963.077387, -12255337.939171),  // far outside Korea: still projected
    ]

    @Test func koreaUnifiedCoordinates() throws {
        let projection = try Projection(epsg: 5179)
        #expect(projection.name == "Korea 2000 / Unified CS")
        for (lat, lon, x, y) in Self.korea2000 {
            let p = projection.forward(lat: lat, lon: lon)
            #expect(abs(p.x - x) <= 2e-6 && abs(p.y - y) <= 2e-6, "\(lat) \(lon): \(p)")
        }
    }

    @Test func utmCoordinatesNorthAndSouth() throws {
        // cs2cs -d 6 EPSG:4326 EPSG:32652 / EPSG:32756 (UTM prints easting first).
        let seoul = try Projection(epsg: ProjectedCRS.utm.epsgCode(lat: 37.5665, lon: 126.978)).forward(
            lat: 37.5665, lon: 126.978)
        #expect(abs(seoul.x - 321424.286194) <= 2e-6 && abs(seoul.y - 4159640.641412) <= 2e-6)
        let sydney = try Projection(epsg: ProjectedCRS.utm.epsgCode(lat: -33.8688, lon: 151.2093)).forward(
            lat: -33.8688, lon: 151.2093)
        #expect(abs(sydney.x - 334368.633648) <= 2e-6 && abs(sydney.y - 6250948.345385) <= 2e-6)
    }

    @Test func utmZoneChoice() {
        #expect(ProjectedCRS.utmEPSG(lat: 37.5665, lon: 126.978) == 32652)  // Seoul: zone 52 north
        #expect(ProjectedCRS.utmEPSG(lat: 33.4996, lon: 126.5312) == 32652)
        #expect(ProjectedCRS.utmEPSG(lat: 37.5, lon: 129.5) == 32652)  // 126°E–132°E
        #expect(ProjectedCRS.utmEPSG(lat: 37.5, lon: 132.0) == 32653)  // zone edge belongs to the east
        #expect(ProjectedCRS.utmEPSG(lat: -33.8688, lon: 151.2093) == 32756)  // Sydney: 56 south
        #expect(ProjectedCRS.utmEPSG(lat: -0.0001, lon: -78.5) == 32717)  // Quito, just south
        #expect(ProjectedCRS.utmEPSG(lat: 0, lon: 0) == 32631)  // the equator counts as north
        #expect(ProjectedCRS.utmZone(lat: 0, lon: -180) == 1)
        #expect(ProjectedCRS.utmZone(lat: 0, lon: 180) == 1)  // 180°E is 180°W
        #expect(ProjectedCRS.utmZone(lat: 0, lon: 179.9999) == 60)
        #expect(ProjectedCRS.utmZone(lat: 0, lon: 186) == 2)  // longitudes wrap
        #expect(ProjectedCRS.utmZone(lat: 0, lon: -540) == 1)
        // Norway: band V (56°N–64°N) gives 3°E–12°E to zone 32.
        #expect(ProjectedCRS.utmZone(lat: 60.39, lon: 5.32) == 32)  // Bergen, 31 by longitude
        #expect(ProjectedCRS.utmZone(lat: 55.9, lon: 5.32) == 31)  // south of band V
        // Svalbard: band X (72°N–84°N) has zones 31, 33, 35, 37 only.
        #expect(ProjectedCRS.utmZone(lat: 78.2232, lon: 15.6267) == 33)  // Longyearbyen
        #expect(ProjectedCRS.utmZone(lat: 78, lon: 8) == 31)
        #expect(ProjectedCRS.utmZone(lat: 78, lon: 9) == 33)
        #expect(ProjectedCRS.utmZone(lat: 79, lon: 25) == 35)
        #expect(ProjectedCRS.utmZone(lat: 80, lon: 40) == 37)
        #expect(ProjectedCRS.utmZone(lat: 80, lon: 42) == 38)
        #expect(ProjectedCRS.korea2000.epsgCode(lat: -33, lon: 151) == 5179)
        #expect(ProjectedCRS.utm.description == "utm" && ProjectedCRS.korea2000.description == "EPSG:5179")
    }

    @Test func unknownAndGeographicCRSAreErrors() {
        #expect(throws: DistanceModelError.unknownCRS("EPSG:99999")) { try Projection(epsg: 99999) }
        #expect(throws: DistanceModelError.unknownCRS("EPSG:-5")) { try Projection(epsg: -5) }
        #expect(throws: DistanceModelError.notProjected("EPSG:4326", name: "WGS 84")) { try Projection(epsg: 4326) }
        #expect(throws: DistanceModelError.notProjected("EPSG:4978", name: "WGS 84")) { try Projection(epsg: 4978) }
        #expect("\(DistanceModelError.unknownCRS("EPSG:99999"))" == "unknown CRS \"EPSG:99999\"")
    }

    @Test func feetAreConvertedToMetres() throws {
        // EPSG:2227 (California zone 3) is in US survey feet (1200/3937 m): cs2cs gives
        // 6006957.098432 ft, 2110309.181464 ft. (EPSG:26943, the metre twin, has false origins 0.1 mm off.)
        let p = try Projection(epsg: 2227).forward(lat: 37.7749, lon: -122.4194)
        #expect(abs(p.x - 6006957.098432 * 1200 / 3937) <= 1e-5 && abs(p.y - 2110309.181464 * 1200 / 3937) <= 1e-5)
    }

    @Test func unprojectablePointsAreInfiniteAndDistanceThrows() throws {
        // 90° from the central meridian on the equator, transverse Mercator has no image.
        let projection = try Projection(epsg: 5179)
        let p = projection.forward(lat: 0, lon: 37.5)
        #expect(!p.x.isFinite || !p.y.isFinite)
        #expect(throws: DistanceModelError.outsideProjection(lat: 0, lon: 37.5, crs: 5179)) {
            try projection.distance(lat1: 37.5, lon1: 127, lat2: 0, lon2: 37.5)
        }
    }

    @Test func bulkEqualsSingleAndKeepsOrder() throws {
        let projection = try Projection(epsg: 5179)
        var rng = SeededGenerator(seed: 7)
        let lats = (0..<2_000).map { _ in Double.random(in: 33...38.6, using: &rng) }
        let lons = (0..<2_000).map { _ in Double.random(in: 124.5...131, using: &rng) }
        let (xs, ys) = projection.forward(lats: lats, lons: lons)
        #expect(xs.count == 2_000 && ys.count == 2_000)
        for i in lats.indices {
            let p = projection.forward(lat: lats[i], lon: lons[i])
            #expect(xs[i] == p.x && ys[i] == p.y)
        }
        let empty = projection.forward(lats: [], lons: [])
        #expect(empty.xs.isEmpty && empty.ys.isEmpty)
    }

    @Test func sharedBetweenThreads() async throws {
        let projection = try Projection(epsg: 5179)
        let expected = projection.forward(lat: 37.5665, lon: 126.978)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    (0..<500).allSatisfy { _ in
                        let p = projection.forward(lat: 37.5665, lon: 126.978)
                        return p.x == expected.x && p.y == expected.y
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == [true, true, true, true])
    }

    @Test func planarDistanceMatchesGeodesicNearTheCentralMeridian() throws {
        // On EPSG:5179's central meridian (127.5°E) the scale is 0.9996: a 10 km north–south line is
        // 0.04 % short in the plane.
        let projection = try Projection(epsg: 5179)
        let d = try projection.distance(lat1: 36, lon1: 127.5, lat2: 36.09, lon2: 127.5)
        let g = Geodesic.wgs84.distance(lat1: 36, lon1: 127.5, lat2: 36.09, lon2: 127.5)
        #expect(abs(d / g - 0.9996) < 2e-6)
    }
}
