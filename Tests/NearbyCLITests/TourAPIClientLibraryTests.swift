import Foundation
import NearbyReplay
import NearbyTestSupport
import Testing

/// A third-party TourAPI client library, unchanged but for its base URL, against `nearby serve`: PyPI's
/// `iflow-mcp-harimkang-mcp-korea-tourism-api` (`KoreaTourismApiClient`, run by
/// `scripts/tourapi_client_peer.py`) calls every one of its methods in English (its default, EngService2)
/// and in Korean, and each answer is checked against what the cache holds: ids, titles, counts, pages.
/// The client maps no language to KorService2 ("ko" falls back to English), so the Korean calls add that
/// one entry to its service table, as an app that wants Korean with it must.
@Suite(.serialized) struct TourAPIClientLibraryTests {
    /// The service key the server requires, and as the client sends it: data.go.kr's "encoding" form,
    /// pasted into the URL as it is.
    static let key = "nearby+Client/Test=="
    static let encodedKey = "nearby%2BClient%2FTest%3D%3D"
    static let image = "http://tong.visitkorea.or.kr/cms/resource/"

    /// A list item in TourAPI's order, with the fields the checks read.
    static func place(
        _ id: String, _ type: String, _ title: String, area: String, sigungu: String, cat: [String],
        at: (String, String),
        modified: String, image: String? = nil, event: (String, String)? = nil
    ) -> ReplayPlace {
        var fields: [(String, String)] = [
            ("addr1", ""), ("addr2", ""), ("areacode", area), ("cat1", cat[0]), ("cat2", cat[1]), ("cat3", cat[2]),
            ("contentid", id), ("contenttypeid", type), ("createdtime", "20240101090000"),
            ("firstimage", image ?? ""), ("firstimage2", ""), ("cpyrhtDivCd", ""), ("mapx", at.0), ("mapy", at.1),
            ("mlevel", "6"), ("modifiedtime", modified), ("sigungucode", sigungu), ("tel", ""), ("title", title),
            ("zipcode", ""), ("lDongRegnCd", ""), ("lDongSignguCd", ""), ("lclsSystm1", ""), ("lclsSystm2", ""),
            ("lclsSystm3", ""),
        ]
        if let event { fields += [("eventstartdate", event.0), ("eventenddate", event.1)] }
        return ReplayPlace(fields: fields)
    }

    /// The Korean places: the two real fixtures (경복궁 with an image, 창덕궁 without) and four of our own
    /// samples in TourAPI's forms (a festival, a hotel, a beach in Busan, a restaurant), each with an image.
    static func korean() throws -> ReplayCatalog {
        var catalog = ReplayCatalog()
        try catalog.addPlaces(fromFile: SyncCommandTests.realData + "/bare-array.json")
        catalog.put(
            place(
                "9100001", "15", "서울빛초롱축제", area: "1", sigungu: "24", cat: ["A02", "A0207", "A02070200"],
                at: ("126.9784", "37.5696"), modified: "20250301090000", image: image + "91/1.jpg",
                event: ("20251107", "20251123")))
        catalog.put(
            place(
                "9100002", "32", "롯데호텔 서울", area: "1", sigungu: "24", cat: ["B02", "B0201", "B02010100"],
                at: ("126.981", "37.5655"), modified: "20250220090000", image: image + "91/2.jpg"))
        catalog.put(
            place(
                "9100003", "12", "해운대해수욕장", area: "6", sigungu: "16", cat: ["A01", "A0101", "A01011200"],
                at: ("129.1604", "35.1587"), modified: "20250110090000", image: image + "91/3.jpg"))
        catalog.put(
            place(
                "9100004", "39", "토속촌 삼계탕", area: "1", sigungu: "23", cat: ["A05", "A0502", "A05020100"],
                at: ("126.9713", "37.5779"), modified: "20241201090000", image: image + "91/4.jpg"))
        return catalog
    }

    /// The English fixtures (ten places and the code lists), four more of them given an image and the
    /// festival its dates.
    static func english() throws -> ReplayCatalog {
        var catalog = ReplayCatalog()
        try catalog.addPlaces(fromFile: LanguageServeTests.english + "/areaBasedList2-page1.json")
        try catalog.addPlaces(fromFile: LanguageServeTests.english + "/areaBasedList2-page2.json")
        try catalog.addCodeLists(fromFile: LanguageServeTests.english + "/codeLists.tsv")
        for id in ["1773549", "2784542", "1876423", "264555"] {
            var place = try #require(catalog.places[id])
            place["firstimage"] = image + "en/\(id).jpg"
            if id == "2784542" {
                place["eventstartdate"] = "20251107"
                place["eventenddate"] = "20251123"
            }
            catalog.put(place)
        }
        return catalog
    }

    /// A cache with both languages, by `nearby sync tourapi` from the replay server.
    static func synced(_ folder: TempFolder, korean: ReplayCatalog, english: ReplayCatalog) throws -> String {
        let replay = ReplayServer(catalog: korean, languages: ["EngService2": english], serviceKey: "k")
        try replay.start()
        let db = folder.file("places.sqlite")
        for extra in [[], ["--lang", "en"]] {
            let result = try CLIRunner.run(
                ["sync", "tourapi", "--db", db] + ServeSyncTests.upstream(replay) + extra,
                environment: ["TOURAPI_SERVICE_KEY": "k"])
            #expect(result.status == 0, "\(extra): \(result.stderr)")
        }
        return db
    }

    /// The calls, by name: every method of the client, with arguments apps pass. `language` is the
    /// client's constructor language.
    static func calls(
        _ language: String, area: String, type: String, stayType: String, festivalType: String, id: String,
        otherID: String, keyword: String, keywordType: String, cat: (String, String)
    ) -> [[String: Any]] {
        let near: [String: Any] = ["mapx": 126.9767375783, "mapy": 37.5760836609, "radius": 2000]
        let list: [(String, String, [String: Any])] = [
            ("keyword", "search_by_keyword", ["keyword": keyword]),
            (
                "keyword.type", "search_by_keyword",
                ["keyword": language == "en" ? "Seoul" : "서울", "content_type_id": keywordType]
            ),
            ("area.p1", "get_area_based_list", ["area_code": area, "rows": 2, "page": 1]),
            ("area.p2", "get_area_based_list", ["area_code": area, "rows": 2, "page": 2]),
            ("area.type", "get_area_based_list", ["content_type_id": type]),
            ("area.cat", "get_area_based_list", ["cat1": cat.0, "cat2": cat.1]),
            ("area.sigungu", "get_area_based_list", ["area_code": "1", "sigunguCode": "24"]),
            ("location", "get_location_based_list", near),
            ("location.type", "get_location_based_list", near.merging(["content_type_id": festivalType]) { $1 }),
            ("festival", "search_festival", ["event_start_date": "20251101"]),
            ("festival.none", "search_festival", ["event_start_date": "20251101", "event_end_date": "20251105"]),
            ("stay", "search_stay", ["area_code": "1"]),
            ("stay.none", "search_stay", ["area_code": "1", "sigungu_code": "23"]),
            ("common", "get_detail_common", ["content_id": id]),
            ("common.other", "get_detail_common", ["content_id": otherID]),
            ("images", "get_detail_images", ["content_id": id]),
            ("intro", "get_detail_intro", ["content_id": id, "content_type_id": type]),
            ("info", "get_detail_info", ["content_id": id, "content_type_id": type]),
            ("sync", "get_area_based_sync_list", ["rows": 100]),
            ("sync.type", "get_area_based_sync_list", ["content_type_id": stayType, "show_flag": "1"]),
            ("areas", "get_area_code_list", [:]),
            ("areas.seoul.p2", "get_area_code_list", ["area_code": "1", "page": 2]),
            ("categories", "get_category_code_list", [:]),
            ("categories.a01", "get_category_code_list", ["cat1": "A01"]),
            ("categories.a0101", "get_category_code_list", ["cat1": "A01", "cat2": "A0101", "rows": 100]),
        ]
        return list.map { ["name": "\(language).\($0.0)", "language": language, "method": $0.1, "args": $0.2] }
    }

    @Test func everyMethodOfThePyPIClientWorksWithOnlyItsBaseURLChanged() throws {
        let folder = try TempFolder()
        let korean = try Self.korean()
        let english = try Self.english()
        let db = try Self.synced(folder, korean: korean, english: english)
        let (run, http) = try ServeSyncTests.serve(["--db", db, "--service-key", Self.key], key: "k")
        defer {
            kill(run.process.processIdentifier, SIGTERM)
            _ = try? run.finish()
        }
        try #require(http.isListening(), "the server did not start")
        let base = "http://127.0.0.1:\(http.port)/B551011"

        // As published: English (EngService2), and "ko", which the client sends to EngService2 too.
        var asPublished = Self.calls(
            "en", area: "1", type: "76", stayType: "80", festivalType: "85", id: "264337", otherID: "126508",
            keyword: "palace", keywordType: "80", cat: ("A02", "A0201"))
        asPublished.append([
            "name": "ko.unmapped", "language": "ko", "method": "get_detail_common", "args": ["content_id": "264337"],
        ])
        asPublished.append([
            "name": "en.override-ko", "language": "en", "method": "get_detail_common",
            "args": ["content_id": "126508", "language": "ko", "rows": 5],
        ])
        var answers = try PythonTourAPIClient.run(
            plan: ["base": base, "key": Self.encodedKey, "calls": asPublished], in: folder)
        // Korean through KorService2: the client's service table given that one entry.
        answers.merge(
            try PythonTourAPIClient.run(
                plan: [
                    "base": base, "key": Self.encodedKey, "services": ["ko": "KorService2"],
                    "calls": Self.calls(
                        "ko", area: "1", type: "12", stayType: "32", festivalType: "15", id: "126508",
                        otherID: "264337", keyword: "궁", keywordType: "32", cat: ("A02", "A0201")),
                ], in: folder)
        ) { $1 }

        let check = Answers(answers: answers, places: ["en": english, "ko": korean])
        // English, EngService2.
        check.list("en.keyword", ["264337"])
        check.list("en.keyword.type", ["1876423"])
        check.list("en.area.p1", ["264337", "1773549"], total: 4, rows: 2, page: 1)
        check.list("en.area.p2", ["2784542", "1876423"], total: 4, rows: 2, page: 2)
        check.list("en.area.type", ["264337", "264555"])
        check.list("en.area.cat", ["264337"])
        check.list("en.area.sigungu", ["2784542", "1876423"])
        check.list("en.location", ["264337", "2784542", "1876423"], distances: true)
        check.list("en.location.type", ["2784542"], distances: true)
        check.list("en.festival", ["2784542"], fields: ["eventstartdate": "20251107", "eventenddate": "20251123"])
        check.list("en.festival.none", [])
        check.list("en.stay", ["1876423"])
        check.list("en.stay.none", [])
        check.list("en.common", ["264337"], fields: ["addr1": "161, Sajik-ro, Jongno-gu, Seoul", "overview": ""])
        check.list("en.common.other", [])
        check.images("en.images", "264337")
        check.list("en.intro", [])
        check.list("en.info", [])
        check.sync("en.sync", english.places.keys.sorted())
        check.sync("en.sync.type", ["1876423"])
        // The code lists EngService2 gave the sync, its English names.
        check.codeLists(
            "en", areas: try TourCodeTable(fixture: "areaCode2"),
            categories: try TourCodeTable(fixture: "categoryCode2"),
            cat1: 6)
        // The client's "ko" without a KorService2 entry: English's service, English's places.
        check.list("ko.unmapped", ["264337"], path: "/B551011/EngService2/detailCommon2", language: "en")
        check.list("en.override-ko", [], rows: 5, path: "/B551011/EngService2/detailCommon2")

        // Korean, KorService2.
        check.list("ko.keyword", ["126508"])
        check.list("ko.keyword.type", ["9100002"])
        check.list("ko.area.p1", ["9100001", "9100002"], total: 4, rows: 2, page: 1)
        check.list("ko.area.p2", ["126508", "9100004"], total: 4, rows: 2, page: 2)
        check.list("ko.area.type", ["126508", "9100003"])
        check.list("ko.area.cat", ["126508"])
        check.list("ko.area.sigungu", ["9100001", "9100002"])
        check.list("ko.location", ["9100001", "9100002", "126508", "9100004"], distances: true)
        check.list("ko.location.type", ["9100001"], distances: true)
        check.list("ko.festival", ["9100001"], fields: ["eventstartdate": "20251107", "eventenddate": "20251123"])
        check.list("ko.festival.none", [])
        check.list("ko.stay", ["9100002"])
        check.list("ko.stay.none", [])
        check.list("ko.common", ["126508"], fields: ["overview": ""])
        check.list("ko.common.other", [])
        check.images("ko.images", "126508")
        check.list("ko.intro", [])
        check.list("ko.info", [])
        check.sync("ko.sync", korean.places.keys.sorted())
        check.sync("ko.sync.type", ["9100002"])
        check.codeLists(
            "ko", areas: try TourCodeTable("tourapi-area.tsv"), categories: try TourCodeTable("tourapi-cat.tsv"),
            cat1: 7)
    }
}

/// A code table under `data/` (`level`, `code`, `name`, `parent`), or one list of the English fixture's.
struct TourCodeTable {
    let rows: [(code: String, name: String, parent: String)]

    /// The list `list` (`areaCode2`, …) of the English fixture's code lists (`list`, `level`, `code`,
    /// `name`, `parent`).
    init(fixture list: String) throws {
        let text = try String(contentsOfFile: LanguageServeTests.english + "/codeLists.tsv", encoding: .utf8)
        rows = text.split(separator: "\n").dropFirst().compactMap { line in
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return cells[0] == list ? (cells[2], cells[3], cells[4]) : nil
        }
    }

    init(_ file: String) throws {
        let text = try String(contentsOf: RepositoryData.folder.appendingPathComponent(file), encoding: .utf8)
        rows = text.split(separator: "\n").dropFirst().map { line in
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return (cells[1], cells[2], cells.count > 3 ? cells[3] : "")
        }
    }

    func children(of parent: String) -> [(code: String, name: String)] {
        rows.filter { $0.parent == parent }.map { ($0.code, $0.name) }
    }
}

/// The client's answers, checked against the places the cache was synced from.
struct Answers {
    let answers: [String: [String: Any]]
    let places: [String: ReplayCatalog]

    func result(_ name: String, path: String? = nil, sourceLocation: SourceLocation = #_sourceLocation)
        -> [String: Any]?
    {
        guard let answer = answers[name] else {
            Issue.record("\(name): no answer", sourceLocation: sourceLocation)
            return nil
        }
        let service = name.hasPrefix("en.") ? "EngService2" : "KorService2"
        let asked = answer["path"] as? String ?? ""
        if let path {
            #expect(asked == path, "\(name): asked \(asked)", sourceLocation: sourceLocation)
        } else {
            #expect(asked.hasPrefix("/B551011/\(service)/"), "\(name): asked \(asked)", sourceLocation: sourceLocation)
        }
        guard answer["ok"] as? Bool == true, let result = answer["result"] as? [String: Any] else {
            Issue.record("\(name) failed: \(answer["error"] ?? answer)", sourceLocation: sourceLocation)
            return nil
        }
        return result
    }

    func items(_ result: [String: Any]) -> [[String: Any]] { result["items"] as? [[String: Any]] ?? [] }

    /// A list (or detail) answer: exactly these ids in this order, every item's title and content type the
    /// cache's, the total (all of them unless given) and the paging the client reads.
    func list(
        _ name: String, _ ids: [String], total: Int? = nil, rows: Int = 20, page: Int = 1, distances: Bool = false,
        fields: [String: String] = [:], path: String? = nil, language: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let result = result(name, path: path, sourceLocation: sourceLocation) else { return }
        let items = items(result)
        let got = items.map { $0["contentid"] as? String ?? "?" }
        #expect(got == ids, "\(name): \(items)", sourceLocation: sourceLocation)
        #expect(
            result["total_count"] as? Int == (total ?? ids.count), "\(name): \(result)", sourceLocation: sourceLocation)
        #expect(result["num_of_rows"] as? Int == rows, "\(name): \(result)", sourceLocation: sourceLocation)
        #expect(result["page_no"] as? Int == page, "\(name): \(result)", sourceLocation: sourceLocation)
        let catalog = places[language ?? String(name.prefix(2))]
        for item in items {
            let id = item["contentid"] as? String ?? ""
            let place = catalog?.places[id]
            #expect(item["title"] as? String == place?["title"], "\(name): \(item)", sourceLocation: sourceLocation)
            #expect(
                item["contenttypeid"] as? String == place?["contenttypeid"], "\(name): \(item)",
                sourceLocation: sourceLocation)
            #expect(
                item["firstimage"] as? String == place?["firstimage"], "\(name): \(item)",
                sourceLocation: sourceLocation)
            if distances {
                let dist = Double(item["dist"] as? String ?? "")
                #expect(dist != nil && dist! <= 2000, "\(name): \(item)", sourceLocation: sourceLocation)
            }
            for (key, value) in fields {
                #expect(item[key] as? String == value, "\(name): \(key) in \(item)", sourceLocation: sourceLocation)
            }
        }
        if distances, let first = items.first, ["264337", "126508"].contains(first["contentid"] as? String) {
            #expect(Double(first["dist"] as? String ?? "") == 0, "\(name): \(first)", sourceLocation: sourceLocation)
        }
    }

    /// `detailImage2`: the place's one image.
    func images(_ name: String, _ id: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let result = result(name, sourceLocation: sourceLocation) else { return }
        let image = places[String(name.prefix(2))]?.places[id]?["firstimage"]
        let items = items(result)
        #expect(result["total_count"] as? Int == 1, "\(name): \(result)", sourceLocation: sourceLocation)
        #expect(items.count == 1, "\(name): \(result)", sourceLocation: sourceLocation)
        #expect(items.first?["contentid"] as? String == id, "\(name): \(items)", sourceLocation: sourceLocation)
        #expect(items.first?["originimgurl"] as? String == image, "\(name): \(items)", sourceLocation: sourceLocation)
        #expect(items.first?["smallimageurl"] as? String == image, "\(name): \(items)", sourceLocation: sourceLocation)
        #expect(items.first?["serialnum"] as? String == "1", "\(name): \(items)", sourceLocation: sourceLocation)
    }

    /// `areaBasedSyncList2`: these places (in any order), each shown.
    func sync(_ name: String, _ ids: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        guard let result = result(name, sourceLocation: sourceLocation) else { return }
        let items = items(result)
        #expect(
            items.compactMap { $0["contentid"] as? String }.sorted() == ids.sorted(), "\(name): \(items)",
            sourceLocation: sourceLocation)
        #expect(result["total_count"] as? Int == ids.count, "\(name): \(result)", sourceLocation: sourceLocation)
        #expect(
            items.allSatisfy { $0["showflag"] as? String == "1" }, "\(name): \(items)", sourceLocation: sourceLocation)
        let catalog = places[String(name.prefix(2))]
        for item in items {
            let id = item["contentid"] as? String ?? ""
            #expect(
                item["title"] as? String == catalog?.places[id]?["title"], "\(name): \(item)",
                sourceLocation: sourceLocation)
        }
    }

    /// The client's code-list calls in `language` (`areas`, `areas.seoul.p2`, `categories`,
    /// `categories.a01`, `categories.a0101`) against the tables the service's lists were taken from: the
    /// 17 areas, `cat1` cat1 codes.
    func codeLists(
        _ language: String, areas: TourCodeTable, categories: TourCodeTable, cat1: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        codes("\(language).areas", areas.children(of: ""), total: 17, rows: 20, page: 1, sourceLocation: sourceLocation)
        let seoul = areas.children(of: "1")
        codes(
            "\(language).areas.seoul.p2", Array(seoul.dropFirst(20)), total: seoul.count, rows: 20, page: 2,
            sourceLocation: sourceLocation)
        codes(
            "\(language).categories", categories.children(of: ""), total: cat1, rows: 20, page: 1,
            sourceLocation: sourceLocation)
        for (name, parent, rows) in [("categories.a01", "A01", 20), ("categories.a0101", "A0101", 100)] {
            let shown = categories.children(of: parent)
            codes(
                "\(language).\(name)", shown, total: shown.count, rows: rows, page: 1, sourceLocation: sourceLocation)
        }
    }

    /// A code list: these codes and names, in order (`rnum` counting on across pages), and the total.
    func codes(
        _ name: String, _ expected: [(code: String, name: String)], total: Int, rows: Int, page: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let result = result(name, sourceLocation: sourceLocation) else { return }
        let items = items(result)
        #expect(result["total_count"] as? Int == total, "\(name): \(result)", sourceLocation: sourceLocation)
        #expect(result["num_of_rows"] as? Int == rows, "\(name): \(result)", sourceLocation: sourceLocation)
        #expect(result["page_no"] as? Int == page, "\(name): \(result)", sourceLocation: sourceLocation)
        #expect(items.count == expected.count, "\(name): \(items)", sourceLocation: sourceLocation)
        for (n, (item, want)) in zip(items, expected).enumerated() {
            #expect(item["code"] as? String == want.code, "\(name): \(item)", sourceLocation: sourceLocation)
            #expect(item["name"] as? String == want.name, "\(name): \(item)", sourceLocation: sourceLocation)
            #expect(
                item["rnum"] as? Int == (page - 1) * rows + n + 1, "\(name): \(item)",
                sourceLocation: sourceLocation)
        }
    }
}
