import Foundation
import NearbyKit
import Testing

/// What `GeoJSONWriter` writes, the importer reads back exactly.
@Suite struct GeoJSONWriterTests {
    static let places = [
        Place(
            id: "126508", title: "덕수궁 \"Deoksugung\" \\ 🎉", lat: 37.5658049845, lon: 126.9751183616, category: 12,
            created: "20071106090000", modified: "20240517110023", areacode: "1", sigungucode: "24",
            addr: "서울특별시 중구 세종대로 99", tel: "02-771-9955", image: "http://tong.visitkorea.or.kr/a.jpg",
            cat1: "A02", cat2: "A0201", cat3: "A02010100", eventStart: "20240501", eventEnd: "20240505",
            accessibility: ["elevator", "wheelchair"], lDongRegnCd: "11", lDongSignguCd: "140",
            lclsSystm1: "HS", lclsSystm2: "HS01", lclsSystm3: "HS010100"),
        Place(id: "2", title: "시청\n앞", lat: -0.0, lon: 0.30000000000000004, category: 39),
    ]

    @Test func geoJSONRoundTripThroughTheWriter() throws {
        var writer = GeoJSONWriter()
        var out: [UInt8] = []
        writer.begin(to: &out)
        for p in Self.places { writer.append(p, distance: 12.5, to: &out) }
        writer.end(to: &out)
        let parsed = try parseFile(out, name: "p.geojson")
        #expect(parsed.format == .geojson)
        #expect(parsed.errors.isEmpty)
        #expect(parsed.places == Self.places)
        #expect(parsed.lines == [2, 3])
        let empty = GeoJSONWriter()
        var none: [UInt8] = []
        empty.begin(to: &none)
        empty.end(to: &none)
        #expect(String(decoding: none, as: UTF8.self) == "{\"type\":\"FeatureCollection\",\"features\":[\n]}\n")
    }
}
