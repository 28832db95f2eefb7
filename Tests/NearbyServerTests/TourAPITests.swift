import Foundation
import NearbyKit
import NearbyServer
import NearbyTestSupport
import Testing

extension RealServer {
    /// TourAPI's KorService2 operations, asked exactly as a TourAPI app asks them.
    @Suite final class TourAPITests: ServedSuite {
        let served: ServedFixture
        init() throws { served = try ServedFixture() }

        func body(_ r: LoopbackHTTP.Response) -> [String: Any] {
            (r.json["response"] as? [String: Any])?["body"] as? [String: Any] ?? [:]
        }
        /// The envelope's header, from TourAPI's JSON or (an error asked without `_type=json`) its XML.
        func header(_ r: LoopbackHTTP.Response) -> [String: Any] {
            if r.headers["content-type"]?.hasPrefix("application/xml") == true {
                return (try? TourXML(Array(r.body)))?.header ?? [:]
            }
            return (r.json["response"] as? [String: Any])?["header"] as? [String: Any] ?? [:]
        }
        func items(_ r: LoopbackHTTP.Response) -> [[String: Any]] {
            ((body(r)["items"] as? [String: Any])?["item"] as? [[String: Any]]) ?? []
        }

        @Test func testLocationBasedListAsAnAppSendsIt() throws {
            // The request line a TourAPI app sends (serviceKey already URL-encoded, as data.go.kr hands it out).
            let request =
                "GET /B551011/KorService2/locationBasedList2?serviceKey=abc%2Bdef%2F123%3D%3D&numOfRows=10&pageNo=1"
                + "&MobileOS=AND&MobileApp=TestApp&_type=json&arrange=E&mapX=126.978&mapY=37.5665&radius=1000 HTTP/1.1\r\n"
                + "Host: apis.data.go.kr\r\nUser-Agent: okhttp/4.12.0\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n"
            let r = try server.http.raw(Array(request.utf8))
            #expect(r.status == 200, "\(r.text)")
            #expect(header(r)["resultCode"] as? String == "0000")
            #expect(header(r)["resultMsg"] as? String == "OK")
            let expected = Fixture.within(places, lat: 37.5665, lon: 126.978, radius: 1_000)
            #expect(body(r)["totalCount"] as? Int == expected.count)
            #expect(body(r)["numOfRows"] as? Int == 10)
            #expect(body(r)["pageNo"] as? Int == 1)
            let list = items(r)
            #expect(list.map { $0["contentid"] as? String } == expected.prefix(10).map(\.id))
            for (item, e) in zip(list, expected) {
                for (key, value) in item { #expect(value is String, "\(key) is not a string") }
                #expect(abs((Double(item["dist"] as? String ?? "") ?? -1) - e.distance) <= 1e-6)
                let place = places[Int(e.id)! - 1]
                #expect(item["mapx"] as? String == "\(place.lon)")
                #expect(item["mapy"] as? String == "\(place.lat)")
                #expect(item["contenttypeid"] as? String == String(place.category))
                #expect(item["createdtime"] as? String == place.created)
                #expect(item["modifiedtime"] as? String == place.modified)
            }
            // Page 2 continues where page 1 stopped.
            let two = try server.http.get(
                "/B551011/KorService2/locationBasedList2?mapX=126.978&mapY=37.5665&radius=1000&numOfRows=10&pageNo=2&_type=json"
            )
            #expect(items(two).map { $0["contentid"] as? String } == expected.dropFirst(10).prefix(10).map(\.id))
        }

        @Test func testOtherOperations() throws {
            let area = try server.http.get(
                "/B551011/KorService2/areaBasedList2?areaCode=1&sigunguCode=3&contentTypeId=15&numOfRows=5&_type=json&MobileOS=IOS&MobileApp=x"
            )
            #expect(header(area)["resultCode"] as? String == "0000", "\(area.text)")
            #expect(
                body(area)["totalCount"] as? Int == places.filter { $0.sigungucode == "3" && $0.category == 15 }.count)
            #expect(items(area).first?["dist"] == nil, "no dist outside location lists")

            let keyword = try server.http.get(
                "/B551011/KorService2/searchKeyword2?keyword=%EA%B2%BD%EB%B3%B5%EA%B6%81&_type=json")
            #expect(items(keyword).map { $0["title"] as? String } == ["경복궁"])

            let festival = try server.http.get(
                "/B551011/KorService2/searchFestival2?eventStartDate=20250515&_type=json&numOfRows=100")
            let running = places.filter { $0.category == 15 && ($0.eventEnd ?? "") >= "20250515" }
            #expect(body(festival)["totalCount"] as? Int == running.count, "\(festival.text.prefix(300))")
            #expect(
                items(festival).allSatisfy {
                    $0["contenttypeid"] as? String == "15" && ($0["eventenddate"] as? String ?? "") >= "20250515"
                })

            let detail = try server.http.get(
                "/B551011/KorService2/detailCommon2?contentId=2&_type=json&MobileOS=ETC&MobileApp=x")
            #expect(items(detail).first?["title"] as? String == "덕수궁")

            // KorService2's classification and legal-dong filters (every harness place is cat1 A01, none has lDong codes).
            let all = body(try server.http.get("/B551011/KorService2/areaBasedList2?_type=json"))["totalCount"] as? Int
            #expect(
                body(try server.http.get("/B551011/KorService2/areaBasedList2?cat1=A01&_type=json"))["totalCount"]
                    as? Int == all)
            #expect(
                body(try server.http.get("/B551011/KorService2/areaBasedList2?cat1=A01&cat2=A0102&_type=json"))[
                    "totalCount"] as? Int == 0)
            #expect(
                body(try server.http.get("/B551011/KorService2/areaBasedList2?lclsSystm1=AC&_type=json"))["totalCount"]
                    as? Int == 0)
            #expect(
                body(
                    try server.http.get(
                        "/B551011/KorService2/areaBasedList2?lDongRegnCd=11&lDongSignguCd=110&_type=json"))[
                        "totalCount"] as? Int == 0)

            // An empty page is `"items": ""`, as TourAPI writes it.
            let empty = try server.http.get("/B551011/KorService2/searchKeyword2?keyword=%EC%97%86%EC%9D%8C&_type=json")
            #expect(header(empty)["resultCode"] as? String == "0000")
            #expect(body(empty)["items"] as? String == "")
            #expect(body(empty)["totalCount"] as? Int == 0)
        }

        @Test func testErrorsUseTheEnvelope() throws {
            let cases: [(String, Int, String, String)] = [
                ("locationBasedList2?mapY=37.5&radius=100&_type=json", 400, "11", "mapX"),
                ("locationBasedList2?mapX=abc&mapY=37.5&radius=100", 400, "10", "mapX"),
                ("locationBasedList2?mapX=127&mapY=37.5&radius=30000", 400, "10", "radius"),
                ("areaBasedList2?numOfRows=x", 400, "10", "numOfRows"),
                ("areaBasedList2?_type=yaml", 400, "10", "_type"),
                ("areaBasedList2?_type=yaml&numOfRows=x", 400, "10", "_type"),
                ("areaBasedList2?lDongSignguCd=110", 400, "11", "lDongRegnCd"),
                ("areaBasedList2?lDongRegnCd=11&lDongSignguCd=1", 400, "10", "lDongRegnCd"),
                ("areaBasedList2?cat1=A0%2B", 400, "10", "cat1"),
                ("searchKeyword2?_type=json", 400, "11", "keyword"),
                ("searchFestival2?eventStartDate=2025-13-45", 400, "10", "eventStartDate"),
                ("detailCommon2?_type=json", 400, "11", "contentId"),
                ("noSuchOperation2", 404, "12", ""),
            ]
            for (target, status, code, parameter) in cases {
                let r = try server.http.get(TourAPIPath.prefix + target)
                #expect(r.status == status, "\(target): \(r.text)")
                #expect(header(r)["resultCode"] as? String == code, "\(target): \(r.text)")
                #expect(
                    parameter.isEmpty || (header(r)["resultMsg"] as? String ?? "").contains(parameter),
                    "\(target): \(r.text)")
            }
            #expect(
                header(try server.http.send(method: "POST", target: TourAPIPath.prefix + "areaBasedList2"))[
                    "resultCode"] as? String == "04")
        }

        @Test func testServiceKeyWhenRequired() throws {
            let keyed = try RunningServer(
                path: served.folder.file("places.sqlite"), options: RunningServer.options { $0.serviceKey = "k+y/1==" })
            defer { keyed.stop() }
            let path = TourAPIPath.prefix + "areaBasedList2?_type=json&serviceKey="
            #expect(header(try keyed.http.get(path + "k%2By%2F1%3D%3D"))["resultCode"] as? String == "0000")
            let wrong = try keyed.http.get(path + "other")
            #expect(wrong.status == 401)
            #expect(header(wrong)["resultCode"] as? String == "30")
            // The server without --service-key takes any key, or none.
            #expect(header(try server.http.get(path + "other"))["resultCode"] as? String == "0000")
        }
    }
}

enum TourAPIPath { static let prefix = "/B551011/KorService2/" }
