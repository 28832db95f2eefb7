import Foundation
import NearbyKit
import NearbyReplay
import NearbySync
import NearbyTestSupport
import Testing

/// A language service's code lists fetched by its sync (`TourAPISync.codeLists`): whole, in the service's
/// order, kept `codeListDays`, replaced only by a whole list, and never asked by a Korean sync.
@Suite struct CodeListSyncTests {
    static let fixture = LanguageSyncTests.english + "/codeLists.tsv"

    static func server(codeLists: Bool = true) throws -> ReplayServer {
        var english = try LanguageSyncTests.englishCatalog()
        if codeLists { try english.addCodeLists(fromFile: fixture) }
        let server = ReplayServer(
            catalog: try SyncSupport.catalog(generated: 12), languages: ["EngService2": english],
            serviceKey: "test-key")
        try server.start()
        return server
    }

    /// A sync of `options` into `path` on the day `day` (KST, `yyyyMMdd`).
    static func sync(_ path: String, _ options: TourAPISyncOptions, day: String) async throws -> SyncSummary {
        let sync = TourAPISync(cache: try PlaceCache(path: path), options: options, importer: Importer())
        sync.today = { day }
        return try await sync.run()
    }

    static func stored(_ path: String, _ list: TourCodeList) throws -> (fetched: String, codes: [TourCode])? {
        try PlaceCache(path: path, readOnly: true).syncedCodes(service: "EngService2", list: list.rawValue)
    }

    /// The service's list as the replay server holds it.
    static func expected(_ server: ReplayServer, _ list: TourCodeList) -> [TourCode] {
        (server.catalog(of: "EngService2").codeLists[list.rawValue] ?? []).map {
            TourCode(level: $0.level, code: $0.code, name: $0.name, parent: $0.parent)
        }
    }

    static func codeListRequests(_ server: ReplayServer) -> [String] {
        server.requests.filter { r in TourCodeList.allCases.contains { r.contains("/\($0.rawValue)?") } }
    }

    @Test func anEnglishSyncStoresEachCodeListWholeInTheServicesOrder() async throws {
        let server = try Self.server()
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        // Pages of 4: Seoul's 25 시군구 come in 7 pages, and every page is kept.
        let summary = try await Self.sync(db, LanguageSyncTests.options(server, .en), day: "20261128")
        #expect(summary.stop == nil)
        #expect(summary.codeLists == 4)
        #expect(summary.json().contains(#""codeLists":4"#))
        for list in TourCodeList.allCases {
            let stored = try #require(try Self.stored(db, list), "\(list)")
            #expect(stored.fetched == "20261128")
            #expect(stored.codes == Self.expected(server, list), "\(list)")
        }
        let seoul = try #require(try Self.stored(db, .areas)).codes.filter { $0.parent == "1" }
        #expect(seoul.count == 25 && seoul.first?.name == "Gangnam-gu" && seoul.last?.code == "25")
        // The areas' 시군구 one query an area; the classification and the legal-dong 시군구 at once.
        let requests = Self.codeListRequests(server)
        #expect(requests.allSatisfy { $0.hasPrefix("/B551011/EngService2/") && $0.contains("numOfRows=4") })
        let areas = requests.filter { $0.contains("/areaCode2?") }
        #expect(Set(areas.compactMap { Self.value("areaCode", $0) }).count == 17)
        #expect(areas.filter { Self.value("areaCode", $0) == "1" }.count == 7)
        #expect(requests.contains { $0.contains("/lclsSystmCode2?") && $0.contains("lclsSystmListYn=Y") })
        #expect(requests.contains { $0.contains("/ldongCode2?") && $0.contains("lDongListYn=Y") })
        #expect(requests.contains { $0.contains("/categoryCode2?") && $0.contains("cat2=A0101") })
    }

    static func value(_ name: String, _ request: String) -> String? {
        URLComponents(string: request)?.queryItems?.first { $0.name == name }?.value
    }

    /// A replay server and a cache (`c.sqlite` in the folder) with its English places and code lists
    /// synced on 2026-11-01, and the options of that sync.
    static func syncedOnce() async throws -> (ReplayServer, TempFolder, TourAPISyncOptions) {
        let server = try Self.server()
        let folder = try TempFolder()
        let options = LanguageSyncTests.options(server, .en)
        let first = try await Self.sync(folder.file("c.sqlite"), options, day: "20261101")
        #expect(first.stop == nil && first.codeLists == 4)
        return (server, folder, options)
    }

    @Test func aStoredListIsKeptThirtyDaysThenReplaced() async throws {
        let (server, folder, options) = try await Self.syncedOnce()
        let db = folder.file("c.sqlite")
        server.mutate(service: "EngService2") { catalog in
            catalog.codeLists["areaCode2"]![0].name = "Seoul Special City"
        }
        // 29 days on: nothing asked again.
        server.resetRequests()
        let kept = try await Self.sync(db, options, day: "20261130")
        #expect(kept.stop == nil && kept.codeLists == 0)
        #expect(Self.codeListRequests(server).isEmpty)
        #expect(try Self.stored(db, .areas)?.codes.first?.name == "Seoul")
        // 30 days on: every list again, the new name in.
        let renewed = try await Self.sync(db, options, day: "20261201")
        #expect(renewed.codeLists == 4)
        let areas = try #require(try Self.stored(db, .areas))
        #expect(areas.fetched == "20261201" && areas.codes.first?.name == "Seoul Special City")
        #expect(areas.codes == Self.expected(server, .areas))
    }

    @Test func aStopInsideAListKeepsTheListBeforeIt() async throws {
        let (server, folder, options) = try await Self.syncedOnce()
        let db = folder.file("c.sqlite")
        let before = try #require(try Self.stored(db, .areas))
        server.mutate(service: "EngService2") { catalog in
            for n in catalog.codeLists["areaCode2"]!.indices { catalog.codeLists["areaCode2"]![n].name += " (new)" }
        }
        // The quota runs out inside the areas, after four of their five pages (the places' pass before them).
        server.resetRequests()
        server.onRequest = { [weak server] n, path in
            guard path.hasSuffix("/areaCode2"), let server, server.quota == nil else { return }
            server.quota = n + 3
        }
        let stopped = try await Self.sync(db, options, day: "20261215")
        #expect(stopped.stop?.what.contains("LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR") == true)
        #expect(stopped.codeLists == 0)
        let after = try #require(try Self.stored(db, .areas))
        #expect(after.fetched == before.fetched && after.codes == before.codes)
        #expect(Self.codeListRequests(server).filter { $0.contains("/areaCode2?") }.count == 5)
        server.onRequest = nil
        server.quota = nil
        let resumed = try await Self.sync(db, options, day: "20261215")
        #expect(resumed.stop == nil && resumed.codeLists == 4)
        #expect(try Self.stored(db, .areas)?.codes == Self.expected(server, .areas))
    }

    @Test func aServiceThatListsNothingIsRememberedAndKoreanAsksNone() async throws {
        let server = try Self.server(codeLists: false)
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        let english = try await Self.sync(db, LanguageSyncTests.options(server, .en), day: "20261101")
        #expect(english.stop == nil && english.codeLists == 4)
        #expect(try Self.stored(db, .areas)?.codes == [])
        // One query a list: an empty list of areas has no 시군구 to ask.
        #expect(Self.codeListRequests(server).count == 5)
        server.resetRequests()
        let korean = try await Self.sync(db, SyncSupport.options(server, pageSize: 4), day: "20261101")
        #expect(korean.stop == nil && korean.codeLists == 0)
        #expect(Self.codeListRequests(server).isEmpty)
        #expect(try PlaceCache(path: db, readOnly: true).syncedCodes(service: "KorService2", list: "areaCode2") == nil)
    }
}
