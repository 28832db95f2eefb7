import Foundation
import NearbyKit
import NearbyServer
import NearbyTestSupport
import XCTest

/// TourAPI's KorService2 operations, asked exactly as a TourAPI app asks them.
final class TourAPITests: ServerTestCase {
    func body(_ r: LoopbackHTTP.Response) -> [String: Any] { (r.json["response"] as? [String: Any])?["body"] as? [String: Any] ?? [:] }
    func header(_ r: LoopbackHTTP.Response) -> [String: Any] { (r.json["response"] as? [String: Any])?["header"] as? [String: Any] ?? [:] }
    func items(_ r: LoopbackHTTP.Response) -> [[String: Any]] { ((body(r)["items"] as? [String: Any])?["item"] as? [[String: Any]]) ?? [] }

    func testLocationBasedListAsAnAppSendsIt() throws {
        // The request line a TourAPI app sends (serviceKey already URL-encoded, as data.go.kr hands it out).
        let request = "GET /B551011/KorService2/locationBasedList2?serviceKey=abc%2Bdef%2F123%3D%3D&numOfRows=10&pageNo=1"
            + "&MobileOS=AND&MobileApp=TestApp&_type=json&arrange=E&mapX=126.978&mapY=37.5665&radius=1000 HTTP/1.1\r\n"
            + "Host: apis.data.go.kr\r\nUser-Agent: okhttp/4.12.0\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n"
        let r = try server.http.raw(Array(request.utf8))
        XCTAssertEqual(r.status, 200, r.text)
        XCTAssertEqual(header(r)["resultCode"] as? String, "0000")
        XCTAssertEqual(header(r)["resultMsg"] as? String, "OK")
        let expected = Fixture.within(places, lat: 37.5665, lon: 126.978, radius: 1_000)
        XCTAssertEqual(body(r)["totalCount"] as? Int, expected.count)
        XCTAssertEqual(body(r)["numOfRows"] as? Int, 10)
        XCTAssertEqual(body(r)["pageNo"] as? Int, 1)
        let list = items(r)
        XCTAssertEqual(list.map { $0["contentid"] as? String }, expected.prefix(10).map(\.id))
        for (item, e) in zip(list, expected) {
            for (key, value) in item { XCTAssertTrue(value is String, "\(key) is not a string") }
            XCTAssertEqual(Double(item["dist"] as? String ?? "") ?? -1, e.distance, accuracy: 1e-6)
            let place = places[Int(e.id)! - 1]
            XCTAssertEqual(item["mapx"] as? String, "\(place.lon)")
            XCTAssertEqual(item["mapy"] as? String, "\(place.lat)")
            XCTAssertEqual(item["contenttypeid"] as? String, String(place.category))
            XCTAssertEqual(item["createdtime"] as? String, place.created)
            XCTAssertEqual(item["modifiedtime"] as? String, place.modified)
        }
        // Page 2 continues where page 1 stopped.
        let two = try server.http.get("/B551011/KorService2/locationBasedList2?mapX=126.978&mapY=37.5665&radius=1000&numOfRows=10&pageNo=2&_type=json")
        XCTAssertEqual(items(two).map { $0["contentid"] as? String }, expected.dropFirst(10).prefix(10).map(\.id))
    }

    func testOtherOperations() throws {
        let area = try server.http.get("/B551011/KorService2/areaBasedList2?areaCode=1&sigunguCode=3&contentTypeId=15&numOfRows=5&_type=json&MobileOS=IOS&MobileApp=x")
        XCTAssertEqual(header(area)["resultCode"] as? String, "0000", area.text)
        XCTAssertEqual(body(area)["totalCount"] as? Int, places.filter { $0.sigungucode == "3" && $0.category == 15 }.count)
        XCTAssertNil(items(area).first?["dist"], "no dist outside location lists")

        let keyword = try server.http.get("/B551011/KorService2/searchKeyword2?keyword=%EA%B2%BD%EB%B3%B5%EA%B6%81&_type=json")
        XCTAssertEqual(items(keyword).map { $0["title"] as? String }, ["경복궁"])

        let festival = try server.http.get("/B551011/KorService2/searchFestival2?eventStartDate=20250515&_type=json&numOfRows=100")
        let running = places.filter { $0.category == 15 && ($0.eventEnd ?? "") >= "20250515" }
        XCTAssertEqual(body(festival)["totalCount"] as? Int, running.count, festival.text.prefix(300).description)
        XCTAssertTrue(items(festival).allSatisfy { $0["contenttypeid"] as? String == "15" && ($0["eventenddate"] as? String ?? "") >= "20250515" })

        let detail = try server.http.get("/B551011/KorService2/detailCommon2?contentId=2&_type=json&MobileOS=ETC&MobileApp=x")
        XCTAssertEqual(items(detail).first?["title"] as? String, "덕수궁")

        // KorService2's classification and legal-dong filters (every harness place is cat1 A01, none has lDong codes).
        let all = body(try server.http.get("/B551011/KorService2/areaBasedList2?_type=json"))["totalCount"] as? Int
        XCTAssertEqual(body(try server.http.get("/B551011/KorService2/areaBasedList2?cat1=A01&_type=json"))["totalCount"] as? Int, all)
        XCTAssertEqual(body(try server.http.get("/B551011/KorService2/areaBasedList2?cat1=A01&cat2=A0102&_type=json"))["totalCount"] as? Int, 0)
        XCTAssertEqual(body(try server.http.get("/B551011/KorService2/areaBasedList2?lclsSystm1=AC&_type=json"))["totalCount"] as? Int, 0)
        XCTAssertEqual(body(try server.http.get("/B551011/KorService2/areaBasedList2?lDongRegnCd=11&lDongSignguCd=110&_type=json"))["totalCount"] as? Int, 0)

        // An empty page is `"items": ""`, as TourAPI writes it.
        let empty = try server.http.get("/B551011/KorService2/searchKeyword2?keyword=%EC%97%86%EC%9D%8C&_type=json")
        XCTAssertEqual(header(empty)["resultCode"] as? String, "0000")
        XCTAssertEqual(body(empty)["items"] as? String, "")
        XCTAssertEqual(body(empty)["totalCount"] as? Int, 0)
    }

    func testErrorsUseTheEnvelope() throws {
        let cases: [(String, Int, String, String)] = [
            ("locationBasedList2?mapY=37.5&radius=100&_type=json", 400, "11", "mapX"),
            ("locationBasedList2?mapX=abc&mapY=37.5&radius=100", 400, "10", "mapX"),
            ("locationBasedList2?mapX=127&mapY=37.5&radius=30000", 400, "10", "radius"),
            ("areaBasedList2?numOfRows=x", 400, "10", "numOfRows"),
            ("areaBasedList2?_type=xml", 400, "10", "_type"),
            ("areaBasedList2?lDongSignguCd=110", 400, "11", "lDongRegnCd"),
            ("areaBasedList2?lDongRegnCd=11&lDongSignguCd=1", 400, "10", "lDongRegnCd"),
            ("areaBasedList2?cat1=A0%2B", 400, "10", "cat1"),
            ("searchKeyword2?_type=json", 400, "11", "keyword"),
            ("searchFestival2?eventStartDate=2025-13-45", 400, "10", "eventStartDate"),
            ("detailCommon2?_type=json", 400, "11", "contentId"),
            ("noSuchOperation2", 404, "04", ""),
        ]
        for (target, status, code, parameter) in cases {
            let r = try server.http.get(TourAPIPath.prefix + target)
            XCTAssertEqual(r.status, status, "\(target): \(r.text)")
            XCTAssertEqual(header(r)["resultCode"] as? String, code, "\(target): \(r.text)")
            XCTAssertTrue(parameter.isEmpty || (header(r)["resultMsg"] as? String ?? "").contains(parameter), "\(target): \(r.text)")
        }
        XCTAssertEqual(header(try server.http.send(method: "POST", target: TourAPIPath.prefix + "areaBasedList2"))["resultCode"] as? String, "04")
    }

    func testServiceKeyWhenRequired() throws {
        let keyed = try RunningServer(path: folder.file("places.sqlite"), options: RunningServer.options { $0.serviceKey = "k+y/1==" })
        defer { keyed.stop() }
        let path = TourAPIPath.prefix + "areaBasedList2?_type=json&serviceKey="
        XCTAssertEqual(header(try keyed.http.get(path + "k%2By%2F1%3D%3D"))["resultCode"] as? String, "0000")
        let wrong = try keyed.http.get(path + "other")
        XCTAssertEqual(wrong.status, 401)
        XCTAssertEqual(header(wrong)["resultCode"] as? String, "30")
        // The server without --service-key takes any key, or none.
        XCTAssertEqual(header(try server.http.get(path + "other"))["resultCode"] as? String, "0000")
    }
}

enum TourAPIPath { static let prefix = "/B551011/KorService2/" }
