import Foundation
import NearbyKit
import NearbyReplay
import NearbySync
import NearbyTestSupport
import Testing

/// A language service (EngService2) synced beside KorService2 into one cache: the language's places are
/// places of their own (`en:<contentid>`, Korean content types), queried with `lang`, and neither
/// language's sync touches the other's places.
@Suite struct LanguageSyncTests {
    /// The hand-made EngService2 pages (Fixtures/EngService2, README there).
    static let english = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/EngService2").path

    static func englishCatalog() throws -> ReplayCatalog {
        var catalog = ReplayCatalog()
        try catalog.addPlaces(fromFile: english + "/areaBasedList2-page1.json")
        try catalog.addPlaces(fromFile: english + "/areaBasedList2-page2.json")
        return catalog
    }

    static func server() throws -> ReplayServer {
        let server = ReplayServer(
            catalog: try SyncSupport.catalog(generated: 12), languages: ["EngService2": try englishCatalog()],
            serviceKey: "test-key")
        try server.start()
        return server
    }

    static func options(_ server: ReplayServer, _ language: TourLanguage) -> TourAPISyncOptions {
        var options = SyncSupport.options(server, pageSize: 4)
        options.service = language.service
        return options
    }

    /// A query of the cache at `path` in `language`, as `nearby query --lang` runs it.
    static func query(_ path: String, _ parameters: [(String, String)]) throws -> [Place] {
        let cache = try PlaceCache(path: path, readOnly: true)
        let engine = LanguageEngines(path: path).dispatching(try EngineKind.snapshot.open(cache))
        let q = try QueryParameters.parse(parameters.map { (name: $0.0, value: $0.1) })
        return try engine.run(q).places
    }

    @Test func contentTypesMapBothWays() {
        let pairs = [(12, 76), (14, 78), (15, 85), (28, 75), (32, 80), (38, 79), (39, 82)]
        for (korean, foreign) in pairs {
            for language in TourLanguage.allCases where language != .ko {
                #expect(language.serviceContentType(korean) == foreign)
                #expect(language.storedContentType(foreign) == korean)
            }
            #expect(TourLanguage.ko.serviceContentType(korean) == korean)
            #expect(TourLanguage.ko.storedContentType(korean) == korean)
        }
        // Transportation has no Korean type and courses no foreign one: both kept as they are.
        #expect(TourLanguage.en.storedContentType(77) == 77)
        #expect(TourLanguage.en.serviceContentType(77) == 77)
        #expect(TourLanguage.en.serviceContentTypeIDs == [75, 76, 77, 78, 79, 80, 82, 85])
        #expect(TourLanguage(service: "EngService2") == .en)
        #expect(TourLanguage(service: "ChtService2") == .zhTW)
        #expect(TourLanguage(code: "zh-cn") == .zhCN)
        #expect(TourLanguage.of(id: "en:264337") == .en)
        #expect(TourLanguage.of(id: "zh-TW:1") == .zhTW)
        #expect(TourLanguage.of(id: "126508") == .ko)
        #expect(TourLanguage.of(id: "kakao:123") == .ko)
        #expect(TourLanguage.en.contentID("en:264337") == "264337")
    }

    @Test func anEnglishSyncStoresTheLanguagesPlacesWithKoreanContentTypes() async throws {
        let server = try Self.server()
        let folder = try TempFolder()
        let db = folder.file("places.sqlite")
        var options = Self.options(server, .en)
        options.details = [.common]
        let summary = try await SyncSupport.sync(db, options)
        #expect(summary.stop == nil)
        #expect(summary.added == 10)
        let places = try SyncSupport.places(db)
        #expect(places.count == 10)
        #expect(places.allSatisfy { $0.id.hasPrefix("en:") })
        let palace = try #require(places.first { $0.id == "en:264337" })
        #expect(palace.title == "Gyeongbokgung Palace (경복궁)")
        #expect(palace.addr == "161, Sajik-ro, Jongno-gu, Seoul")
        #expect(palace.category == 12)
        let categories = Dictionary(places.map { ($0.id, $0.category) }, uniquingKeysWith: { a, _ in a })
        #expect(categories["en:1773549"] == 14)  // 78 culture
        #expect(categories["en:2784542"] == 15)  // 85 festival
        #expect(categories["en:2688151"] == 28)  // 75 leisure
        #expect(categories["en:1876423"] == 32)  // 80 accommodation
        #expect(categories["en:1943473"] == 38)  // 79 shopping
        #expect(categories["en:2495622"] == 39)  // 82 restaurant
        #expect(categories["en:2698640"] == 77)  // transportation: no Korean type
        // Every request went to the English service; the details too.
        let requests = server.requests
        #expect(requests.allSatisfy { $0.hasPrefix("/B551011/EngService2/") }, "\(requests)")
        #expect(requests.contains { $0.hasPrefix("/B551011/EngService2/detailCommon2") })
        // Korean queries see none of them; English ones see them, --category in Korean numbers.
        #expect(try Self.query(db, [("limit", "0")]).isEmpty)
        let english = try Self.query(db, [("lang", "en"), ("limit", "0")])
        #expect(english.count == 10)
        let attractions = try Self.query(db, [("lang", "en"), ("category", "12"), ("limit", "0")])
        #expect(Set(attractions.map(\.id)) == ["en:264337", "en:264310", "en:264555"])
    }

    @Test func aContentTypeIsAskedInTheServicesOwnNumber() async throws {
        let server = try Self.server()
        let folder = try TempFolder()
        let db = folder.file("places.sqlite")
        var options = Self.options(server, .en)
        options.contentTypes = ["12", "39"]
        let summary = try await SyncSupport.sync(db, options)
        #expect(summary.stop == nil)
        let lists = server.requests.filter { $0.contains("/areaBasedList2") }
        #expect(lists.contains { $0.contains("contentTypeId=76") }, "\(lists)")
        #expect(lists.contains { $0.contains("contentTypeId=82") }, "\(lists)")
        #expect(!lists.contains { $0.contains("contentTypeId=12") || $0.contains("contentTypeId=39") }, "\(lists)")
        let ids = Set(try SyncSupport.places(db).map(\.id))
        #expect(ids == ["en:264337", "en:264310", "en:264555", "en:2495622"])
    }

    @Test func koreanAndEnglishOfOnePlaceAreBothKeptAndQueriedApart() async throws {
        let server = try Self.server()
        let folder = try TempFolder()
        let db = folder.file("places.sqlite")
        #expect(try await SyncSupport.sync(db, Self.options(server, .ko)).stop == nil)
        #expect(try await SyncSupport.sync(db, Self.options(server, .en)).stop == nil)
        let ids = Set(try SyncSupport.places(db).map(\.id))
        #expect(ids.contains("126508") && ids.contains("en:264337"))
        // Around Gyeongbokgung: the Korean place by default, the English one with lang=en.
        let around = [("lat", "37.5760836609"), ("lon", "126.9767375783"), ("radius", "50")]
        let korean = try Self.query(db, around)
        #expect(korean.map(\.title) == ["경복궁"])
        let english = try Self.query(db, around + [("lang", "en")])
        #expect(english.map(\.title) == ["Gyeongbokgung Palace (경복궁)"])
        #expect(try Self.query(db, around + [("lang", "ja")]).isEmpty)
    }

    @Test func aSyncOfOneLanguageNeverDeletesAnothersPlaces() async throws {
        let server = try Self.server()
        // The same content id in both services (TourAPI's languages number apart, but nothing forbids it).
        server.mutate(service: "EngService2") { catalog in
            var twin = catalog.places["264337"]!
            twin["contentid"] = "126508"
            twin["title"] = "Gyeongbokgung (twin id)"
            catalog.put(twin)
        }
        let folder = try TempFolder()
        let db = folder.file("places.sqlite")
        let korean = Self.options(server, .ko)
        let english = Self.options(server, .en)
        func sync(_ options: TourAPISyncOptions) async throws {
            #expect(try await SyncSupport.sync(db, options).stop == nil)
        }
        try await sync(korean)
        try await sync(english)
        var places = Dictionary(try SyncSupport.places(db).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(places["126508"]?.title == "경복궁")
        #expect(places["en:126508"]?.title == "Gyeongbokgung (twin id)")
        // English withdraws its 126508 and renames 264310; Korean withdraws nothing of English's.
        server.mutate(service: "EngService2") { catalog in
            catalog.hide("126508")
            catalog.rename("264310", to: "126511")
        }
        try await sync(english)
        places = Dictionary(try SyncSupport.places(db).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(places["en:126508"] == nil)
        #expect(places["en:264310"] == nil)
        #expect(places["en:126511"] != nil)
        #expect(places["126508"]?.title == "경복궁")
        #expect(places["126511"] != nil)  // the Korean 창덕궁, untouched by the English rename
        // Korean withdraws its 126508: the English places stay.
        server.mutate { $0.hide("126508") }
        try await sync(korean)
        places = Dictionary(try SyncSupport.places(db).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(places["126508"] == nil)
        #expect(places["en:264337"] != nil && places["en:126511"] != nil)
        #expect(places.keys.filter { $0.hasPrefix("en:") }.count == 10)
    }
}
