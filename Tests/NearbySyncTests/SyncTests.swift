import Foundation
import NearbyKit
import NearbyReplay
import NearbyTestSupport
import Testing

@testable import NearbySync

@Suite struct TourAPISyncTests {
    @Test func aFullCrawlImportsEveryPlaceAndASecondSyncAsksOnlyForChanges() async throws {
        let catalog = try SyncSupport.catalog(generated: 45)
        let server = try SyncSupport.server(catalog)
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        let options = SyncSupport.options(server, pageSize: 10)
        let first = try await SyncSupport.sync(db, options)
        #expect(first.stop == nil)
        let places = try SyncSupport.places(db)
        #expect(Set(places.map(\.id)) == SyncSupport.shown(catalog))
        #expect(first.added == places.count)
        let lists = server.requests.filter { $0.contains("areaBasedList2") }
        #expect(lists.count == (catalog.places.count + 9) / 10)
        #expect(
            lists.allSatisfy { $0.contains("numOfRows=10") && $0.contains("_type=json") && $0.contains("MobileOS=ETC") }
        )
        // The crawl is followed by the changes made while it ran: two days, one request each.
        #expect(server.requests.filter { $0.contains("areaBasedSyncList2") }.count == 2)
        server.resetRequests()
        let second = try await SyncSupport.sync(db, options)
        #expect(second.stop == nil && second.added == 0 && second.updated == 0)
        #expect(second.requests == 2)
        #expect(server.requests.allSatisfy { $0.contains("areaBasedSyncList2") && $0.contains("modifiedtime=") })
    }

    @Test func detailsAreFetchedForNewAndChangedPlacesOnly() async throws {
        let catalog = try SyncSupport.catalog(generated: 12)
        let server = try SyncSupport.server(catalog)
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        var options = SyncSupport.options(server, pageSize: 5)
        options.details = [.common, .barrierFree, .pet]
        let first = try await SyncSupport.sync(db, options)
        #expect(first.stop == nil)
        #expect(first.details == 3 * first.added)
        let places = try SyncSupport.places(db)
        let palace = try #require(places.first { $0.id == "126508" })  // 경복궁: barrier-free in the fixture
        #expect(palace.barrierFree != nil && !palace.accessibility.isEmpty)
        #expect(places.first { $0.id == "126511" }?.pet == "no")  // 창덕궁 동반불가
        #expect(places.first { $0.id == "3000001" }?.pet == "some")
        server.mutate { $0.change("3000002") { $0["title"] = "새 이름" } }
        server.resetRequests()
        let second = try await SyncSupport.sync(db, options)
        #expect(second.updated == 1 && second.details == 3)
        #expect(server.requests.filter { $0.contains("detail") }.allSatisfy { $0.contains("contentId=3000002") })
        #expect(try SyncSupport.places(db).first { $0.id == "3000002" }?.title == "새 이름")
    }

    @Test func changesHidesRenamesAndAdditionsCostRequestsInProportionAndEndAsAFreshCrawl() async throws {
        let server = try SyncSupport.server(try SyncSupport.catalog(generated: 60))
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        var options = SyncSupport.options(server, pageSize: 10)
        options.details = [.pet]
        _ = try await SyncSupport.sync(db, options)
        server.mutate { catalog in
            for id in ["3000003", "3000010", "3000020"] { catalog.change(id) { $0["tel"] = "010-1111-2222" } }
            catalog.hide("3000030")
            catalog.hide("126508")
            catalog.rename("3000040", to: "3999999")
            var extra = ReplayCatalog.generated(count: 2, seed: 9, firstID: 3_500_001)
            for id in ["3500001", "3500002"] {
                extra.change(id) { _ in }
                catalog.put(extra.places[id]!)
            }
        }
        server.resetRequests()
        let again = try await SyncSupport.sync(db, options)
        #expect(again.stop == nil)
        #expect(again.updated == 3 && again.added == 3 && again.deleted == 3)
        // Two days of changes fit a page each; a detail for each of the 6 new or changed places.
        #expect(again.requests == 2 + 6)
        #expect(try SyncSupport.places(db) == (try await SyncSupport.fresh(server, options)))
    }

    @Test func aChurnAskedOfTheReplayServerIsWhatTheNextSyncFetches() async throws {
        let server = try SyncSupport.server(ReplayCatalog.generated(count: 300))
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        let options = SyncSupport.options(server, pageSize: 100)
        let first = try await SyncSupport.sync(db, options)
        // Requests less retries: a loaded machine may time one out.
        #expect(first.stop == nil && first.added == 300 && first.requests - first.retries == 3 + 2)
        // The way `nearby replay` is told: over HTTP, as scripts/bench-sync.sh asks it.
        let answer = try LoopbackHTTP(port: server.port).get("/replay/churn?count=50")
        #expect(answer.status == 200)
        #expect(answer.json["changed"] as? Int == 40 && answer.json["hidden"] as? Int == 5)
        #expect(answer.json["added"] as? Int == 5)
        #expect(SyncSupport.shown(server.catalog).count == 300)
        server.resetRequests()
        let second = try await SyncSupport.sync(db, options)
        // 50 changes dated today: one page of today's list, and yesterday's (empty).
        #expect(second.stop == nil && second.requests - second.retries == 2)
        #expect(second.updated == 40 && second.deleted == 5 && second.added == 5)
        #expect(try SyncSupport.places(db) == (try await SyncSupport.fresh(server, options)))
    }

    @Test func aChurnSpreadsOverTheCatalogTheSameEachTime() {
        var a = ReplayCatalog.generated(count: 1000)
        var b = ReplayCatalog.generated(count: 1000)
        let done = a.churn(100, now: "20250301120000")
        #expect(done == ReplayCatalog.Churn(changed: 80, hidden: 10, added: 10))
        #expect(b.churn(100, now: "20250301120000") == done)
        let today = a.places.values.filter { $0["modifiedtime"] == "20250301120000" }
        #expect(
            today.count == 100
                && Set(today.map(\.id))
                    == Set(b.places.values.filter { $0["modifiedtime"] == "20250301120000" }.map(\.id))
        )
        #expect(a.places.count == 1010 && a.places.values.filter(\.hidden).count == 10)
        // Spread: changes among the first and the last hundred ids alike.
        let changed = today.compactMap { Int($0.id) }.filter { $0 < 3_001_001 }
        #expect(changed.contains { $0 < 3_000_101 } && changed.contains { $0 > 3_000_900 })
        #expect(a.churn(0) == ReplayCatalog.Churn())
    }

    @Test func dataThatChangesWhileTheCrawlPagesThroughIt() async throws {
        let catalog = try SyncSupport.catalog(generated: 50)
        let server = try SyncSupport.server(catalog)
        // Between pages 2 and 3: a place on a page already read is hidden (the rest move up a row), one
        // is changed (it moves to the top), one is added.
        let order = catalog.places.values.sorted { ($0["modifiedtime"]!, $0.id) > ($1["modifiedtime"]!, $1.id) }
        let early = order[3].id
        let moved = order[30].id
        let alone = order[5].id
        // Between pages 4 and 5, only a withdrawal on a page already read: every later place moves up
        // a row, and the list's total falls, so the page before is fetched again.
        server.onRequest = { [weak server] n, _ in
            if n == 5 { server?.mutate { $0.hide(alone) } }
            guard n == 3 else { return }
            server?.mutate { c in
                c.hide(early)
                c.change(moved) { $0["title"] = "바뀐 곳" }
                var extra = ReplayCatalog.generated(count: 1, seed: 3, firstID: 3_600_001)
                extra.change("3600001") { _ in }
                c.put(extra.places["3600001"]!)
            }
        }
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        let options = SyncSupport.options(server, pageSize: 10)
        let summary = try await SyncSupport.sync(db, options)
        #expect(summary.stop == nil)
        server.onRequest = nil
        #expect(server.requests.filter { $0.contains("areaBasedList2") && $0.contains("pageNo=4") }.count == 2)
        #expect(try SyncSupport.places(db) == (try await SyncSupport.fresh(server, options)))
    }

    @Test(arguments: [
        ReplayServer.Failure.status(500, retryAfter: nil), .status(503, retryAfter: nil),
        .status(429, retryAfter: "0"), .cutBody, .resultCode("99"), .resultCode("01"), .gateway("99", status: 200),
        .flat("99"), .unexpected, .stall(1.5),
    ])
    func transientFailuresAreRetried(_ failure: ReplayServer.Failure) async throws {
        let server = try SyncSupport.server(try SyncSupport.catalog(generated: 20))
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        var options = SyncSupport.options(server, pageSize: 10)
        options.http.readTimeout = 0.5
        server.fail([failure, failure])
        var retries: [String] = []
        let cache = try PlaceCache(path: db)
        let sync = TourAPISync(cache: cache, options: options, importer: Importer())
        sync.onRetry = { url, reason, _ in retries.append(url + " " + reason) }
        let summary = try await sync.run()
        #expect(summary.stop == nil, "\(failure): \(String(describing: summary.stop))")
        #expect(summary.retries == 2 && retries.count == 2, "\(failure): \(retries)")
        #expect(retries.allSatisfy { $0.contains("serviceKey=REDACTED") && !$0.contains("test-key") })
        #expect(try SyncSupport.places(db) == (try await SyncSupport.fresh(server, options)))
    }

    @Test(arguments: ["22", "30", "31", "32", "20", "12"])
    func codesThatARetryCannotFixStopTheSyncAtOnce(_ code: String) async throws {
        let name = try #require(TourAPIAnswer.fatalCodes[code]?.name)
        for failure in [
            ReplayServer.Failure.gateway(code, status: 200), .gateway(code, status: 403), .resultCode(code),
            .flat(code),
        ] {
            let server = try SyncSupport.server(try SyncSupport.catalog(generated: 5))
            let folder = try TempFolder()
            let db = folder.file("c.sqlite")
            server.fail([failure])
            let summary = try await SyncSupport.sync(db, SyncSupport.options(server))
            let stop = try #require(summary.stop, "\(failure)")
            #expect(stop.what.contains(code) && stop.what.contains(name), "\(failure): \(stop)")
            #expect(!stop.advice.isEmpty)
            #expect(summary.requests == 1 && summary.retries == 0, "\(failure)")
        }
    }

    @Test func aWrongKeyGetsTheGatewaysCode30() async throws {
        let server = try SyncSupport.server(try SyncSupport.catalog(generated: 5), key: "right")
        let folder = try TempFolder()
        let summary = try await SyncSupport.sync(folder.file("c.sqlite"), SyncSupport.options(server, key: "wrong"))
        #expect(summary.stop?.what.contains("SERVICE_KEY_IS_NOT_REGISTERED_ERROR") == true)
        #expect(summary.stop?.description.contains("wrong") == false)
    }

    @Test func retryAfterIsHonoured() async throws {
        let server = try SyncSupport.server(try SyncSupport.catalog(generated: 3))
        let folder = try TempFolder()
        server.fail([.status(429, retryAfter: "1")])
        let start = Date()
        let summary = try await SyncSupport.sync(folder.file("c.sqlite"), SyncSupport.options(server))
        #expect(summary.stop == nil && summary.retries == 1)
        #expect(Date().timeIntervalSince(start) >= 1)
    }

    @Test func retriesEndInAStopThatSaysTheNextRunContinues() async throws {
        let server = try SyncSupport.server(try SyncSupport.catalog(generated: 3))
        let folder = try TempFolder()
        server.fail(Array(repeating: .status(502, retryAfter: nil), count: 10))
        let summary = try await SyncSupport.sync(folder.file("c.sqlite"), SyncSupport.options(server))
        #expect(summary.stop?.advice.contains("continues") == true)
        #expect(summary.requests == 4 && summary.retries == 3)
    }

    @Test func anEmptyListIsAnEmptyPage() async throws {
        let server = try SyncSupport.server(try SyncSupport.catalog(generated: 8))
        let folder = try TempFolder()
        var options = SyncSupport.options(server)
        options.contentTypes = ["99"]
        let summary = try await SyncSupport.sync(folder.file("c.sqlite"), options)
        #expect(summary.stop == nil && summary.added == 0)
        let page = try #require(server.requests.first)
        #expect(page.contains("contentTypeId=99"))
    }

    @Test func quotaExhaustionStopsAndTheNextRunEndsAsACleanOne() async throws {
        let server = try SyncSupport.server(try SyncSupport.catalog(generated: 50))
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        var options = SyncSupport.options(server, pageSize: 10)
        options.details = [.barrierFree]
        server.quota = 4
        let stopped = try await SyncSupport.sync(db, options)
        #expect(stopped.stop?.what.contains("LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR") == true)
        #expect(stopped.stop?.advice.contains("midnight KST") == true)
        server.quota = nil
        let resumed = try await SyncSupport.sync(db, options)
        #expect(resumed.stop == nil)
        #expect(try SyncSupport.places(db) == (try await SyncSupport.fresh(server, options)))
    }

    @Test func theDailyBudgetHoldsAcrossRuns() async throws {
        let server = try SyncSupport.server(try SyncSupport.catalog(generated: 50))
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        var options = SyncSupport.options(server, pageSize: 10)
        options.maxRequests = 3
        let first = try await SyncSupport.sync(db, options)
        #expect(first.requests == 3 && first.stop?.what.contains("budget") == true)
        let refused = try await SyncSupport.sync(db, options)
        #expect(refused.requests == 0 && refused.stop != nil)
        options.maxRequests = 100
        let rest = try await SyncSupport.sync(db, options)
        #expect(rest.stop == nil)
        let cache = try PlaceCache(path: db)
        #expect(try cache.syncRequests(day: SyncDay.string(Date()), source: "tourapi") == 3 + rest.requests)
        #expect(try SyncSupport.places(db) == (try await SyncSupport.fresh(server, options)))
    }

    @Test func aBudgetSmallerThanAPagesDetailsStillMakesProgress() async throws {
        let server = try SyncSupport.server(try SyncSupport.catalog(generated: 30))
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        var options = SyncSupport.options(server, pageSize: 20)
        options.details = [.barrierFree, .pet]
        var runs = 0
        while runs < 40 {
            runs += 1
            options.maxRequests = 7 * runs  // a day's budget, raised by 7 each run
            let summary = try await SyncSupport.sync(db, options)
            if summary.stop == nil { break }
            #expect(summary.requests == 7)
        }
        #expect(runs > 5 && runs < 40)
        #expect(try SyncSupport.places(db) == (try await SyncSupport.fresh(server, options)))
    }

    @Test func oneSyncAtATimeOnACache() throws {
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        do {
            let held = try SyncLock(cachePath: db)
            #expect(throws: SyncStop.self) { try SyncLock(cachePath: db) }
            withExtendedLifetime(held) {}
        }
        _ = try SyncLock(cachePath: db)
    }

    @Test func serviceKeysAreSentEncodedOnce() {
        #expect(TourAPIKey.queryValue("ab+c/d==") == "ab%2Bc%2Fd%3D%3D")
        #expect(TourAPIKey.queryValue("ab%2Bc%2Fd%3D%3D") == "ab%2Bc%2Fd%3D%3D")
        let secrets = Secrets(["ab+c/d=="])
        #expect(secrets.redact("x?serviceKey=ab%2Bc%2Fd%3D%3D&y=ab+c/d==") == "x?serviceKey=REDACTED&y=REDACTED")
        #expect(Secrets(["key"]).redact("a?serviceKey=key&b=1: the key") == "a?serviceKey=REDACTED&b=1: the key")
    }

    @Test func changesSinceLongAgoAreAskedByMonth() {
        #expect(
            SyncDay.days(from: "20250227", through: "20250302") == ["20250227", "20250228", "20250301", "20250302"])
        #expect(SyncDay.dayBefore("20250301") == "20250228")
    }
}

@Suite struct KakaoSyncTests {
    @Test func crowdedAreasAreSplitUntilEveryCellFits() async throws {
        var catalog = ReplayCatalog()
        catalog.addGeneratedKakao(count: 160, group: "FD6", minX: 126.95, minY: 37.55, maxX: 127.0, maxY: 37.6)
        catalog.addGeneratedKakao(
            count: 20, group: "CE7", minX: 126.95, minY: 37.55, maxX: 127.0, maxY: 37.6, seed: 3, firstID: 800_000_001)
        try catalog.addKakao(fromFile: SyncSupport.realData + "/kakao-category.jsonl")
        let server = try SyncSupport.server(catalog, key: "kakao-key")
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        var options = SyncSupport.kakaoOptions(
            server, categories: ["FD6", "CE7"], box: GeoBox(minLon: 126.9, minLat: 37.5, maxLon: 127.05, maxLat: 37.65))
        options.http.retryDelay = 0.001
        let sync = KakaoSync(cache: try PlaceCache(path: db), options: options, importer: Importer())
        let summary = try await sync.run()
        #expect(summary.stop == nil)
        #expect(summary.added == 180)
        let places = try SyncSupport.places(db)
        #expect(places.count == 180 && places.allSatisfy { $0.id.hasPrefix("kakao:") })
        #expect(server.requests.count > 4)
        #expect(server.requests.allSatisfy { $0.contains("rect=") })
        // Again: nothing new.
        let again = try await KakaoSync(cache: try PlaceCache(path: db), options: options, importer: Importer()).run()
        #expect(again.added == 0 && again.unchanged == 180)
    }

    /// A city of 2,000 restaurants, three in ten spread evenly, the rest around 12 centres: every one
    /// found, in at most 1.5 times the requests no enumeration can do without (15 documents an answer).
    @Test(arguments: [0, 12]) func aCityIsEnumeratedCompletelyInFewRequests(centres: Int) async throws {
        var catalog = ReplayCatalog()
        catalog.addGeneratedKakao(
            count: 2000, group: "FD6", minX: 126.96, minY: 37.56, maxX: 127.01, maxY: 37.6, centres: centres)
        let server = try SyncSupport.server(catalog, key: "kakao-key")
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        var options = SyncSupport.kakaoOptions(
            server, categories: ["FD6"], box: GeoBox(minLon: 126.96, minLat: 37.56, maxLon: 127.01, maxLat: 37.6))
        options.maxRequests = 100_000
        let sync = KakaoSync(cache: try PlaceCache(path: db), options: options, importer: Importer())
        let summary = try await sync.run()
        #expect(summary.stop == nil && summary.added == 2000 && sync.crowdedCells == 0)
        #expect(try SyncSupport.places(db).count == 2000)
        let bound = (2000 + 14) / 15
        #expect(summary.requests - summary.retries <= bound * 3 / 2, "\(summary.requests) requests, bound \(bound)")
    }

    @Test func aCrowdedCellIsSplitByItsCountIntoNearlySquareParts() {
        let cell = [127.0, 37.5, 127.1, 37.6]
        let parts = KakaoSync.split(cell, total: 400, smallest: 0.0005)
        #expect(parts.count >= 12 && parts.count <= 14)  // ⌈400/35⌉ = 12, rounded up to a grid
        let area = parts.reduce(0) { $0 + ($1[2] - $1[0]) * ($1[3] - $1[1]) }
        #expect(abs(area - 0.01) < 1e-12)
        #expect(
            parts.allSatisfy {
                $0[0] >= cell[0] && $0[2] <= cell[2] + 1e-12 && $0[1] >= cell[1] && $0[3] <= cell[3] + 1e-12
            })
        // Longitude degrees are shorter at 37.5°N: more rows than columns.
        #expect(Set(parts.map { $0[1] }).count > Set(parts.map { $0[0] }).count)
        // Very many places: about the square root first, each part split again by its own count.
        #expect(KakaoSync.split(cell, total: 20_000, smallest: 0.0005).count < 40)
        #expect(KakaoSync.split(cell, total: 46, smallest: 0.0005).count == 2)
        // A cell at the smallest size is not split.
        #expect(KakaoSync.split([127.0, 37.5, 127.0004, 37.5004], total: 100, smallest: 0.0005).count == 1)
    }

    @Test func aGeneratedCityGathersAroundItsCentresTheSameEachTime() {
        var a = ReplayCatalog()
        var b = ReplayCatalog()
        a.addGeneratedKakao(count: 3000, group: "FD6", minX: 126.96, minY: 37.56, maxX: 127.01, maxY: 37.6, centres: 12)
        b.addGeneratedKakao(count: 3000, group: "FD6", minX: 126.96, minY: 37.56, maxX: 127.01, maxY: 37.6, centres: 12)
        #expect(a.kakao.map(\.x) == b.kakao.map(\.x) && a.kakao.map(\.y) == b.kakao.map(\.y))
        #expect(a.kakao.allSatisfy { (126.96...127.01).contains($0.x) && (37.56...37.6).contains($0.y) })
        // Uneven: the busiest of a 10 × 10 grid's cells holds more than twice the average (30).
        var counts = [Int](repeating: 0, count: 100)
        for d in a.kakao {
            let i = min(9, Int((d.x - 126.96) / 0.005)) * 10 + min(9, Int((d.y - 37.56) / 0.004))
            counts[i] += 1
        }
        #expect(counts.max()! > 60)
    }

    @Test func aWrongKakaoKeyStops() async throws {
        var catalog = ReplayCatalog()
        catalog.addGeneratedKakao(count: 3, group: "FD6", minX: 126.95, minY: 37.55, maxX: 127.0, maxY: 37.6)
        let server = try SyncSupport.server(catalog, key: "kakao-key")
        let folder = try TempFolder()
        let options = SyncSupport.kakaoOptions(
            server, categories: ["FD6"], box: GeoBox(minLon: 126.9, minLat: 37.5, maxLon: 127.05, maxLat: 37.65),
            key: "nope")
        let summary = try await KakaoSync(
            cache: try PlaceCache(path: folder.file("c.sqlite")), options: options, importer: Importer()
        ).run()
        #expect(summary.stop?.what.contains("401") == true && summary.requests == 1)
    }
}
