import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyServer

extension RealServer {
    /// TourAPI's area codes (`areaCode2`/`areaCode1`, data/tourapi-area.tsv) and the language services'
    /// code lists: EngService2's `lclsSystmCode2` in English (data/tourapi-lcls-en.tsv), the others
    /// refused with `12`. Every answer is read in both formats (`TourAnswer`: the XML with `XMLParser`).
    @Suite final class TourAPICodeListTests {
        let fixture: TourOperationsFixture
        init() throws { fixture = try TourOperationsFixture() }
        var server: RunningServer { fixture.server }

        func codes(_ answer: TourAnswer) -> [String] { answer.items.map { $0["code"] as? String ?? "" } }

        @Test func theAreas() throws {
            // As apps ask it (numOfRows=20&pageNo=1&MobileOS=ETC&MobileApp=…): the 17 areas, TourAPI's names.
            let all = try TourAnswer(
                server, "/B551011/KorService2/areaCode2?numOfRows=20&pageNo=1&MobileOS=ETC&MobileApp=AppTest")
            #expect(all.totalCount == 17 && all.body["numOfRows"] as? Int == 20 && all.body["pageNo"] as? Int == 1)
            #expect(all.names.allSatisfy { $0 == ["rnum", "code", "name"] })
            #expect(codes(all) == TourAreaCode.names.keys.sorted { Int($0)! < Int($1)! })
            #expect(all.value("rnum") == "1" && all.value("code") == "1" && all.value("name") == "서울")
            #expect(all.value("name", at: 8) == "경기도" && all.value("name", at: 9) == "강원특별자치도")
            #expect(all.value("name", at: 14) == "전북특별자치도" && all.value("rnum", at: 16) == "17")
            // Paged as TourAPI pages: the default 10 rows, a later page, a page past the end.
            let first = try TourAnswer(server, "/B551011/KorService2/areaCode2")
            #expect(first.items.count == 10 && first.totalCount == 17 && first.body["numOfRows"] as? Int == 10)
            let last = try TourAnswer(server, "/B551011/KorService2/areaCode2?numOfRows=5&pageNo=4")
            #expect(codes(last) == ["38", "39"] && last.value("rnum") == "16")
            let past = try TourAnswer(server, "/B551011/KorService1/areaCode1?numOfRows=10&pageNo=3")
            #expect(past.items.isEmpty && past.totalCount == 17)
        }

        @Test func anAreasSigungu() throws {
            let seoul = try TourAnswer(server, "/B551011/KorService2/areaCode2?areaCode=1&numOfRows=100")
            #expect(seoul.totalCount == 25 && seoul.names.allSatisfy { $0 == ["rnum", "code", "name"] })
            #expect(seoul.value("code") == "1" && seoul.value("name") == "강남구" && seoul.value("rnum") == "1")
            #expect(seoul.value("name", at: 24) == "중랑구" && seoul.value("code", at: 24) == "25")
            // The service's numbering keeps its gaps (충남 has no 10), so rnum and code part.
            let chungnam = try TourAnswer(server, "/B551011/KorService1/areaCode1?areaCode=34&numOfRows=20")
            #expect(chungnam.value("code", at: 9) == "11" && chungnam.value("rnum", at: 9) == "10")
            #expect(chungnam.value("name", at: 9) == "예산군" && !codes(chungnam).contains("10"))
            // 군위군 is 대구's since 2023; 경북 keeps no 5. Old 시군구 stay listed, as the service lists them.
            let daegu = try TourAnswer(server, "/B551011/KorService2/areaCode2?areaCode=4")
            #expect(daegu.totalCount == 9 && daegu.items.count == 9 && daegu.value("name", at: 8) == "군위군")
            let gyeongbuk = try TourAnswer(server, "/B551011/KorService2/areaCode2?areaCode=35&numOfRows=30")
            #expect(!codes(gyeongbuk).contains("5") && gyeongbuk.totalCount == 22)
            let jeju = try TourAnswer(server, "/B551011/KorService2/areaCode2?areaCode=39")
            #expect(jeju.items.compactMap { $0["name"] as? String } == ["남제주군", "북제주군", "서귀포시", "제주시"])
            // Paging within an area: 경기's 31 시군구, the last page of 10.
            let gyeonggi = try TourAnswer(server, "/B551011/KorService2/areaCode2?areaCode=31&numOfRows=10&pageNo=4")
            #expect(gyeonggi.totalCount == 31 && gyeonggi.items.count == 1)
            #expect(gyeonggi.value("code") == "31" && gyeonggi.value("name") == "화성시" && gyeonggi.value("rnum") == "31")
            #expect(try TourAnswer(server, "/B551011/KorService2/areaCode2?areaCode=01").totalCount == 25)
        }

        @Test func anUnknownAreaIsTheEmptyPageAndANonNumberIsRefused() throws {
            for area in ["9", "40", "0", "99999999999999999999"] {
                let none = try TourAnswer(server, "/B551011/KorService2/areaCode2?areaCode=\(area)")
                #expect(none.totalCount == 0 && none.items.isEmpty, "\(area)")
            }
            for area in ["seoul", "-1", "1.0"] {
                let r = try server.http.get("/B551011/KorService2/areaCode2?areaCode=\(area)")
                #expect(r.status == 400, "\(area)")
                let header = try TourXML(Array(r.body)).header
                #expect(header["resultCode"] == "10", "\(area): \(r.text)")
                #expect(header["resultMsg"]?.contains("areaCode") == true)
                let json = try server.http.get("/B551011/KorService2/areaCode2?areaCode=\(area)&_type=json")
                let jsonHeader = (json.json["response"] as? [String: Any])?["header"] as? [String: Any]
                #expect(jsonHeader?["resultCode"] as? String == "10")
            }
        }

        @Test func engService2ListsTheClassificationInEnglish() throws {
            let one = try TourAnswer(server, "/B551011/EngService2/lclsSystmCode2?numOfRows=200&MobileOS=ETC")
            #expect(codes(one) == ["AC", "EV", "EX", "FD", "HS", "LS", "NA", "SH", "VE"])
            #expect(one.value("name") == "Accommodation" && one.names.allSatisfy { $0 == ["rnum", "code", "name"] })
            let two = try TourAnswer(server, "/B551011/EngService2/lclsSystmCode2?lclsSystm1=AC&numOfRows=200")
            #expect(two.value("code") == "AC01" && two.value("name") == "Hotels" && two.totalCount == 6)
            let three = try TourAnswer(
                server, "/B551011/EngService2/lclsSystmCode2?lclsSystm1=AC&lclsSystm2=AC02&numOfRows=200")
            #expect(codes(three) == ["AC020100", "AC020200"] && three.value("name", at: 1) == "Serviced Residences")
            let all = try TourAnswer(server, "/B551011/EngService2/lclsSystmCode2?lclsSystmListYn=Y&numOfRows=300")
            #expect(all.totalCount == 234 && all.value("lclsSystm1Nm") == "Accommodation")
            #expect(all.value("lclsSystm3Cd") == "AC010100" && all.value("lclsSystm3Nm") == "Hotels")
            let page = try TourAnswer(
                server, "/B551011/EngService2/lclsSystmCode2?lclsSystmListYn=Y&lclsSystm1=FD&numOfRows=3&pageNo=2")
            #expect(page.items.count == 3 && page.value("rnum") == "4")
            // No course codes, and no English name the source does not have: the empty page.
            let none = try TourAnswer(
                server, "/B551011/EngService2/lclsSystmCode2?lclsSystm1=FD&lclsSystm2=FD03&lclsSystm3=FD030200")
            #expect(none.totalCount == 0)
            #expect(try TourAnswer(server, "/B551011/EngService2/lclsSystmCode2?lclsSystm1=C01").totalCount == 0)
            let r = try server.http.get("/B551011/EngService2/lclsSystmCode2?lclsSystm2=AC01")
            #expect(r.status == 400)
            #expect(try TourXML(Array(r.body)).header["resultCode"] == "11")
        }

        @Test func theOtherLanguageCodeListsAreRefusedWithTheirReason() throws {
            let targets = [
                "EngService2/areaCode2", "EngService2/areaCode2?areaCode=1", "EngService2/categoryCode2",
                "EngService2/ldongCode2", "JpnService2/lclsSystmCode2", "ChsService2/areaCode2",
                "GerService2/categoryCode2?contentTypeId=76", "RusService2/ldongCode2?lDongRegnCd=11",
            ]
            for target in targets {
                let sep = target.contains("?") ? "&" : "?"
                let xml = try server.http.get("/B551011/" + target)
                #expect(xml.status == 501, "\(target): \(xml.text)")
                #expect(xml.headers["content-type"] == "application/xml; charset=utf-8")
                let parsed = try TourXML(Array(xml.body))
                #expect(parsed.header["resultCode"] == "12", "\(target)")
                let message = parsed.header["resultMsg"] ?? ""
                #expect(message.hasPrefix("NO_OPENAPI_SERVICE_ERROR") && message.contains("not served"), "\(message)")
                #expect(!parsed.hasItems)
                let json = try server.http.get("/B551011/" + target + sep + "_type=json")
                #expect(json.status == 501 && json.headers["content-type"] == "application/json; charset=utf-8")
                let header = (json.json["response"] as? [String: Any])?["header"] as? [String: Any]
                #expect(header?["resultCode"] as? String == "12" && header?["resultMsg"] as? String == message)
            }
            // Each is a known path (a wrong method is 405, not 404). Every language service's four code
            // lists come from its sync; without one, all but EngService2's classification (a table ships).
            let post = try server.http.send(method: "POST", target: "/B551011/EngService2/areaCode2")
            #expect(post.status == 405)
            let synced = TourAPI.served.filter(\.codesAreSynced)
            #expect(synced.count == 8 * 4)
            let refused = synced.filter { TourAPI.shipped($0.codeList!, $0.language) == nil }.map {
                $0.service + "/" + $0.name
            }
            #expect(refused.count == 8 * 4 - 1 && !refused.contains("EngService2/lclsSystmCode2"))
        }
    }
}
