import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyServer

/// A small cache for the TourAPI operations beyond KorService2's first lists: 300 places of the
/// fixture's grid (every fifth an accommodation, content type 32), one stay with an image, a place with
/// a barrier-free detail and an image, one with a pet detail.
final class TourOperationsFixture {
    let folder: TempFolder
    let server: RunningServer
    let places: [Place]
    static let image = "http://tong.visitkorea.or.kr/cms/resource/01/1000001_image2_1.jpg"

    init() throws {
        folder = try TempFolder()
        var places = Fixture.places(300)
        places[0].image = Self.image
        places[0].barrierFree =
            PlaceDetail(
                id: "1", kind: .barrierFree,
                fields: [.init(name: "wheelchair", text: "휠체어 대여 가능(2대)"), .init(name: "stroller", text: "유모차 대여")]
            ).originalText
        places[1].pet = "all"
        places[1].petInfo =
            PlaceDetail(
                id: "2", kind: .pet,
                fields: [.init(name: "acmpyTypeCd", text: "전구역 동반가능"), .init(name: "acmpyNeedMtr", text: "목줄 착용")]
            ).originalText
        places[4].image = Self.image  // id 5, an accommodation
        self.places = places
        let path = folder.file("places.sqlite")
        _ = try Importer().importPlaces(places, into: PlaceCache(path: path))
        server = try RunningServer(path: path)
    }

    deinit { server.stop() }
}

/// One answer asked in both formats, read as an app reads it: the XML with a real parser (`TourXML`),
/// the JSON with `JSONSerialization`, checked to carry the same header, footer and items.
struct TourAnswer {
    var xml: TourXML
    var body: [String: Any]
    var items: [[String: Any]]
    var status: Int

    var totalCount: Int? { body["totalCount"] as? Int }
    var ids: [String] { items.map { $0["contentid"] as? String ?? "" } }
    /// The field names of each item, in the order the XML writes them.
    var names: [[String]] { xml.items.map { $0.map(\.name) } }

    init(_ server: RunningServer, _ target: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let sep = target.contains("?") ? "&" : "?"
        let x = try server.http.get(target)
        let j = try server.http.get(target + sep + "_type=json")
        status = x.status
        #expect(x.status == 200, "\(target): \(x.text.prefix(300))", sourceLocation: sourceLocation)
        #expect(j.status == 200, "\(target): \(j.text.prefix(300))", sourceLocation: sourceLocation)
        #expect(x.headers["content-type"] == "application/xml; charset=utf-8", sourceLocation: sourceLocation)
        #expect(j.headers["content-type"] == "application/json; charset=utf-8", sourceLocation: sourceLocation)
        xml = try TourXML(Array(x.body))
        let response = j.json["response"] as? [String: Any]
        let header = response?["header"] as? [String: Any]
        body = response?["body"] as? [String: Any] ?? [:]
        #expect(xml.header == ["resultCode": "0000", "resultMsg": "OK"], "\(target)", sourceLocation: sourceLocation)
        #expect(header as? [String: String] == xml.header, sourceLocation: sourceLocation)
        // numOfRows, pageNo and totalCount are JSON numbers, as TourAPI writes them.
        for key in ["numOfRows", "pageNo", "totalCount"] {
            #expect(
                (body[key] as? Int) != nil && !(body[key] is String), "\(target): \(key)",
                sourceLocation: sourceLocation)
            #expect(xml.body[key] == (body[key] as? Int).map(String.init), "\(key)", sourceLocation: sourceLocation)
        }
        #expect(xml.hasItems, sourceLocation: sourceLocation)
        if let list = (body["items"] as? [String: Any])?["item"] as? [[String: Any]] {
            items = list
        } else {
            items = []
            // The empty page: `"items": ""` and `<items/>`, as TourAPI writes it.
            #expect(body["items"] as? String == "", "\(target): \(j.text.prefix(300))", sourceLocation: sourceLocation)
            #expect(x.text.contains("<items/>"), sourceLocation: sourceLocation)
        }
        #expect(xml.items.count == items.count, "\(target)", sourceLocation: sourceLocation)
        for (xItem, jItem) in zip(xml.items, items) {
            #expect(Set(jItem.keys) == Set(xItem.map(\.name)), sourceLocation: sourceLocation)
            for (name, value) in xItem {
                // Every item value is a string, in both formats, but a code list's `rnum`: a JSON number,
                // as TourAPI writes it.
                if name == "rnum" {
                    #expect(
                        jItem[name] as? Int == Int(value) && !(jItem[name] is String), "\(target): rnum",
                        sourceLocation: sourceLocation)
                } else {
                    #expect(jItem[name] as? String == value, "\(target): \(name)", sourceLocation: sourceLocation)
                }
            }
        }
    }

    /// Item `i`'s `name` as text (`rnum`'s number too).
    func value(_ name: String, at i: Int = 0) -> String? {
        guard items.indices.contains(i) else { return nil }
        return items[i][name] as? String ?? (items[i][name] as? Int).map(String.init)
    }
}

extension RealServer {
    /// TourAPI's other operations as apps send them: searchStay2, KorService1's names and fields, the
    /// barrier-free and pet details, detailIntro2/detailInfo2/detailImage2 from what the cache has,
    /// and the error answer for operations and services not served (the code lists: TourAPICodeListTests).
    @Suite final class TourAPIOperationsTests {
        let fixture: TourOperationsFixture
        init() throws { fixture = try TourOperationsFixture() }
        var server: RunningServer { fixture.server }
        var places: [Place] { fixture.places }

        static let korService1List = [
            "addr1", "addr2", "areacode", "booktour", "cat1", "cat2", "cat3", "contentid", "contenttypeid",
            "createdtime", "firstimage", "firstimage2", "cpyrhtDivCd", "mapx", "mapy", "mlevel", "modifiedtime",
            "sigungucode", "tel", "title", "zipcode",
        ]
        static let korService2List = TourAPIXMLTests.names

        /// Newest modified first, ties by id: the default order (`C`) of the lists.
        func newestFirst(_ list: [Place]) -> [String] {
            list.sorted { ($0.modified ?? "", Int($1.id)!) > ($1.modified ?? "", Int($0.id)!) }.map(\.id)
        }

        @Test func testSearchStay2() throws {
            // As public apps send it (requests found by searching public code for `searchStay2?`: a
            // collector sends MobileOS=WEB, areaCode, _type=json, pageNo=1, numOfRows=100; another app
            // lDongRegnCd with arrange=O).
            let stays = places.filter { $0.category == 32 && $0.sigungucode == "5" }
            #expect(stays.count > 5)
            let target = "/B551011/KorService2/searchStay2?MobileOS=WEB&MobileApp=Mohaeng&areaCode=1&sigunguCode=5"
            let all = try TourAnswer(server, target + "&pageNo=1&numOfRows=100&serviceKey=abc%2Bdef%3D%3D")
            #expect(all.totalCount == stays.count)
            #expect(all.ids == newestFirst(stays))
            #expect(all.names.allSatisfy { $0 == Self.korService2List }, "\(all.names.first ?? [])")
            #expect(all.items.allSatisfy { $0["contenttypeid"] as? String == "32" })
            // Paging: pages of 4 continue one another.
            let one = try TourAnswer(server, target + "&numOfRows=4&pageNo=1")
            let two = try TourAnswer(server, target + "&numOfRows=4&pageNo=2")
            #expect(one.ids + two.ids == Array(all.ids.prefix(8)))
            #expect(two.body["pageNo"] as? Int == 2 && two.body["numOfRows"] as? Int == 4)
            #expect(two.totalCount == stays.count)
            // contentTypeId cannot widen it; arrange=O keeps the stays with an image (id 5).
            let typed = try TourAnswer(server, "/B551011/KorService2/searchStay2?contentTypeId=12&numOfRows=1")
            #expect(typed.totalCount == places.filter { $0.category == 32 }.count)
            let pictured = try TourAnswer(server, "/B551011/KorService2/searchStay2?arrange=O&MobileOS=ETC")
            #expect(pictured.ids == ["5"])
            #expect(pictured.value("firstimage") == TourOperationsFixture.image)
            // No place has legal-dong codes: the empty answer, in both formats.
            let none = try TourAnswer(server, "/B551011/KorService2/searchStay2?lDongRegnCd=50&arrange=O")
            #expect(none.totalCount == 0 && none.items.isEmpty)
            let lcls = try TourAnswer(server, "/B551011/KorService2/searchStay2?lclsSystm1=AC&lclsSystm2=AC03")
            #expect(lcls.totalCount == 0)
        }

        @Test func testKorService1Lists() throws {
            // uniS2/WonT-Next src/lib/tour/tour.ts: locationBasedList1 with _type=json, MobileOS=ETC,
            // MobileApp=WonT, radius=10000, numOfRows=30, contentTypeId=32 (its stays nearby).
            let near = try TourAnswer(
                server,
                "/B551011/KorService1/locationBasedList1?serviceKey=k&MobileOS=ETC&MobileApp=WonT&numOfRows=30"
                    + "&radius=10000&contentTypeId=32&pageNo=1&mapX=126.981611&mapY=37.568477&listYN=Y")
            let expected = Fixture.within(
                places.filter { $0.category == 32 }, lat: 37.568477, lon: 126.981611, radius: 10_000)
            #expect(near.totalCount == expected.count)
            #expect(near.ids == expected.prefix(30).map(\.id))
            #expect(near.names.allSatisfy { $0 == Self.korService1List + ["dist"] }, "\(near.names.first ?? [])")
            #expect(near.items.allSatisfy { $0["lDongRegnCd"] == nil && $0["booktour"] as? String == "" })

            // An areaBasedList1 request with arrange=B (popularity; answered newest first, as C).
            let area = try TourAnswer(
                server,
                "/B551011/KorService1/areaBasedList1?MobileOS=ETC&MobileApp=TourApp&numOfRows=10&pageNo=1"
                    + "&arrange=B&contentTypeId=12&areaCode=1")
            #expect(area.ids == Array(newestFirst(places.filter { $0.category == 12 }).prefix(10)))
            #expect(area.names.allSatisfy { $0 == Self.korService1List })

            let keyword = try TourAnswer(
                server, "/B551011/KorService1/searchKeyword1?keyword=%EA%B2%BD%EB%B3%B5%EA%B6%81")
            #expect(keyword.ids == ["1"])
            let festival = try TourAnswer(
                server, "/B551011/KorService1/searchFestival1?eventStartDate=20250515&numOfRows=5")
            #expect(festival.names.allSatisfy { $0 == Self.korService1List + ["eventstartdate", "eventenddate"] })
            #expect(festival.items.allSatisfy { $0["contenttypeid"] as? String == "15" })

            // ykkim97/tripstory-server api/accommodation.js: searchStay1 with MobileOS=WIN,
            // MobileApp=tourTest, numOfRows=12, listYN=Y, arrange=A; Iwillbeagood/TripGuide_v2
            // TourStayApi.kt: arrange=P (popularity with an image; answered as Q).
            let stays = try TourAnswer(
                server,
                "/B551011/KorService1/searchStay1?MobileOS=WIN&MobileApp=tourTest&numOfRows=12&pageNo=2&listYN=Y"
                    + "&arrange=A")
            #expect(stays.totalCount == places.filter { $0.category == 32 }.count)
            #expect(stays.items.count == 12 && stays.names.allSatisfy { $0 == Self.korService1List })
            let popular = try TourAnswer(server, "/B551011/KorService1/searchStay1?arrange=P&pageNo=1")
            #expect(popular.ids == ["5"])
            let empty = try TourAnswer(server, "/B551011/KorService1/searchStay1?areaCode=39")
            #expect(empty.totalCount == 0)
        }

        @Test func testDetailCommon1Flags() throws {
            // Iwillbeagood/TripGuide_v2 TourCommonInfoApi.kt: detailCommon1 with defaultYN, firstImageYN,
            // addrinfoYN, mapinfoYN and overviewYN Y.
            let full = try TourAnswer(
                server,
                "/B551011/KorService1/detailCommon1?contentId=1&defaultYN=Y&firstImageYN=Y&addrinfoYN=Y&mapinfoYN=Y"
                    + "&overviewYN=Y&MobileOS=AND&MobileApp=TripGuide")
            #expect(
                full.names == [
                    [
                        "contentid", "contenttypeid", "booktour", "createdtime", "homepage", "modifiedtime", "tel",
                        "telname", "title", "firstimage", "firstimage2", "cpyrhtDivCd", "addr1", "addr2", "zipcode",
                        "mapx", "mapy", "mlevel", "overview",
                    ]
                ])
            #expect(full.value("title") == "경복궁" && full.value("firstimage") == TourOperationsFixture.image)
            #expect(full.value("mapx") == "\(places[0].lon)" && full.value("overview") == "")
            // No flag: the two ids only; every flag in lower case too.
            let bare = try TourAnswer(server, "/B551011/KorService1/detailCommon1?contentId=2")
            #expect(bare.names == [["contentid", "contenttypeid"]])
            #expect(bare.value("contenttypeid") == String(places[1].category))
            let codes = try TourAnswer(
                server, "/B551011/KorService1/detailCommon1?contentId=2&areacodeYN=y&catcodeYN=Y")
            #expect(codes.names == [["contentid", "contenttypeid", "areacode", "sigungucode", "cat1", "cat2", "cat3"]])
            #expect(codes.value("cat1") == "A01")
            let unknown = try TourAnswer(server, "/B551011/KorService1/detailCommon1?contentId=999999&defaultYN=Y")
            #expect(unknown.totalCount == 0)
            let refused = try server.http.get("/B551011/KorService1/detailCommon1?contentId=1&defaultYN=yes&_type=json")
            #expect(refused.status == 400)
            let header = (refused.json["response"] as? [String: Any])?["header"] as? [String: Any]
            #expect(header?["resultCode"] as? String == "10")
            #expect((header?["resultMsg"] as? String ?? "").contains("defaultYN"))
        }

        @Test func testBarrierFreeAndPetDetails() throws {
            let barrierFree = try TourAnswer(
                server, "/B551011/KorWithService2/detailWithTour2?contentId=1&MobileOS=ETC&MobileApp=x")
            #expect(barrierFree.names == [["contentid"] + TourAPI.barrierFreeNames])
            #expect(TourAPI.barrierFreeNames.count == BarrierFreeDetail.fields.count)
            #expect(barrierFree.value("wheelchair") == "휠체어 대여 가능(2대)")
            #expect(barrierFree.value("stroller") == "유모차 대여" && barrierFree.value("elevator") == "")
            let without = try TourAnswer(server, "/B551011/KorWithService2/detailWithTour2?contentId=3")
            #expect(without.totalCount == 0)

            let pet = try TourAnswer(server, "/B551011/KorPetTourService2/detailPetTour2?contentId=2&numOfRows=10")
            #expect(pet.names == [["contentid"] + TourAPI.petNames])
            #expect(Set(TourAPI.petNames) == PetFriendliness.fields)
            #expect(pet.value("acmpyTypeCd") == "전구역 동반가능" && pet.value("acmpyNeedMtr") == "목줄 착용")
            #expect(pet.value("relaPosesFclty") == "")
            #expect(try TourAnswer(server, "/B551011/KorPetTourService2/detailPetTour2?contentId=1").totalCount == 0)
            let missing = try server.http.get("/B551011/KorPetTourService2/detailPetTour2")
            #expect(missing.status == 400)
            #expect(try TourXML(Array(missing.body)).header["resultCode"] == "11")
        }

        @Test func testIntroInfoAndImageFromWhatTheCacheHas() throws {
            // detailIntro2/detailInfo2 for a known place: the envelope with no item (the cache keeps none).
            for operation in ["detailIntro2", "detailInfo2"] {
                let r = try TourAnswer(
                    server, "/B551011/KorService2/\(operation)?contentId=1&contentTypeId=12&MobileOS=ETC&MobileApp=x")
                #expect(r.totalCount == 0 && r.items.isEmpty, "\(operation)")
            }
            let image = try TourAnswer(server, "/B551011/KorService2/detailImage2?contentId=1&imageYN=Y")
            #expect(
                image.names == [["contentid", "imgname", "originimgurl", "serialnum", "smallimageurl", "cpyrhtDivCd"]])
            #expect(image.value("originimgurl") == TourOperationsFixture.image)
            #expect(image.value("smallimageurl") == TourOperationsFixture.image)
            #expect(image.totalCount == 1)
            // Menu images (imageYN=N), a place without an image, an unknown place: none.
            for target in ["contentId=1&imageYN=N", "contentId=3", "contentId=999999"] {
                #expect(try TourAnswer(server, "/B551011/KorService2/detailImage2?" + target).totalCount == 0)
            }
            let one = try TourAnswer(
                server, "/B551011/KorService1/detailImage1?contentId=1&imageYN=Y&subImageYN=Y&numOfRows=10")
            #expect(one.value("originimgurl") == TourOperationsFixture.image)
            let intro = try TourAnswer(server, "/B551011/KorService1/detailIntro1?contentId=1&contentTypeId=12")
            #expect(intro.totalCount == 0)
        }

        @Test func testOperationsAndServicesNotServed() throws {
            for target in [
                "/B551011/KorPetTourService2/searchFestival2?_type=json", "/B551011/KorWithService2/searchStay2",
                "/B551011/EngService2/areaCode3", "/B551011/KorService2/", "/B551011/KorService9/detailCommon9",
            ] {
                let r = try server.http.get(target)
                #expect(r.status == 404, "\(target)")
                let header: [String: Any]
                if target.hasSuffix("_type=json") {
                    #expect(r.headers["content-type"] == "application/json; charset=utf-8")
                    header = (r.json["response"] as? [String: Any])?["header"] as? [String: Any] ?? [:]
                } else {
                    #expect(r.headers["content-type"] == "application/xml; charset=utf-8", "\(target)")
                    header = try TourXML(Array(r.body)).header
                }
                #expect(header["resultCode"] as? String == "12", "\(target): \(r.text)")
                #expect((header["resultMsg"] as? String ?? "").hasPrefix("NO_OPENAPI_SERVICE_ERROR"), "\(target)")
            }
            let post = try server.http.send(method: "POST", target: "/B551011/KorService1/areaBasedList1")
            #expect(post.status == 405)
            #expect(try TourXML(Array(post.body)).header["resultCode"] == "04")
            // Every operation served is in the server's paths and the OpenAPI document.
            #expect(Set(TourAPI.served.map(\.path)).isSubset(of: Set(NearbyHTTPServer.paths)))
        }
    }
}
