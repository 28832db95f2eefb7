import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyServer

extension RealServer {
    /// A TourAPI list page of more than 2,000 rows streams as `/v1/places` does (its records fetched a
    /// chunk at a time as the envelope is written), byte for byte the page built whole from the
    /// engine's answer with its records, for each list operation, in TourAPI's JSON and its XML.
    @Suite struct StreamedTourAPITests {
        @Test func testAStreamedTourAPIPageIsThePageBuiltWhole() throws {
            let folder = try TempFolder()
            let path = try Fixture.cache(in: folder, count: 12_000)
            let server = try RunningServer(path: path)
            defer { server.stop() }
            let engine = try EngineKind.snapshot.open(PlaceCache(path: path, readOnly: true))
            let (lat, lon) = Fixture.seoul
            let prefix = "/B551011/KorService2/"
            // (operation and its parameters, the `QueryParameters` TourAPI maps them to, distances, dates)
            let cases: [(String, [(String, String)], Bool, Bool)] = [
                (
                    "areaBasedList2?areaCode=1&numOfRows=5000&pageNo=2&MobileOS=ETC&MobileApp=t",
                    [("areacode", "1"), ("limit", "5000"), ("page", "2"), ("arrange", "C")], false, false
                ),
                (
                    "areaBasedList2?areaCode=1&numOfRows=5000&MobileOS=ETC&MobileApp=t",
                    [("areacode", "1"), ("limit", "5000"), ("arrange", "C")], false, false
                ),
                (
                    "locationBasedList2?mapX=\(lon)&mapY=\(lat)&radius=20000&numOfRows=5000",
                    [("lon", "\(lon)"), ("lat", "\(lat)"), ("radius", "20000"), ("limit", "5000"), ("arrange", "E")],
                    true, false
                ),
                (
                    "searchKeyword2?keyword=%EC%9E%A5%EC%86%8C&numOfRows=5000",
                    [("keyword", "장소"), ("limit", "5000"), ("arrange", "C")], false, false
                ),
                (
                    "searchFestival2?eventStartDate=20250101&numOfRows=2400",
                    [("from", "20250101"), ("limit", "2400"), ("category", "15"), ("arrange", "C")], false, true
                ),
            ]
            for (request, pairs, withDistance, eventDates) in cases {
                var query = try QueryParameters.parse(pairs, areas: RegionAreas.shared)
                query.countsTotal = true
                let answer = try engine.run(query, records: true)
                #expect(answer.rows.count > PlacesAPI.streamAbove, "\(request): \(answer.rows.count) rows")
                for (type, format) in [("&_type=json", TourAPI.Format.json), ("", .xml)] {
                    var expected = TourAPI.header(format)
                    TourAPI.appendItems(
                        zip(answer.rows, answer.distances).map {
                            TourAPI.fields($0, dist: withDistance ? $1 : nil, eventDates: eventDates)
                        },
                        format: format, to: &expected)
                    expected += TourAPI.footer(
                        numOfRows: query.limit, pageNo: answer.page, totalCount: answer.total ?? 0, format: format)
                    let r = try server.http.get(prefix + request + type)
                    #expect(r.status == 200 && r.chunked, "\(request)\(type): \(r.status) \(r.text.prefix(200))")
                    #expect(r.headers["content-type"] == format.contentType)
                    #expect(
                        Array(r.body) == expected,
                        "\(request)\(type): \(r.body.count) bytes, expected \(expected.count)")
                }
            }
        }
    }
}
