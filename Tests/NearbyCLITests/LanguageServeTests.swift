import Foundation
import NearbyReplay
import NearbyTestSupport
import Testing

/// The language services end to end, as processes: `nearby sync tourapi --service EngService2` from the
/// replay server beside a Korean sync, `nearby query --lang en`, and `nearby serve`'s EngService2
/// operations and `/v1/places?lang=en`.
@Suite(.serialized) struct LanguageServeTests {
    static let english = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("NearbySyncTests/Fixtures/EngService2").path

    /// A cache with the Korean fixtures and the English pages and code lists synced into it, by `nearby
    /// sync tourapi`, and the replay server it was synced from.
    static func synced(_ folder: TempFolder) throws -> (db: String, replay: ReplayServer) {
        var korean = ReplayCatalog()
        try korean.addPlaces(fromFile: SyncCommandTests.realData + "/bare-array.json")
        var english = ReplayCatalog()
        try english.addPlaces(fromFile: Self.english + "/areaBasedList2-page1.json")
        try english.addPlaces(fromFile: Self.english + "/areaBasedList2-page2.json")
        try english.addCodeLists(fromFile: Self.english + "/codeLists.tsv")
        let replay = ReplayServer(catalog: korean, languages: ["EngService2": english], serviceKey: "k")
        try replay.start()
        let db = folder.file("places.sqlite")
        let flags = ["sync", "tourapi", "--db", db] + ServeSyncTests.upstream(replay)
        for extra in [[], ["--service", "EngService2"], ["--lang", "en"]] {
            let result = try CLIRunner.run(flags + extra, environment: ["TOURAPI_SERVICE_KEY": "k"])
            #expect(result.status == 0, "\(extra): \(result.stderr)")
        }
        #expect(replay.requests.contains { $0.hasPrefix("/B551011/EngService2/areaBasedList2") })
        return (db, replay)
    }

    @Test func aConflictingServiceAndLanguageIsAUsageError() throws {
        let folder = try TempFolder()
        for flags in [
            ["--service", "EngService2", "--lang", "ja"], ["--lang", "xx"], ["--service", "KorService9"],
            ["--lang", "en", "--details", "pet"], ["--lang", "de", "--content-type", "25"],
        ] {
            let result = try CLIRunner.run(
                ["sync", "tourapi", "--db", folder.file("x.sqlite"), "--base-url", "http://127.0.0.1:9/B551011"]
                    + flags, environment: ["TOURAPI_SERVICE_KEY": "k"])
            #expect(result.status == 2, "\(flags): \(result.stderr)")
        }
    }

    @Test func queriesAskTheLanguageAndTheServerAnswersItsServices() throws {
        let folder = try TempFolder()
        let (db, _) = try Self.synced(folder)
        let around = ["--lat", "37.5760836609", "--lon", "126.9767375783", "--radius", "100", "--format", "jsonl"]
        let korean = try CLIRunner.run(["query", "--db", db] + around)
        #expect(korean.status == 0, "\(korean.stderr)")
        #expect(korean.output.contains("경복궁") && !korean.output.contains("Gyeongbokgung"), "\(korean.output)")
        let english = try CLIRunner.run(["query", "--db", db, "--lang", "en"] + around)
        #expect(english.status == 0, "\(english.stderr)")
        #expect(english.output.contains("Gyeongbokgung Palace (경복궁)"), "\(english.output)")
        #expect(english.output.contains("161, Sajik-ro, Jongno-gu, Seoul"), "\(english.output)")
        let bad = try CLIRunner.run(["query", "--db", db, "--lang", "xx"] + around)
        #expect(bad.status == 2, "\(bad.stderr)")

        let (run, http) = try ServeSyncTests.serve(["--db", db], key: "k")
        defer {
            kill(run.process.processIdentifier, SIGTERM)
            _ = try? run.finish()
        }
        func items(_ target: String) throws -> (status: Int, body: [String: Any], items: [[String: Any]]) {
            let answer = try http.get(target)
            let body = (answer.json["response"] as? [String: Any])?["body"] as? [String: Any] ?? [:]
            let list = (body["items"] as? [String: Any])?["item"] as? [[String: Any]] ?? []
            return (answer.status, answer.json, list)
        }
        let near = "mapX=126.9767375783&mapY=37.5760836609&radius=2000&numOfRows=100&_type=json"
        let located = try items("/B551011/EngService2/locationBasedList2?" + near)
        #expect(located.status == 200, "\(located.body)")
        let ids = located.items.compactMap { $0["contentid"] as? String }
        #expect(ids.first == "264337", "\(ids)")
        #expect(!ids.contains("126508"), "\(ids)")
        #expect(located.items.first?["contenttypeid"] as? String == "76")
        #expect(located.items.first?["title"] as? String == "Gyeongbokgung Palace (경복궁)")
        // The service's own content type numbers are taken, and a Korean one is refused.
        let restaurants = try items("/B551011/EngService2/locationBasedList2?contentTypeId=82&" + near)
        #expect(restaurants.items.compactMap { $0["contentid"] as? String } == ["2495622"], "\(restaurants.body)")
        #expect(restaurants.items.first?["contenttypeid"] as? String == "82")
        let refused = try items("/B551011/EngService2/areaBasedList2?contentTypeId=12&_type=json")
        #expect(refused.status == 400)
        let header = (refused.body["response"] as? [String: Any])?["header"] as? [String: Any]
        #expect(header?["resultCode"] as? String == "10", "\(refused.body)")
        let transport = try items("/B551011/EngService2/areaBasedList2?contentTypeId=77&_type=json")
        #expect(transport.items.compactMap { $0["contentid"] as? String } == ["2698640"], "\(transport.body)")
        // Korean's list does not show the English places; English's detail is English's.
        let koreanList = try items("/B551011/KorService2/locationBasedList2?" + near)
        #expect(
            Set(koreanList.items.compactMap { $0["contentid"] as? String }) == ["126508", "126511"],
            "\(koreanList.body)")
        let detail = try items("/B551011/EngService2/detailCommon2?contentId=264337&_type=json")
        #expect(detail.items.first?["title"] as? String == "Gyeongbokgung Palace (경복궁)", "\(detail.body)")
        #expect(detail.items.first?["contentid"] as? String == "264337")
        #expect(try items("/B551011/KorService2/detailCommon2?contentId=264337&_type=json").items.isEmpty)
        #expect(try items("/B551011/EngService2/detailCommon2?contentId=126508&_type=json").items.isEmpty)
        // A language with nothing synced: TourAPI's empty page, not an error.
        let japanese = try http.get("/B551011/JpnService2/areaBasedList2?_type=json")
        #expect(japanese.status == 200)
        #expect(japanese.text.contains(#""items":"""#), "\(japanese.text)")
        #expect(japanese.text.contains(#""totalCount":0"#), "\(japanese.text)")
        // XML, the service's default, read with a real parser.
        let xml = try http.get("/B551011/EngService2/areaBasedList2?contentTypeId=85")
        #expect(xml.status == 200 && xml.headers["content-type"] == "application/xml; charset=utf-8")
        let festivals = try TourXML(Array(xml.body))
        #expect(festivals.header == ["resultCode": "0000", "resultMsg": "OK"], "\(xml.text)")
        #expect(festivals.value("contentid") == "2784542" && festivals.value("contenttypeid") == "85", "\(xml.text)")
        #expect(festivals.body["totalCount"] == String(festivals.items.count))
        let refusedXML = try TourXML(Array(try http.get("/B551011/EngService2/areaBasedList2?contentTypeId=12").body))
        #expect(refusedXML.header["resultCode"] == "10" && !refusedXML.hasItems)
        let emptyXML = try TourXML(Array(try http.get("/B551011/JpnService2/areaBasedList2").body))
        #expect(emptyXML.hasItems && emptyXML.items.isEmpty && emptyXML.body["totalCount"] == "0")
        // The code lists: a language nothing was synced in has none (JpnService2's classification too:
        // no table ships in Japanese).
        for list in ["areaCode2", "lclsSystmCode2"] {
            let none = try http.get("/B551011/JpnService2/\(list)")
            #expect(none.status == 501, "\(list)")
            #expect(try TourXML(Array(none.body)).header["resultCode"] == "12", "\(none.text)")
        }
        // Nearby's own API through the one request parser: lang=en.
        let v1 = try http.get("/v1/places?lat=37.5760836609&lon=126.9767375783&radius=100&lang=en")
        let titles = (v1.json["places"] as? [[String: Any]])?.compactMap { $0["title"] as? String } ?? []
        #expect(titles == ["Gyeongbokgung Palace (경복궁)"], "\(v1.text)")
        #expect(try http.get("/v1/places?lang=xx").status == 400)
        // Tiles and clusters hold the Korean places: a language is refused, not answered in Korean.
        for target in ["/tiles/12/3493/1586.mvt?lang=en", "/v1/clusters?zoom=12&lang=en"] {
            let refused = try http.get(target)
            #expect(refused.status == 400 && refused.text.contains("lang"), "\(target): \(refused.text)")
        }
    }

    /// EngService2's code lists, synced from the service, answer every request as the service does: the
    /// same request to the replay server and to `nearby serve` gives the same items, in the same order,
    /// and the same total, through every level and page; the XML holds the same.
    @Test func aLanguagesCodeListsAnswerAsTheServiceItWasSyncedFrom() throws {
        let folder = try TempFolder()
        let (db, replay) = try Self.synced(folder)
        let (run, http) = try ServeSyncTests.serve(["--db", db], key: "k")
        defer {
            kill(run.process.processIdentifier, SIGTERM)
            _ = try? run.finish()
        }
        try #require(http.isListening(), "the server did not start")
        let upstream = LoopbackHTTP(port: replay.port)
        /// The items (each value as text, marked with its JSON type: `rnum` is a number, the rest strings)
        /// and the total.
        func answer(_ http: LoopbackHTTP, _ target: String) throws -> (items: [[String: String]], total: String) {
            let r = try http.get(target)
            #expect(r.status == 200, "\(target): \(r.text)")
            let body = (r.json["response"] as? [String: Any])?["body"] as? [String: Any] ?? [:]
            let list = (body["items"] as? [String: Any])?["item"] as? [[String: Any]] ?? []
            let typed = list.map { $0.mapValues { $0 is String ? "string \($0)" : "number \($0)" } }
            return (typed, "\(body["totalCount"] ?? "")")
        }
        let targets = [
            "areaCode2", "areaCode2?numOfRows=5&pageNo=4", "areaCode2?areaCode=1&numOfRows=10&pageNo=3",
            "areaCode2?areaCode=6&numOfRows=100", "areaCode2?areaCode=39", "areaCode2?areaCode=31",
            "categoryCode2", "categoryCode2?cat1=A01", "categoryCode2?cat1=A01&cat2=A0101",
            "categoryCode2?cat1=A01&cat2=A0101&cat3=A01010200", "categoryCode2?cat1=A05&cat2=A0502",
            "ldongCode2", "ldongCode2?lDongRegnCd=11", "ldongCode2?lDongListYn=Y&numOfRows=100",
            "ldongCode2?lDongListYn=Y&lDongRegnCd=50", "lclsSystmCode2", "lclsSystmCode2?lclsSystm1=FD",
            "lclsSystmCode2?lclsSystm1=FD&lclsSystm2=FD01", "lclsSystmCode2?lclsSystmListYn=Y&numOfRows=100",
        ]
        for target in targets {
            let path = "/B551011/EngService2/" + target + (target.contains("?") ? "&" : "?") + "_type=json"
            let service = try answer(upstream, path + "&serviceKey=k")
            let nearby = try answer(http, path)
            #expect(nearby.items == service.items, "\(target)")
            #expect(nearby.total == service.total, "\(target)")
        }
        let seoul = try answer(http, "/B551011/EngService2/areaCode2?areaCode=1&numOfRows=30&_type=json")
        #expect(seoul.items.count == 25 && seoul.items.first?["name"] == "string Gangnam-gu", "\(seoul.items)")
        #expect(seoul.items.first?["rnum"] == "number 1" && seoul.items.first?["code"] == "string 1")
        // The synced classification is answered, not the English table that ships (234 level 3 codes).
        #expect(try answer(http, "/B551011/EngService2/lclsSystmCode2?lclsSystmListYn=Y&_type=json").total == "3")
        // XML, the service's default, read with a real parser.
        let xml = try TourXML(Array(try http.get("/B551011/EngService2/categoryCode2?cat1=A01").body))
        #expect(xml.header["resultCode"] == "0000", "\(xml.header)")
        #expect((0..<xml.items.count).map { xml.value("name", at: $0) } == ["Natural Sites", "Natural Resources"])
    }
}
