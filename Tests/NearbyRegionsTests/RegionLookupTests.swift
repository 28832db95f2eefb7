import Foundation
import NearbyCore
import Testing

@testable import NearbyRegions

/// Points with known answers: inside, on borders, in holes, on islands, at sea, abroad, at the poles
/// and across the antimeridian.
@Suite struct RegionLookupTests {
    @Test func insideSeoul() throws {
        let path = try #require(try SharedIndex.get().locate(lat: 37.5796, lon: 126.9770).path)
        #expect(path.sido.code == "11" && path.sido.name == "서울특별시")
        #expect(path.sigungu?.code == "11110" && path.sigungu?.name == "종로구")
        #expect(path.emd?.code == "11110119" && path.emd?.name == "세종로")
        #expect(path.ri == nil)
        #expect(path.deepest.fullName == "서울특별시 종로구 세종로")
    }

    @Test func villageLevelWithTodaysCodes() throws {
        let index = try SharedIndex.get()
        // 강원 (42 → 51 in 2023): 춘천시 신북읍's village.
        let chuncheon = try #require(index.locate(lat: 37.9323, lon: 127.7737).path)
        #expect(chuncheon.sido.code == "51" && chuncheon.sido.name == "강원특별자치도")
        #expect(chuncheon.sigungu?.code.hasPrefix("511") == true)
        #expect(chuncheon.ri?.code.hasPrefix("51") == true && chuncheon.ri?.code.count == 10)
        // 군위군 moved from 경북 to 대구 (47720 → 27720): 군위읍's representative point.
        let gunwi = try #require(index.locate(lat: 36.235058, lon: 128.578729).path)
        #expect(gunwi.sido.code == "27" && gunwi.sido.name == "대구광역시")
        #expect(gunwi.sigungu?.code == "27720" && gunwi.sigungu?.name == "군위군")
        #expect(gunwi.emd?.code == "27720250")
        // 전북 (45 → 52 in 2024): 전주시 완산구.
        let jeonju = try #require(index.locate(lat: 35.8122, lon: 127.1480).path)
        #expect(jeonju.sido.code == "52" && jeonju.sido.name == "전북특별자치도")
        #expect(jeonju.sigungu?.code.hasPrefix("5211") == true)
    }

    @Test func islands() throws {
        let index = try SharedIndex.get()
        let cases: [(Double, Double, String)] = [
            (37.244573, 131.865383, "4794025027"),  // 독도리
            (37.496562, 130.893262, "4794025024"),  // 울릉도 도동리
            (33.507333, 126.954948, "50110330"),  // 우도면 (its town point)
            (34.008203, 126.344089, "5011032021"),  // 추자도 대서리
            (33.1175, 126.2673, "5013025026"),  // 마라도, part of 가파리
        ]
        for (lat, lon, code) in cases {
            let path = try #require(index.locate(lat: lat, lon: lon).path, "\(lat) \(lon) is on land")
            #expect(path.ri?.code == code || path.emd?.code == code, "\(lat) \(lon): \(path.deepest)")
        }
    }

    @Test func holes() throws {
        let index = try SharedIndex.get()
        // 창원 팔용동 sits in a hole of 차용동's polygon.
        #expect(index.locate(lat: 35.231511, lon: 128.635789).path?.emd?.name == "팔용동")
        // A hole that no region fills (a lake inside 해남 산이면): unknown, 산이면 nearest.
        guard case .unknown(let nearest, let distance) = index.locate(lat: 34.700463, lon: 126.420374) else {
            Issue.record("the lake inside 산이면 should be in no region")
            return
        }
        #expect(nearest.emd?.name == "산이면")
        #expect(distance > 100 && distance < 3000)
    }

    @Test func borderPointsLandInANeighbour() throws {
        // Every vertex of 종로구's boundary is on a border: it lands in a region (one of the
        // neighbours or 종로구 itself), never in a gap, and never fails.
        let index = try SharedIndex.get()
        let jongno = try SharedIndex.region("11110")
        var checked = 0
        for face in index.shapeFaces(jongno) {
            for polygon in index.rings(face: face) {
                for ring in polygon {
                    for p in ring.prefix(200) {
                        let path = try #require(index.locate(lat: p.y, lon: p.x).path, "vertex \(p)")
                        #expect(path.sido.code == "11" || path.sido.code == "41")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 100)
    }

    @Test func seaAbroadPolesAndAntimeridian() throws {
        let index = try SharedIndex.get()
        let cases: [(lat: Double, lon: Double, nearestSido: String, minKm: Double, maxKm: Double)] = [
            (37.5, 129.5, "51", 10, 40),  // East Sea off 삼척
            (33.2, 126.2, "50", 2, 10),  // off 제주's south-west coast
            (35.6812, 139.7671, "47", 650, 800),  // Tokyo: nearest is 독도
            (39.0392, 125.7625, "41", 120, 160),  // Pyongyang: 연천군 is the nearest boundary
            (90, 0, "51", 5600, 5800),  // North Pole: 강원 고성 is the northernmost coast
            (-90, 0, "50", 13500, 13800),  // South Pole: 마라도 is the southernmost
            (0, 180, "47", 6000, 7000),
            (37.5, -180, "47", 3000, 5000),  // the antimeridian itself
        ]
        for c in cases {
            guard case .unknown(let nearest, let distance) = index.locate(lat: c.lat, lon: c.lon) else {
                Issue.record("\(c.lat) \(c.lon) should be in no region")
                continue
            }
            #expect(nearest.sido.code == c.nearestSido, "\(c.lat) \(c.lon): nearest \(nearest.deepest)")
            #expect(distance >= c.minKm * 1000 && distance <= c.maxKm * 1000, "\(c.lat) \(c.lon): \(distance) m")
        }
        // Not a number: unknown, never a trap.
        for (lat, lon) in [(Double.nan, 127.0), (37.5, Double.nan), (Double.infinity, 0)] {
            guard case .unknown(_, let distance) = index.locate(lat: lat, lon: lon) else {
                Issue.record("\(lat) \(lon) should be unknown")
                continue
            }
            #expect(distance.isNaN || distance.isInfinite || distance > 0)
            #expect(!index.contains(try SharedIndex.region("11"), lat: lat, lon: lon))
        }
        // Longitudes outside [-180, 180] wrap.
        #expect(index.locate(lat: 37.5796, lon: 126.977 + 360).path?.emd?.name == "세종로")
        #expect(index.locate(lat: 37.5796, lon: 126.977 - 720).path?.emd?.name == "세종로")
    }

    @Test func agreesWithBruteForceOnRandomPoints() throws {
        // The grid answer equals a plain crossing-number test over every face's rings.
        let index = try SharedIndex.get()
        let towns = (0..<index.faceCount).filter { !index.isVillage(face: $0) }
        let villages = (0..<index.faceCount).filter { index.isVillage(face: $0) }
        let rings = (0..<index.faceCount).map { index.rings(face: $0).flatMap { $0 } }
        let boxes = rings.map { rings in
            rings.joined().reduce(RegionBox(minLat: 90, minLon: 180, maxLat: -90, maxLon: -180)) {
                RegionBox(
                    minLat: min($0.minLat, $1.y), minLon: min($0.minLon, $1.x), maxLat: max($0.maxLat, $1.y),
                    maxLon: max($0.maxLon, $1.x))
            }
        }
        var rng = SystemRandomNumberGenerator()
        var inside = 0
        for _ in 0..<400 {
            let lat = Double.random(in: 34.5...38.0, using: &rng)
            let lon = Double.random(in: 126.3...129.3, using: &rng)
            func holds(_ f: Int) -> Bool {
                guard boxes[f].contains(lat: lat, lon: lon) else { return false }
                var odd = false
                for ring in rings[f] {
                    for i in 0..<(ring.count - 1) {
                        let a = ring[i]
                        let b = ring[i + 1]
                        if (a.y > lat) != (b.y > lat), lon < a.x + (lat - a.y) * (b.x - a.x) / (b.y - a.y) {
                            odd.toggle()
                        }
                    }
                }
                return odd
            }
            let expected = villages.first(where: holds) ?? towns.first(where: holds)
            #expect(index.faceIndex(lat: lat, lon: lon) == expected, "\(lat) \(lon)")
            if expected != nil { inside += 1 }
        }
        #expect(inside > 200)
    }
}
