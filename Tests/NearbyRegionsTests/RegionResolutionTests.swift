import Foundation
import NearbyCore
import Testing

@testable import NearbyRegions

/// Names and codes, old and new; ambiguity; membership; bounding boxes; the importer's code check.
@Suite struct RegionResolutionTests {
    @Test func namesAndCodesOfOneRegion() throws {
        for text in ["종로구", "서울 종로구", "서울특별시 종로구", "서울시 종로구", " 서울  종로구 ", "11110"] {
            let region = try SharedIndex.region(text)
            #expect(region.code == "11110" && region.level == .sigungu && region.fullName == "서울특별시 종로구", "\(text)")
        }
        #expect(try SharedIndex.region("11").name == "서울특별시")
        #expect(try SharedIndex.region("서울").code == "11")
        #expect(try SharedIndex.region("서울 종로구 세종로").code == "11110119")
        #expect(try SharedIndex.region("11110119").name == "세종로")
        #expect(try SharedIndex.region("4794025027").name == "독도리")
    }

    @Test func oldCodesGiveTodaysRegions() throws {
        #expect(try SharedIndex.region("42").code == "51")
        #expect(try SharedIndex.region("강원도").code == "51")
        #expect(try SharedIndex.region("42110").code == "51110")  // 춘천시
        #expect(try SharedIndex.region("45").code == "52")
        #expect(try SharedIndex.region("47720").code == "27720")  // 군위군, now in 대구
        #expect(try SharedIndex.region("대구 군위군").code == "27720")
        #expect(try SharedIndex.region("28170").code == "28177")  // 인천 남구 → 미추홀구
        #expect(try SharedIndex.region("41195").code == "41192")  // 부천 원미구
        #expect(try SharedIndex.region("41730").code == "41670")  // 여주군 → 여주시
        // 47 stays 경북: 군위군's move does not make 47 a name of 대구.
        #expect(try SharedIndex.region("47").code == "47")
        // 인천 중구 (28110) was split in 2026: the old code names both parts together.
        guard case .found(let parts) = try SharedIndex.get().resolve("28110") else {
            Issue.record("28110 should resolve")
            return
        }
        #expect(Set(parts.map(\.code)) == ["28125", "28155"])
    }

    @Test func ambiguousNamesListEveryCandidate() throws {
        let index = try SharedIndex.get()
        guard case .ambiguous(let jung) = index.resolve("중구") else {
            Issue.record("중구 should be ambiguous")
            return
        }
        let sidos = Set(jung.map { String($0.code.prefix(2)) })
        #expect(sidos == ["11", "26", "27", "30", "31"], "\(jung)")  // 인천 중구 is gone since 2026-07-01
        #expect(jung.allSatisfy { $0.level == .sigungu && $0.name == "중구" })
        guard case .ambiguous(let goseong) = index.resolve("고성군") else {
            Issue.record("고성군 should be ambiguous")
            return
        }
        #expect(Set(goseong.map(\.fullName)) == ["강원특별자치도 고성군", "경상남도 고성군"])
        #expect(try SharedIndex.region("경남 고성군").code == "48820")
        #expect(index.resolve("없는구") == .notFound)
        #expect(index.resolve("99999") == .notFound)
        #expect(index.resolve("") == .notFound)
    }

    @Test func citiesWithDistricts() throws {
        let index = try SharedIndex.get()
        let suwon = try SharedIndex.region("수원시")
        #expect(suwon.code == "41110" && suwon.level == .sigungu)
        #expect(Set(suwon.parts.map { index.regions[$0].name }) == ["수원시 장안구", "수원시 권선구", "수원시 팔달구", "수원시 영통구"])
        #expect(try SharedIndex.region("41110") == suwon)
        #expect(try SharedIndex.region("장안구").code == "41111")
        #expect(try SharedIndex.region("고양시 덕양구").code == "41281")
        // 화성행궁 is in 팔달구, hence in 수원시 and 경기도.
        let lat = 37.2818
        let lon = 127.0135
        #expect(index.contains(suwon, lat: lat, lon: lon))
        #expect(index.contains(try SharedIndex.region("팔달구"), lat: lat, lon: lon))
        #expect(index.contains(try SharedIndex.region("경기"), lat: lat, lon: lon))
        #expect(!index.contains(try SharedIndex.region("장안구"), lat: lat, lon: lon))
    }

    @Test func membershipAgreesWithLookup() throws {
        let index = try SharedIndex.get()
        let jongno = try SharedIndex.region("종로구")
        let seoul = try SharedIndex.region("11")
        let box = index.boundingBox(jongno)
        #expect(box.minLat > 37.5 && box.maxLat < 37.7 && box.minLon > 126.9 && box.maxLon < 127.1)
        var rng = SystemRandomNumberGenerator()
        var inside = 0
        // Points inside Seoul that no polygon holds (within 1 cm of a border, in a sliver between two
        // neighbours): `locate` places them on the border's region, and `contains` must agree.
        let slivers = [
            (37.458819111438146, 127.11629778641051), (37.55295637429608, 127.03149242048757),
            (37.62602059379994, 126.94333802005994), (37.51465743786133, 126.913217077329),
            (37.66168168855243, 127.01519285620962), (37.4868123574528, 127.08586942044712),
        ]
        for (lat, lon) in slivers {
            #expect(index.locate(lat: lat, lon: lon).path?.sido == seoul, "\(lat), \(lon)")
            #expect(index.contains(seoul, lat: lat, lon: lon), "\(lat), \(lon)")
            #expect(index.contains(any: [seoul], lat: lat, lon: lon), "\(lat), \(lon)")
            #expect(
                index.deepestRegion(lat: lat, lon: lon) == index.locate(lat: lat, lon: lon).path?.deepest.id,
                "\(lat), \(lon)")
        }
        for (lat, lon) in slivers
            + (0..<3000).map({ _ in
                (Double.random(in: 37.4...37.75, using: &rng), Double.random(in: 126.8...127.2, using: &rng))
            })
        {
            let path = index.locate(lat: lat, lon: lon).path
            let isJongno = path?.sigungu == jongno
            #expect(index.contains(jongno, lat: lat, lon: lon) == isJongno, "\(lat), \(lon)")
            #expect(index.contains(seoul, lat: lat, lon: lon) == (path?.sido == seoul), "\(lat), \(lon)")
            if isJongno {
                inside += 1
                #expect(box.contains(lat: lat, lon: lon))
            }
        }
        #expect(inside > 20)
        let split: [Region] = try {
            guard case .found(let parts) = try index.resolve("28110") else { return [] }
            return parts
        }()
        #expect(index.contains(any: split, lat: 37.4738, lon: 126.6216))  // 월미도 (old 중구, now 제물포구)
        #expect(index.contains(any: split, lat: 37.4486, lon: 126.4500))  // 인천공항 (old 중구, now 영종구)
        #expect(!index.contains(any: split, lat: 37.5796, lon: 126.977))
        #expect(!index.contains(jongno, lat: 90, lon: 0))
    }

    @Test func placeCodesAgreeDeriveOrDisagree() throws {
        let index = try SharedIndex.get()
        #expect(
            index.checkCodes(lat: 37.5796, lon: 126.977, lDongRegnCd: "11", lDongSignguCd: "110")
                == .agrees(lDongRegnCd: "11", lDongSignguCd: "110"))
        #expect(
            index.checkCodes(lat: 37.5796, lon: 126.977, lDongRegnCd: nil, lDongSignguCd: "")
                == .derived(lDongRegnCd: "11", lDongSignguCd: "110"))
        // Only the 시도 given: it must contain the point.
        #expect(
            index.checkCodes(lat: 37.5796, lon: 126.977, lDongRegnCd: "11", lDongSignguCd: nil)
                == .agrees(lDongRegnCd: "11", lDongSignguCd: "110"))
        // Old 강원 code for a place in 춘천: still agrees, and today's codes come back.
        #expect(
            index.checkCodes(lat: 37.8813, lon: 127.7298, lDongRegnCd: "42", lDongSignguCd: "110")
                == .agrees(lDongRegnCd: "51", lDongSignguCd: "110"))
        guard
            case .disagrees(let given, let found, let message) =
                index.checkCodes(lat: 37.5796, lon: 126.977, lDongRegnCd: "26", lDongSignguCd: "110")
        else {
            Issue.record("부산 중구's codes at 광화문 should disagree")
            return
        }
        #expect(given == "26110" && found.code == "11110")
        #expect(message.contains("종로구") && message.contains("26"))
        #expect(index.checkCodes(lat: 37.5, lon: 129.5, lDongRegnCd: "51", lDongSignguCd: "230") == .unknownLocation)
    }
}
