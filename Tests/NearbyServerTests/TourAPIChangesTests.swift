import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyServer

extension RealServer {
    /// areaBasedSyncList2 from the cache's change history, and ldongCode2 from the region data: the
    /// requests as public code sends them, both envelopes (the XML read by a real parser), paging, the
    /// empty answer and the parameter errors in TourAPI's codes.
    @Suite final class TourAPIChangesTests {
        let folder: TempFolder
        let server: RunningServer
        let places: [Place]
        /// The Korean day of the writes below (`yyyyMMdd`).
        let today: String

        /// 60 places of the fixture's grid, written once; then id 3 edited, ids 4 and 5 removed (a
        /// sync list's `showflag` 0, through the import path) and id 4 is not brought back.
        init() throws {
            folder = try TempFolder()
            let path = folder.file("places.sqlite")
            let cache = try PlaceCache(path: path)
            var places = Fixture.places(60)
            _ = try Importer().importPlaces(places, into: cache)
            places[2].title = "바뀐 이름"
            places[2].modified = "20991231000000"
            let withdrawn =
                #"{"response":{"header":{"resultCode":"0000","resultMsg":"OK"},"body":{"items":{"item":["#
                + #"{"contentid":"4","showflag":"0"},{"contentid":"5","showflag":"0"}]},"numOfRows":10,"pageNo":1,"#
                + #""totalCount":2}}}"#
            var importer = Importer()
            importer.format = .tourapi
            _ = try importer.importDocuments([("withdrawn", Array(withdrawn.utf8))], into: cache)
            _ = try importer.importPlaces([places[2]], into: cache)
            today = String(PlaceCache.changeTime().prefix(8))
            self.places = places
            server = try RunningServer(path: path)
        }

        deinit { server.stop() }

        @Test func testAreaBasedSyncList2() throws {
            // leonpark12/korea-festival-api-parser src/fetchers/sync_update.py: areaBasedSyncList2 with
            // modifiedtime=YYYYMMDD (the day to follow), every page, MobileOS=ETC, _type=json.
            let target =
                "/B551011/KorService2/areaBasedSyncList2?serviceKey=k&MobileOS=ETC&MobileApp=festival"
                + "&modifiedtime=\(today)&numOfRows=100&pageNo=1"
            let all = try TourAnswer(server, target)
            // The 58 places still cached, in the order first stored, then the two removed.
            #expect(all.totalCount == 60)
            #expect(all.ids == places.map(\.id).filter { $0 != "4" && $0 != "5" } + ["4", "5"])
            // Festivals carry their dates, so a follower keeps them.
            for (names, item) in zip(all.names, all.items) {
                let festival = item["contenttypeid"] as? String == "15"
                let dates = festival ? ["eventstartdate", "eventenddate"] : []
                #expect(names == TourAPIXMLTests.names + dates + ["showflag"], "\(names)")
            }
            #expect(all.items.prefix(58).allSatisfy { $0["showflag"] as? String == "1" })
            #expect(all.items.suffix(2).allSatisfy { $0["showflag"] as? String == "0" })
            // An item's modifiedtime is the place's own; the removed place keeps its fields.
            #expect(all.value("modifiedtime", at: 2) == "20991231000000" && all.value("title", at: 2) == "바뀐 이름")
            #expect(all.value("title", at: 58) == places[3].title && all.value("mapx", at: 58) == "\(places[3].lon)")
            // Paging: pages of 7 continue one another, every page with the same total.
            var paged: [String] = []
            for page in 1...9 {
                let one = try TourAnswer(
                    server,
                    target.replacingOccurrences(of: "numOfRows=100&pageNo=1", with: "numOfRows=7&pageNo=\(page)"))
                #expect(one.totalCount == 60 && one.body["numOfRows"] as? Int == 7)
                paged += one.ids
            }
            #expect(paged == all.ids)
            // showflag picks one side; a month or a year prefix, and no prefix, find the same day.
            let removed = try TourAnswer(server, "/B551011/KorService2/areaBasedSyncList2?showflag=0&numOfRows=10")
            #expect(removed.ids == ["4", "5"])
            let shown = try TourAnswer(server, "/B551011/KorService2/areaBasedSyncList2?showflag=1&numOfRows=1")
            #expect(shown.totalCount == 58 && shown.ids == ["1"])
            for prefix in [String(today.prefix(6)), String(today.prefix(4))] {
                let wider = try TourAnswer(server, "/B551011/KorService2/areaBasedSyncList2?modifiedtime=\(prefix)")
                #expect(wider.totalCount == 60)
            }
            // The list filters: content type, area, classification, over removed places too.
            let typed = try TourAnswer(
                server, "/B551011/KorService2/areaBasedSyncList2?contentTypeId=\(places[3].category)&numOfRows=100")
            #expect(Set(typed.ids) == Set(places.filter { $0.category == places[3].category }.map(\.id)))
            #expect(typed.ids.contains("4"))
            // A day with no change: the empty answer, in both formats.
            let quiet = try TourAnswer(server, "/B551011/KorService2/areaBasedSyncList2?modifiedtime=20000101")
            #expect(quiet.totalCount == 0 && quiet.items.isEmpty)
            // KorService1's name, with KorService1's items.
            let one = try TourAnswer(server, "/B551011/KorService1/areaBasedSyncList1?numOfRows=1&showflag=0")
            #expect(one.names == [TourAPIOperationsTests.korService1List + ["showflag"]] && one.ids == ["4"])
        }

        @Test func testAreaBasedSyncList2Errors() throws {
            for (query, code, parameter) in [
                ("modifiedtime=2025-01", "10", "modifiedtime"), ("modifiedtime=2025010", "10", "modifiedtime"),
                ("showflag=2", "10", "showflag"), ("numOfRows=0", "10", "numOfRows"),
                ("contentTypeId=x", "10", "contentTypeId"), ("lDongSignguCd=110", "11", "lDongRegnCd"),
            ] {
                for json in [false, true] {
                    let r = try server.http.get(
                        "/B551011/KorService2/areaBasedSyncList2?\(query)" + (json ? "&_type=json" : ""))
                    #expect(r.status == 400, "\(query)")
                    let header: [String: String]
                    if json {
                        header = (r.json["response"] as? [String: Any])?["header"] as? [String: String] ?? [:]
                    } else {
                        header = try TourXML(Array(r.body)).header
                    }
                    #expect(header["resultCode"] == code, "\(query): \(header)")
                    #expect(header["resultMsg"]?.contains(parameter) == true, "\(query): \(header)")
                }
            }
        }

        @Test func testLdongCode2() throws {
            // leonpark12/korea-festival-api-parser src/fetchers/ldong_code.py: ldongCode2 with
            // lDongListYn=N for the 시도, then lDongRegnCd=<code>&lDongListYn=N for each one's 시군구.
            let sido = try TourAnswer(
                server, "/B551011/KorService2/ldongCode2?MobileOS=ETC&MobileApp=festival&lDongListYn=N&numOfRows=50")
            #expect(sido.totalCount == 17)
            #expect(sido.names.allSatisfy { $0 == ["rnum", "code", "name"] })
            #expect(sido.value("code") == "11" && sido.value("name") == "서울특별시" && sido.value("rnum") == "1")
            #expect(sido.items.contains { $0["code"] as? String == "51" && $0["name"] as? String == "강원특별자치도" })
            let seoul = try TourAnswer(
                server, "/B551011/KorService2/ldongCode2?lDongRegnCd=11&lDongListYn=N&numOfRows=50&MobileOS=ETC")
            #expect(seoul.totalCount == 25)
            #expect(seoul.value("code") == "110" && seoul.value("name") == "종로구")
            // The whole list of a 시도: the manual's list form (lDongListYn=Y), fields as public DTOs read
            // them (lDongRegnCd, lDongRegnNm, lDongSignguCd, lDongSignguNm).
            let chungnam = try TourAnswer(
                server, "/B551011/KorService2/ldongCode2?lDongRegnCd=44&lDongListYn=Y&numOfRows=100")
            #expect(
                chungnam.names.allSatisfy {
                    $0 == ["rnum", "lDongRegnCd", "lDongRegnNm", "lDongSignguCd", "lDongSignguNm"]
                })
            #expect(chungnam.items.allSatisfy { $0["lDongRegnNm"] as? String == "충청남도" })
            #expect(
                chungnam.items.contains {
                    $0["lDongSignguCd"] as? String == "270" && $0["lDongSignguNm"] as? String == "당진시"
                })
            // Paging over the whole country's list.
            let page = try TourAnswer(server, "/B551011/KorService2/ldongCode2?lDongListYn=Y&numOfRows=10&pageNo=2")
            #expect(page.items.count == 10 && page.value("rnum") == "11" && (page.totalCount ?? 0) > 200)
            let none = try TourAnswer(server, "/B551011/KorService2/ldongCode2?lDongRegnCd=99")
            #expect(none.totalCount == 0)
            for query in ["lDongRegnCd=1", "lDongListYn=X"] {
                let r = try server.http.get("/B551011/KorService2/ldongCode2?\(query)")
                #expect(r.status == 400)
                #expect(try TourXML(Array(r.body)).header["resultCode"] == "10", "\(query)")
            }
        }
        @Test func testLclsSystmCode2() throws {
            // leonpark12/korea-festival-api-parser src/fetchers/category_code.py (with src/config.py's
            // numOfRows=200&pageNo=1&MobileOS=ETC&MobileApp=AppTest&_type=json): lclsSystmCode2 with no
            // code, then lclsSystm1, then lclsSystm1 and lclsSystm2.
            let common = "numOfRows=200&pageNo=1&MobileOS=ETC&MobileApp=AppTest"
            let one = try TourAnswer(server, "/B551011/KorService2/lclsSystmCode2?\(common)")
            #expect(one.totalCount == 10 && one.names.allSatisfy { $0 == ["rnum", "code", "name"] })
            #expect(
                one.items.map { $0["code"] as? String ?? "" } == [
                    "AC", "C01", "EV", "EX", "FD", "HS", "LS", "NA", "SH", "VE",
                ])
            #expect(one.value("name") == "숙박")
            let two = try TourAnswer(server, "/B551011/KorService2/lclsSystmCode2?\(common)&lclsSystm1=AC")
            #expect(two.value("code") == "AC01" && two.value("name") == "호텔" && two.totalCount == 6)
            let three = try TourAnswer(
                server, "/B551011/KorService2/lclsSystmCode2?\(common)&lclsSystm1=AC&lclsSystm2=AC02")
            #expect(three.items.map { $0["code"] as? String ?? "" } == ["AC020100", "AC020200"])
            #expect(three.value("name", at: 1) == "레지던스")
            let alone = try TourAnswer(
                server, "/B551011/KorService2/lclsSystmCode2?lclsSystm1=AC&lclsSystm2=AC02&lclsSystm3=AC020200")
            #expect(alone.ids.count == 1 && alone.value("code") == "AC020200")
            // The whole list: the manual's list form (lclsSystmListYn=Y), paged.
            let all = try TourAnswer(server, "/B551011/KorService2/lclsSystmCode2?lclsSystmListYn=Y&numOfRows=300")
            #expect(all.totalCount == 245)
            #expect(
                all.names.allSatisfy {
                    $0 == [
                        "lclsSystm1Cd", "lclsSystm1Nm", "lclsSystm2Cd", "lclsSystm2Nm", "lclsSystm3Cd", "lclsSystm3Nm",
                        "rnum",
                    ]
                })
            #expect(all.value("lclsSystm1Nm") == "숙박" && all.value("lclsSystm3Cd") == "AC010100")
            let page = try TourAnswer(
                server, "/B551011/KorService2/lclsSystmCode2?lclsSystmListYn=Y&lclsSystm1=FD&numOfRows=3&pageNo=2")
            #expect(page.items.count == 3 && page.value("rnum") == "4")
            #expect(page.items.allSatisfy { $0["lclsSystm1Cd"] as? String == "FD" })
            let none = try TourAnswer(server, "/B551011/KorService2/lclsSystmCode2?lclsSystm1=ZZ")
            #expect(none.totalCount == 0)
            for (query, code) in [("lclsSystm2=AC01", "11"), ("lclsSystm1=ac", "10"), ("lclsSystmListYn=X", "10")] {
                let r = try server.http.get("/B551011/KorService2/lclsSystmCode2?\(query)")
                #expect(r.status == 400)
                #expect(try TourXML(Array(r.body)).header["resultCode"] == code, "\(query)")
            }
        }
        @Test func testCategoryCode2() throws {
            // hapsody/brip-api src/prisma/seeds/tourPlace/readMe.md: categoryCode1 with numOfRows=50&pageNo=1
            // &MobileOS=ETC&MobileApp=AppTest&_type=json, then with a code for the next level.
            let common = "numOfRows=50&pageNo=1&MobileOS=ETC&MobileApp=AppTest"
            let one = try TourAnswer(server, "/B551011/KorService2/categoryCode2?\(common)")
            #expect(one.names.allSatisfy { $0 == ["rnum", "code", "name"] })
            #expect(one.items.map { $0["code"] as? String ?? "" } == ["A01", "A02", "A03", "A04", "A05", "B02", "C01"])
            #expect(one.value("name", at: 4) == "음식" && one.value("rnum", at: 4) == "5")
            let food = try TourAnswer(server, "/B551011/KorService1/categoryCode1?\(common)&cat1=A05&cat2=A0502")
            #expect(food.value("code") == "A05020100" && food.value("name") == "한식")
            #expect(food.items.contains { $0["code"] as? String == "A05020900" && $0["name"] as? String == "카페/전통찻집" })
            // contentTypeId is read and not applied; paging; a code with nothing under it.
            let typed = try TourAnswer(
                server, "/B551011/KorService2/categoryCode2?contentTypeId=12&numOfRows=3&pageNo=3")
            #expect(typed.totalCount == 7 && typed.ids.count == 1 && typed.value("code") == "C01")
            let none = try TourAnswer(server, "/B551011/KorService2/categoryCode2?cat1=A0101")
            #expect(none.totalCount == 0)
            for (query, code) in [("cat3=A05020100", "11"), ("cat1=a01", "10")] {
                let r = try server.http.get("/B551011/KorService2/categoryCode2?\(query)&_type=json")
                #expect(r.status == 400)
                let header = (r.json["response"] as? [String: Any])?["header"] as? [String: String] ?? [:]
                #expect(header["resultCode"] == code, "\(query)")
            }
        }
    }
}
