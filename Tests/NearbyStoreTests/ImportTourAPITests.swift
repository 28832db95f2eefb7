import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

@Suite struct ImportTourAPITests {
    /// KorService1 locationBasedList1, pretty-printed the way a browser saves it.
    static let korService1 = """
        {
          "response": {
            "header": {"resultCode": "0000", "resultMsg": "OK"},
            "body": {
              "items": {
                "item": [
                  {"addr1": "서울특별시 중구 세종대로 99", "addr2": "(정동)", "areacode": "1", "booktour": "", "cat1": "A02",
                   "cat2": "A0201", "cat3": "A02010100", "contentid": "126508", "contenttypeid": "12",
                   "createdtime": "20071106090000", "dist": "102.87", "firstimage": "http://tong.visitkorea.or.kr/cms/resource/26/2656426_image2_1.jpg",
                   "firstimage2": "", "cpyrhtDivCd": "Type3", "mapx": "126.9751183616", "mapy": "37.5658049845", "mlevel": "6",
                   "modifiedtime": "20240517110023", "sigungucode": "24", "tel": "02-771-9955", "title": "덕수궁"},
                  {"addr1": "서울특별시 중구 세종대로 110", "addr2": "", "areacode": "1", "cat1": "A02", "cat2": "A0206",
                   "cat3": "A02060100", "contentid": "2733967", "contenttypeid": "14", "createdtime": "20210913134226",
                   "dist": "15.2", "firstimage": "", "mapx": "126.9779692", "mapy": "37.5662952", "mlevel": "6",
                   "modifiedtime": "20230601093012", "sigungucode": "24", "tel": "", "title": "서울시청 시민청"}
                ]
              },
              "numOfRows": 10, "pageNo": 1, "totalCount": 2
            }
          }
        }
        """

    @Test func korService1LocationBasedList() throws {
        let parsed = try parseFile(Self.korService1, name: "loc.json")
        #expect(parsed.format == .tourapi)
        #expect(parsed.errors.isEmpty)
        #expect(parsed.lines == [7, 12])
        #expect(
            parsed.places == [
                Place(
                    id: "126508", title: "덕수궁", lat: 37.5658049845, lon: 126.9751183616, category: 12,
                    created: "20071106090000", modified: "20240517110023", areacode: "1", sigungucode: "24",
                    addr: "서울특별시 중구 세종대로 99 (정동)", tel: "02-771-9955",
                    image: "http://tong.visitkorea.or.kr/cms/resource/26/2656426_image2_1.jpg",
                    cat1: "A02", cat2: "A0201", cat3: "A02010100"),
                Place(
                    id: "2733967", title: "서울시청 시민청", lat: 37.5662952, lon: 126.9779692, category: 14,
                    created: "20210913134226", modified: "20230601093012", areacode: "1", sigungucode: "24",
                    addr: "서울특별시 중구 세종대로 110", cat1: "A02", cat2: "A0206", cat3: "A02060100"),
            ])
    }

    @Test func korService2SingleObjectItem() throws {
        let json =
            #"{"response":{"header":{"resultCode":"0000","resultMsg":"OK"},"body":{"items":{"item":{"addr1":"서울특별시 종로구 사직로 161","addr2":"","contentid":"126508","contenttypeid":"12","createdtime":"20071106090000","firstimage":"","firstimage2":"","cpyrhtDivCd":"","mapx":"126.9769930325","mapy":"37.5788222356","mlevel":"6","modifiedtime":"20250305161518","tel":"","title":"경복궁","zipcode":"03045","lDongRegnCd":"11","lDongSignguCd":"110","lclsSystm1":"HS","lclsSystm2":"HS01","lclsSystm3":"HS010100"}},"numOfRows":1,"pageNo":1,"totalCount":1}}}"#
        let parsed = try parseFile(json, name: "area2.json")
        #expect(parsed.errors.isEmpty)
        #expect(
            parsed.places == [
                Place(
                    id: "126508", title: "경복궁", lat: 37.5788222356, lon: 126.9769930325, category: 12,
                    created: "20071106090000", modified: "20250305161518", addr: "서울특별시 종로구 사직로 161",
                    lDongRegnCd: "11", lDongSignguCd: "110", lclsSystm1: "HS", lclsSystm2: "HS01",
                    lclsSystm3: "HS010100")
            ])
    }

    @Test func emptyItemsString() throws {
        let json =
            #"{"response":{"header":{"resultCode":"0000","resultMsg":"OK"},"body":{"items":"","numOfRows":10,"pageNo":3,"totalCount":20}}}"#
        let parsed = try parseFile(json, name: "empty.json")
        #expect(parsed.format == .tourapi)
        #expect(parsed.records.isEmpty && parsed.errors.isEmpty)
    }

    @Test func errorEnvelopeRefusesTheFile() {
        let json =
            #"{"response":{"header":{"resultCode":"0022","resultMsg":"LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR"}}}"#
        #expect(
            refusal(json, name: "e.json")
                == "e.json: TourAPI error envelope: resultCode 0022: LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR")
        let bare =
            #"{"responseTime":"2025-06-01T10:00:00","resultCode":"10","resultMsg":"INVALID_REQUEST_PARAMETER_ERROR"}"#
        #expect(
            refusal(bare, name: "b.json")
                == "b.json: TourAPI error envelope: resultCode 10: INVALID_REQUEST_PARAMETER_ERROR")
        let xml =
            "<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR</errMsg><returnAuthMsg>SERVICE_KEY_IS_NOT_REGISTERED_ERROR</returnAuthMsg><returnReasonCode>30</returnReasonCode></cmmMsgHeader></OpenAPI_ServiceResponse>"
        #expect(
            refusal(xml, name: "x.xml")
                == "x.xml: TourAPI error envelope (XML): SERVICE_KEY_IS_NOT_REGISTERED_ERROR, SERVICE ERROR, returnReasonCode 30"
        )
    }

    @Test func syncListDeletesAndFestivalDates() throws {
        let json = """
            {"response":{"header":{"resultCode":"0000","resultMsg":"OK"},"body":{"items":{"item":[
            {"contentid":"2786391","contenttypeid":"15","title":"서울장미축제","mapx":"127.0943","mapy":"37.6029","showflag":"1","eventstartdate":"20250516","eventenddate":"20250531","modifiedtime":"20250401120000"},
            {"contentid":"1000001","contenttypeid":"12","title":"","mapx":"","mapy":"","showflag":"0","modifiedtime":"20250402120000"},
            {"contentid":"2786392","contenttypeid":"15","title":"거꾸로 축제","mapx":"127.0","mapy":"37.5","showflag":"1","eventstartdate":"20250531","eventenddate":"20250516"}
            ]},"numOfRows":3,"pageNo":1,"totalCount":3}}}
            """
        let parsed = try parseFile(json, name: "sync.json")
        #expect(
            parsed.records == [
                LineRecord(
                    line: 2,
                    record: .upsert(
                        Place(
                            id: "2786391", title: "서울장미축제", lat: 37.6029, lon: 127.0943, category: 15,
                            modified: "20250401120000", eventStart: "20250516", eventEnd: "20250531"))),
                LineRecord(line: 3, record: .delete(id: "1000001")),
            ])
        #expect(parsed.messages == ["sync.json:4: eventenddate: 20250516 is before eventStart 20250531"])
    }

    @Test func pagesOneResponsePerLineWithBadItems() throws {
        func page(_ n: Int, _ items: String) -> String {
            #"{"response":{"header":{"resultCode":"0000","resultMsg":"OK"},"body":{"items":{"item":[\#(items)]},"numOfRows":2,"pageNo":\#(n),"totalCount":4}}}"#
        }
        let text =
            page(
                1,
                #"{"contentid":"1","contenttypeid":"39","title":"을지면옥","mapx":"126.9926","mapy":"37.5663"},{"contentid":"2","contenttypeid":"39","title":"우래옥","mapx":"126.9983","mapy":"37.5683"}"#
            )
            + "\n"
            + page(
                2,
                #"{"contentid":"3","contenttypeid":"39","title":"필동면옥","mapx":"126.9958","mapy":"north"},{"contentid":"1","contenttypeid":"39","title":"again","mapx":"126.99","mapy":"37.56"}"#
            )
            + "\n" + #"{"response":{"header":{"resultCode":"0000""# + "\n"
        let parsed = try parseFile(text, name: "pages.jsonl")
        #expect(parsed.format == .tourapi)
        // A repeated id is not an error: the writer's newest-wins rule decides, as across files.
        #expect(parsed.places.map(\.id) == ["1", "2", "1"])
        #expect(
            parsed.messages == [
                "pages.jsonl:2: item[0].mapy: \"north\" is not a number",
                "pages.jsonl:3: json: unexpected end of input",
            ])
    }

    @Test func missingCoordinatesUseTourAPINames() throws {
        let json =
            #"{"response":{"header":{"resultCode":"0000","resultMsg":"OK"},"body":{"items":{"item":{"contentid":"5","contenttypeid":"12","title":"x","mapx":"200","mapy":"37"}}}}}"#
        #expect(throws: RecordError(file: "m.json", line: 1, field: "mapx", reason: "200.0 is outside [-180, 180]")) {
            try parseFile(json, name: "m.json", strict: true)
        }
    }
}
