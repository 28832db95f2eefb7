import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// TourAPI and Kakao Local data as people save it (the fixtures in `Fixtures/RealData`, provenance in
/// their README): every shape imports its places, and each record that is not one is named.
@Suite struct ImportRealDataTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/RealData")

    static func fixture(_ name: String, format: ImportFormat? = nil, encoding: TextEncoding? = nil) throws
        -> ParsedInput
    {
        let bytes = try Data(contentsOf: folder.appendingPathComponent(name))
        return try PlaceParser.parse(Array(bytes), file: name, format: format, encoding: encoding)
    }

    @Test func bareArrayOfKorService2Items() throws {
        let parsed = try Self.fixture("bare-array.json")
        #expect(parsed.format == .tourapi)
        #expect(parsed.errors.isEmpty)
        #expect(parsed.lines == [2, 29])
        let p = parsed.places
        #expect(p.map(\.id) == ["126508", "126511"])
        #expect(p[0].lon == 126.9767375783 && p[0].lat == 37.5760836609)
        #expect(p[0].category == 12 && p[0].areacode == "1" && p[0].cat3 == "A02010100")
        #expect(p[0].lDongRegnCd == "11" && p[0].lDongSignguCd == "110" && p[0].lclsSystm3 == "HS010100")
        #expect(p[0].modified == "20250115143012" && p[0].addr == "서울특별시 종로구 사직로 161")
        // KorService2 since 2025: empty old codes beside the new ones are absent, not "".
        #expect(p[1].areacode == nil && p[1].cat1 == nil && p[1].lclsSystm1 == "HS")
        #expect(p[1].addr == "서울특별시 종로구 율곡로 99 (와룡동)")
    }

    @Test func collectorWrapperWithoutDatesAndAnOnlineEvent() throws {
        let parsed = try Self.fixture("collector.json")
        #expect(parsed.format == .tourapi)
        #expect(parsed.places.map(\.id) == ["2750143", "2750144"])
        #expect(parsed.places.allSatisfy { $0.created == nil && $0.modified == nil })
        #expect(parsed.places[0].cat3 == "A05020900")
        #expect(
            parsed.messages == ["collector.json:4: mapx: 0 is TourAPI's placeholder for a place without coordinates"])
    }

    @Test func captureWrapperAroundAResponse() throws {
        let parsed = try Self.fixture("capture.json")
        #expect(parsed.format == .tourapi)
        #expect(parsed.errors.isEmpty)
        #expect(parsed.places.map(\.title) == ["김녕해수욕장", "성산일출봉 [유네스코 세계자연유산]"])
        #expect(parsed.lines == [12, 13])
    }

    @Test func captureOfAnErrorEnvelopeIsRefusedWithItsMessage() {
        #expect(
            throws: UnsupportedInputError(
                file: "capture-error.json",
                message: "TourAPI error envelope: resultCode 22: LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR")
        ) {
            try Self.fixture("capture-error.json")
        }
    }

    @Test func oneItemPerLine() throws {
        let parsed = try Self.fixture("items.jsonl")
        #expect(parsed.format == .tourapi)
        #expect(parsed.places.map(\.id) == ["125466", "125467"])
        #expect(parsed.places[1].created == nil)
        #expect(
            parsed.messages == [
                "items.jsonl:3: mapx: missing",
                "items.jsonl:4: mapx: 0 is TourAPI's placeholder for a place without coordinates",
            ])
    }

    @Test func oldKorServiceNumbersAsNumbers() throws {
        let parsed = try Self.fixture("korservice-2018.json")
        #expect(parsed.errors.isEmpty)
        let p = parsed.places
        #expect(p.map(\.id) == ["126535", "129703"])
        #expect(p[0].category == 12 && p[0].areacode == "1" && p[0].sigungucode == "24")
        #expect(p[0].created == "20031103090000" && p[0].modified == "20180516160237")
        #expect(p[0].lon == 126.9751442003 && p[0].lat == 37.56580496)
        #expect(p[1].category == 14)
    }

    @Test func batchDumpNestsThePlaceUnderCommon() throws {
        let parsed = try Self.fixture("batch-dump.json")
        #expect(parsed.format == .tourapi)
        #expect(parsed.errors.isEmpty)
        #expect(parsed.places.map(\.title) == ["해녀의 부엌", "비자림"])
        #expect(parsed.places.map(\.category) == [39, 12])
        #expect(parsed.lines == [4, 18])
    }

    /// detailWithTour2 and detailPetTour2 items (no coordinates) are detail records: the kind's fields
    /// with text, in the source's order, at the line where each item starts; numbers as text.
    @Test func barrierFreeAndPetDetails() throws {
        let tour = try Self.fixture("detailWithTour2.json")
        #expect(tour.format == .tourapi && tour.errors.isEmpty && tour.lines == [2, 9])
        let details = tour.records.compactMap { if case .detail(let d) = $0.record { d } else { nil } }
        #expect(details.map(\.id) == ["126508", "9999901"] && details.allSatisfy { $0.kind == .barrierFree })
        #expect(
            details[0].fields.map(\.name) == [
                "parking", "route", "wheelchair", "elevator", "restroom", "helpdog",
                "audioguide", "stroller", "infantsfamilyetc",
            ])
        #expect(details[1].tags == ["hearing", "sign-language", "video-guide"])  // stroller 불가: no tag
        let pet = try Self.fixture("detailPetTour2.jsonl")
        #expect(pet.errors.isEmpty && pet.lines == [1, 2])
        let levels = pet.records.compactMap {
            if case .detail(let d) = $0.record { d.kind == .pet ? d.id : nil } else { nil }
        }
        #expect(levels == ["2733968", "126511"])

        let numbers = try parseFile(
            #"[{"contentid": 126508, "wheelchair": "있음"}, {"contentid": "", "helpdog": "가능"}]"#, name: "d.json")
        #expect(
            numbers.records.map(\.record) == [
                .detail(PlaceDetail(id: "126508", kind: .barrierFree, fields: [.init(name: "wheelchair", text: "있음")]))
            ])
        #expect(numbers.messages == ["d.json:1: [1].contentid: missing"])
        #expect(
            PetFriendliness.level("전구역 동반가능") == "all" && PetFriendliness.level("일부 구역 동반 가능") == "some"
                && PetFriendliness.level("동반 불가") == "no" && PetFriendliness.level("문의") == nil)
        #expect(
            !BarrierFreeDetail.isAvailable(" 없음 ") && !BarrierFreeDetail.isAvailable("N")
                && BarrierFreeDetail.isAvailable("있음(2대)"))
    }

    @Test func detailCommon2() throws {
        let parsed = try Self.fixture("detailCommon2.json")
        #expect(parsed.errors.isEmpty)
        #expect(parsed.places.map(\.id) == ["126508"])
        #expect(parsed.places[0].modified == "20250520101010")
    }

    @Test func kakaoKeywordSearch() throws {
        let parsed = try Self.fixture("kakao-keyword.json")
        #expect(parsed.format == .kakao)
        #expect(parsed.errors.isEmpty)
        let p = parsed.places
        #expect(p.map(\.id) == ["kakao:1234567801", "kakao:1234567802", "kakao:1234567803"])
        #expect(p.map(\.category) == [39, 12, 0])
        #expect(p[0].lon == 127.058338 && p[0].lat == 37.544581 && p[0].tel == "070-7816-2718")
        #expect(p[0].cat1 == "A05" && p[0].cat2 == "A0502" && p[0].cat3 == "A05020900")
        #expect(p[0].addr == "서울 성동구 아차산로9길 8")
        #expect(p[1].addr == "서울 성동구 성수동1가 678-1" && p[1].cat3 == nil)
        #expect(p.allSatisfy { $0.modified == nil })
    }

    @Test func kakaoCategorySearchPagesOnePerLine() throws {
        let parsed = try Self.fixture("kakao-category.jsonl")
        #expect(parsed.format == .kakao)
        #expect(parsed.places.map(\.category) == [39, 32])
        #expect(parsed.lines == [1, 2])
    }

    @Test func kakaoContentTypeTable() {
        #expect(
            KakaoLocalReader.contentTypes == [
                "AT4": 12, "CT1": 14, "AD5": 32, "FD6": 39, "CE7": 39, "MT1": 38, "CS2": 38,
            ])
    }

    @Test func nothingThatIsAPlaceIsOneClearError() {
        #expect(
            refusal(
                String(
                    decoding: (try? Data(contentsOf: Self.folder.appendingPathComponent("no-places.json"))) ?? Data(),
                    as: UTF8.self), name: "no-places.json")
                == "no-places.json: \(PlaceParser.noPlace) (its keys: collectedAt, items)")
    }

    @Test func itemsSharingALineAreNamedByTheirPath() throws {
        let json =
            #"[{"contentid":"1","contenttypeid":"12","title":"a","mapx":"127","mapy":"37"},{"contentid":"2","contenttypeid":"12","title":"b","mapx":"127","mapy":"97"}]"#
        let parsed = try parseFile(json, name: "one.json")
        #expect(parsed.places.map(\.id) == ["1"])
        #expect(parsed.messages == ["one.json:1: [1].mapy: 97.0 is outside [-90, 90]"])
        let wrapped =
            #"{"items":[{"contentid":"1","title":"a","mapx":"127","mapy":"37"},{"contentid":"2","contenttypeid":"12","title":"b","mapx":"127","mapy":"37"}]}"#
        #expect(try parseFile(wrapped, name: "w.json").messages == ["w.json:1: items[0].contenttypeid: missing"])
    }

    @Test func nestedValuesUnderCollectorKeysAreIgnored() throws {
        let line =
            #"{"contentid":"1","contenttypeid":12,"title":"a","mapx":127.1,"mapy":37.2,"images":[{"url":"x"}],"meta":{"k":1}}"#
        let parsed = try parseFile(line, name: "n.jsonl")
        #expect(parsed.errors.isEmpty && parsed.places.map(\.lon) == [127.1])
        #expect(
            try parseFile(
                #"{"contentid":"1","contenttypeid":12,"title":{"ko":"a"},"mapx":127.1,"mapy":37.2}"#, name: "t.jsonl"
            ).messages
                == ["t.jsonl:1: title: expected a string"])
    }

    @Test func tourAPIColumnsInACSVWithBOMCRLFQuotesAndSpreadsheetDamage() throws {
        let parsed = try Self.fixture("tourapi-export.csv")
        #expect(parsed.format == .csv)
        let p = parsed.places
        #expect(p.map(\.id) == ["126508", "2750143", "3100002"])
        #expect(parsed.lines == [2, 4, 5])
        #expect(p[0].lon == 126.9767376 && p[0].lat == 37.5760837 && p[0].category == 12)
        #expect(p[0].created == "20071106090000" && p[0].modified == "20250115143012")  // trailing spaces
        #expect(p[0].lDongSignguCd == "110" && p[0].lclsSystm3 == "HS010100" && p[0].image != nil)
        #expect(p[1].created == "20210101000000" && p[1].modified == "20250101000000")  // rounded times
        #expect(p[1].addr == "부산광역시 해운대구 달맞이길 30 2층, 바다 쪽")
        #expect(p[2].title == "해운대 모래축제" && p[2].category == 15 && p[2].areacode == nil)
        #expect(p[2].eventStart == "20250523" && p[2].eventEnd == "20250526" && p[2].modified == nil)
        #expect(parsed.messages == [#"tourapi-export.csv:6: mapy: "북위 37도" is not a number"#])
    }

    @Test func tourAPIColumnsInATSV() throws {
        let parsed = try Self.fixture("tourapi-export.tsv")
        #expect(parsed.format == .tsv && parsed.errors.isEmpty)
        #expect(parsed.places.map(\.modified) == ["20240823110255", nil])
        #expect(parsed.places.map(\.lclsSystm2) == ["NA04", "NA04"])
    }

    @Test func cp949IsDetectedAndDecoded() throws {
        let parsed = try Self.fixture("tourapi-export-cp949.csv")
        #expect(parsed.errors.isEmpty)
        #expect(parsed.places.map(\.title) == ["똠양꿍 식당", "남산서울타워"])
        #expect(parsed.places[0].addr == "서울특별시 용산구 이태원로 200")
        // Forced: the same bytes read as UTF-8 are never garbled text, they are errors.
        let forced = try Self.fixture("tourapi-export-cp949.csv", encoding: .utf8)
        #expect(forced.places.isEmpty)
        #expect(
            forced.messages == [
                "tourapi-export-cp949.csv:2: title: invalid UTF-8", "tourapi-export-cp949.csv:3: title: invalid UTF-8",
            ])
    }

    @Test func utf8IsNotMistakenForCP949AndEUCKRNamesWork() throws {
        #expect(try Self.fixture("tourapi-export.csv", encoding: .utf8).places.count == 3)
        #expect(
            TextEncoding(name: "EUC-KR") == .cp949 && TextEncoding(name: "utf8") == .utf8
                && TextEncoding(name: "latin1") == nil)
    }

    @Test func utf16IsRefused() {
        #expect(
            throws: UnsupportedInputError(
                file: "utf16-export.txt",
                message: "UTF-16 text (a spreadsheet's \"Unicode text\"); save it as UTF-8 (or CP949) CSV")
        ) {
            try Self.fixture("utf16-export.txt")
        }
    }

    @Test func spreadsheetRepairOnlyTouchesRoundedTimes() {
        func repaired(_ s: String?) -> String? {
            var v = s
            SpreadsheetRepair.dateTime(&v)
            return v
        }
        #expect(repaired("2.02501E+13") == "20250101000000")
        #expect(repaired("20251200000000") == "20251201000000")
        #expect(repaired("20250115143012") == "20250115143012")
        #expect(repaired("20251399000000") == "20251399000000")  // not rounding: left for the validator
        #expect(repaired("2.5E+3") == "2.5E+3")
        #expect(repaired(nil) == nil)
    }
}
