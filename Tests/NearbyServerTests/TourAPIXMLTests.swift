import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyServer

extension RealServer {
    /// TourAPI's XML envelope: the default (`_type` absent, empty or `xml`), the same items as the JSON
    /// one from the same field list, its empty page and errors, text escaped for XML 1.0.
    @Suite final class TourAPIXMLTests: ServedSuite {
        let served: ServedFixture
        init() throws { served = try ServedFixture() }

        static let names = [
            "addr1", "addr2", "areacode", "cat1", "cat2", "cat3", "contentid", "contenttypeid", "createdtime",
            "firstimage", "firstimage2", "cpyrhtDivCd", "mapx", "mapy", "mlevel", "modifiedtime", "sigungucode", "tel",
            "title", "zipcode", "lDongRegnCd", "lDongSignguCd", "lclsSystm1", "lclsSystm2", "lclsSystm3",
        ]

        /// The XML and JSON answers to `target` carry the same header, footer and items, field by field,
        /// in the order `names` (+ `extra`) gives.
        func expectSameAnswer(
            _ target: String, extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> TourXML {
            let sep = target.contains("?") ? "&" : "?"
            let xmlAnswer = try server.http.get(TourAPIPath.prefix + target)
            let explicit = try server.http.get(TourAPIPath.prefix + target + sep + "_type=XmL")
            let json = try server.http.get(TourAPIPath.prefix + target + sep + "_type=json")
            #expect(xmlAnswer.status == 200, "\(target): \(xmlAnswer.text.prefix(300))", sourceLocation: sourceLocation)
            #expect(
                xmlAnswer.headers["content-type"] == "application/xml; charset=utf-8", sourceLocation: sourceLocation)
            #expect(
                json.headers["content-type"] == "application/json; charset=utf-8", sourceLocation: sourceLocation)
            #expect(explicit.body == xmlAnswer.body, "_type=xml is the default", sourceLocation: sourceLocation)
            #expect(
                xmlAnswer.text.hasPrefix(#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><response>"#),
                sourceLocation: sourceLocation)
            let xml = try TourXML(Array(xmlAnswer.body))
            let response = json.json["response"] as? [String: Any]
            let header = response?["header"] as? [String: Any] ?? [:]
            let body = response?["body"] as? [String: Any] ?? [:]
            #expect(xml.header == ["resultCode": "0000", "resultMsg": "OK"], sourceLocation: sourceLocation)
            #expect(header as? [String: String] == xml.header, sourceLocation: sourceLocation)
            for key in ["numOfRows", "pageNo", "totalCount"] {
                #expect(xml.body[key] == (body[key] as? Int).map(String.init), "\(key)", sourceLocation: sourceLocation)
            }
            let items = (body["items"] as? [String: Any])?["item"] as? [[String: Any]] ?? []
            #expect(xml.items.count == items.count, "\(target)", sourceLocation: sourceLocation)
            for (x, j) in zip(xml.items, items) {
                #expect(x.map(\.name) == Self.names + extra, sourceLocation: sourceLocation)
                #expect(Set(j.keys) == Set(x.map(\.name)), sourceLocation: sourceLocation)
                for (name, value) in x {
                    #expect(j[name] as? String == value, "\(target): \(name)", sourceLocation: sourceLocation)
                }
            }
            return xml
        }

        @Test func testEachOperationAnswersTheSameItemsInXMLAndJSON() throws {
            let location = try expectSameAnswer(
                "locationBasedList2?mapX=126.978&mapY=37.5665&radius=1000&numOfRows=20&pageNo=2", extra: ["dist"])
            #expect(location.items.count == 20)
            let area = try expectSameAnswer("areaBasedList2?areaCode=1&contentTypeId=12&numOfRows=30&MobileOS=ETC")
            #expect(area.items.count == 30)
            let keyword = try expectSameAnswer("searchKeyword2?keyword=%EA%B2%BD%EB%B3%B5%EA%B6%81")
            #expect(keyword.items.map { $0.first { $0.name == "title" }?.value } == ["경복궁"])
            let festival = try expectSameAnswer(
                "searchFestival2?eventStartDate=20250515&numOfRows=50", extra: ["eventstartdate", "eventenddate"])
            #expect(festival.items.count == 50)
            let detail = try expectSameAnswer("detailCommon2?contentId=2", extra: ["telname", "homepage", "overview"])
            #expect(detail.items.count == 1)
        }

        @Test func testTheEmptyPage() throws {
            for target in ["searchKeyword2?keyword=%EC%97%86%EC%9D%8C", "detailCommon2?contentId=none"] {
                let r = try server.http.get(TourAPIPath.prefix + target)
                #expect(r.status == 200, "\(r.text)")
                #expect(r.text.contains("<body><items/><numOfRows>"), "\(r.text)")
                let xml = try expectSameAnswer(target)
                #expect(xml.hasItems && xml.items.isEmpty)
                #expect(xml.body["totalCount"] == "0")
            }
        }

        @Test func testErrorsInXMLUnlessJSONIsAsked() throws {
            let cases: [(String, Int, String, String)] = [
                ("locationBasedList2?mapY=37.5&radius=100", 400, "11", "mapX"),
                ("locationBasedList2?mapX=abc&mapY=37.5&radius=100&_type=", 400, "10", "mapX"),
                ("areaBasedList2?numOfRows=x&_type=xml", 400, "10", "numOfRows"),
                ("areaBasedList2?_type=yaml", 400, "10", "_type"),
                ("detailCommon2?_type=XML", 400, "11", "contentId"),
                ("noSuchOperation2", 404, "12", ""),
            ]
            for (target, status, code, parameter) in cases {
                let r = try server.http.get(TourAPIPath.prefix + target)
                #expect(r.status == status, "\(target): \(r.text)")
                #expect(r.headers["content-type"] == "application/xml; charset=utf-8", "\(target)")
                let xml = try TourXML(Array(r.body))
                #expect(xml.header["resultCode"] == code, "\(target): \(r.text)")
                #expect(parameter.isEmpty || (xml.header["resultMsg"] ?? "").contains(": \(parameter): "), "\(target)")
                #expect(!xml.hasItems && xml.body.isEmpty)
                // The same error asked in JSON: the same code and message.
                let json = try server.http.get(
                    TourAPIPath.prefix + target + (target.contains("?") ? "&" : "?") + "_type=json")
                let header = (json.json["response"] as? [String: Any])?["header"] as? [String: Any]
                if !target.contains("_type=") {
                    #expect(json.status == status)
                    #expect(header?["resultCode"] as? String == code, "\(target): \(json.text)")
                    #expect(header?["resultMsg"] as? String == xml.header["resultMsg"], "\(target)")
                }
            }
            let post = try server.http.send(method: "POST", target: TourAPIPath.prefix + "areaBasedList2")
            #expect(try TourXML(Array(post.body)).header["resultCode"] == "04")
        }

        @Test func testTextIsEscapedForXML() throws {
            #expect(escaped("a&b<c>d\"e'f") == "a&amp;b&lt;c&gt;d&quot;e&apos;f")
            #expect(escaped("a\u{1}b\u{1F}c\u{FFFE}d") == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d")
            #expect(escaped("a\tb\nc\rd 경복궁 \u{1F600}") == "a\tb\nc&#13;d 경복궁 \u{1F600}")

            // Through the server: a title with every special character and controls, parsed back.
            let folder = try TempFolder()
            var places = Fixture.places(20)
            let title = "A&B <\"C\"> 'D' \u{1}E\u{8}\tF\r\nG"
            places[0] = Place(
                id: "1", title: title, lat: places[0].lat, lon: places[0].lon, category: 12,
                addr: "서울 & <중구>", tel: "02'1")
            let path = folder.file("places.sqlite")
            _ = try Importer().importPlaces(places, into: PlaceCache(path: path))
            let special = try RunningServer(path: path)
            defer { special.stop() }
            let r = try special.http.get(TourAPIPath.prefix + "detailCommon2?contentId=1")
            #expect(!r.body.contains { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A }, "no raw control characters")
            let xml = try TourXML(Array(r.body))
            let item = try #require(xml.items.first)
            let value = { (name: String) in item.first { $0.name == name }?.value }
            let stored = try #require(
                ((special.http.get(TourAPIPath.prefix + "detailCommon2?contentId=1&_type=json").json["response"]
                    as? [String: Any])?["body"] as? [String: Any]).flatMap {
                        (($0["items"] as? [String: Any])?["item"] as? [[String: Any]])?.first?["title"] as? String
                    })
            #expect(
                value("title")
                    == String(
                        String.UnicodeScalarView(
                            stored.unicodeScalars.map {
                                $0.value < 0x20 && ![0x09, 0x0A, 0x0D].contains($0.value) ? "\u{FFFD}" : $0
                            })))
            #expect(stored.contains("\u{1}E\u{8}"), "the cache keeps the controls: \(stored)")
            #expect(value("title") == "A&B <\"C\"> 'D' \u{FFFD}E\u{FFFD}\tF\r\nG", "\(r.text)")
            #expect(value("title")?.hasSuffix("\tF\r\nG") == true, "carriage return kept: \(r.text)")
            #expect(value("addr1") == "서울 & <중구>")
            #expect(value("tel") == "02'1")
        }

        func escaped(_ text: String) -> String {
            var out: [UInt8] = []
            TourAPI.appendXMLText(text, to: &out)
            return String(decoding: out, as: UTF8.self)
        }

        @Test func testTheOpenAPIDocumentListsTheTypes() throws {
            let document = try server.http.get("/openapi.json").json
            let paths = document["paths"] as? [String: Any] ?? [:]
            for operation in TourAPI.served {
                let get = (paths[operation.path] as? [String: Any])?["get"] as? [String: Any]
                let type = (get?["parameters"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "_type" }
                let values = (type?["schema"] as? [String: Any])?["enum"] as? [String] ?? []
                #expect(Set(values) == ["xml", "json"], "\(operation)")
                // A language service's code list also documents its 501 (TourAPI's envelope, resultCode 12)
                // for a cache that holds none.
                let responses = get?["responses"] as? [String: Any]
                for status in operation.codesAreSynced ? ["200", "501"] : ["200"] {
                    let answer = responses?[status] as? [String: Any]
                    let content = Set((answer?["content"] as? [String: Any] ?? [:]).keys)
                    #expect(content == ["application/xml", "application/json"], "\(operation) \(status)")
                }
                #expect((responses?["501"] != nil) == operation.codesAreSynced, "\(operation)")
                for value in values {
                    let r = try server.http.get(
                        TourAPIPath.prefix + "areaBasedList2?numOfRows=1&_type=\(value.uppercased())")
                    #expect(r.status == 200)
                    #expect(r.headers["content-type"]?.hasPrefix("application/\(value);") == true, "\(value)")
                }
            }
        }
    }
}
