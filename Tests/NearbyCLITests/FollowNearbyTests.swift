import Foundation
import NearbyReplay
import NearbyStore
import NearbyTestSupport
import Testing

/// A cache that follows another Nearby: `nearby sync tourapi --base-url` pointed at `nearby serve`, whose
/// `areaBasedList2` crawl, `areaBasedSyncList2` change history and detail operations stand in for
/// TourAPI's. The follower ends with the same places as the cache it follows, after the first crawl and
/// after changes (an edit, a withdrawal, a new id for a place).
@Suite(.serialized) struct FollowNearbyTests {
    static func follow(_ base: String, db: String, details: String = "barrier-free,pet") -> [String] {
        [
            "sync", "tourapi", "--db", db, "--base-url", base, "--page-size", "7", "--retry-delay", "0.001",
            "--retries", "3", "--read-timeout", "5", "--max-requests", "100000", "--details", details,
        ]
    }

    /// Waits until the server answers from the cache's newest generation (it reloads within a second).
    static func waitForReload(_ http: LoopbackHTTP, db: String) throws {
        let places = try SyncCommandTests.export(db).split(separator: "\n").count
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if (try? http.get("/healthz"))?.json["places"] as? Int == places { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        Thread.sleep(forTimeInterval: 1.5)  // a reload that changed no count
    }

    @Test func aCacheSyncedFromNearbyEqualsTheCacheItFollows() throws {
        let replay = ReplayServer(catalog: ReplayCatalog.generated(count: 40), serviceKey: nil)
        try replay.start()
        let folder = try TempFolder()
        let env = ["TOURAPI_SERVICE_KEY": "key"]
        let first = folder.file("first.sqlite")
        let second = folder.file("second.sqlite")
        let leader = try CLIRunner.run(SyncCommandTests.arguments(replay, db: first, pageSize: 9), environment: env)
        #expect(leader.status == 0, "\(leader.stderr)")

        let (run, http) = try ServeSyncTests.serve(["--db", first], key: "")
        defer {
            kill(run.process.processIdentifier, SIGTERM)
            _ = try? run.finish()
        }
        let base = "http://127.0.0.1:\(http.port)/B551011"
        let crawl = try CLIRunner.run(Self.follow(base, db: second), environment: env)
        #expect(crawl.status == 0, "\(crawl.stderr)")
        let expected = try SyncCommandTests.export(first)
        #expect(expected.split(separator: "\n").count == 40)
        // The replay's places have no legal-dong codes: the leader derived them from the coordinates,
        // and so did the follower (Nearby's items leave derived codes out).
        #expect(expected.contains(#""lDongSource":"coordinates""#))
        #expect(try SyncCommandTests.export(second) == expected)

        // Upstream changes: an edit, a withdrawal, a new id; the leader syncs them, then the follower.
        replay.mutate { catalog in
            catalog.change("3000003") { $0["title"] = "바뀐 이름" }
            catalog.hide("3000004")
            catalog.rename("3000006", to: "3999006")
        }
        let again = try CLIRunner.run(SyncCommandTests.arguments(replay, db: first, pageSize: 9), environment: env)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.output.contains(#""deleted":2"#), "\(again.output)")
        try Self.waitForReload(http, db: first)
        let changes = try CLIRunner.run(Self.follow(base, db: second), environment: env)
        #expect(changes.status == 0, "\(changes.stderr)")
        #expect(changes.output.contains(#""deleted":2"#), "\(changes.output)")
        let changed = try SyncCommandTests.export(first)
        #expect(changed != expected)
        #expect(try SyncCommandTests.export(second) == changed)
    }

    /// A language too: an English cache synced from Nearby's EngService2 holds the places and the code
    /// lists of the cache it follows, which had them from the service.
    @Test func anEnglishCacheSyncedFromNearbyHasTheSamePlacesAndCodeLists() throws {
        var english = ReplayCatalog()
        try english.addPlaces(fromFile: LanguageServeTests.english + "/areaBasedList2-page1.json")
        try english.addPlaces(fromFile: LanguageServeTests.english + "/areaBasedList2-page2.json")
        try english.addCodeLists(fromFile: LanguageServeTests.english + "/codeLists.tsv")
        let replay = ReplayServer(catalog: ReplayCatalog(), languages: ["EngService2": english], serviceKey: nil)
        try replay.start()
        let folder = try TempFolder()
        let env = ["TOURAPI_SERVICE_KEY": "key"]
        let first = folder.file("first.sqlite")
        let second = folder.file("second.sqlite")
        let leader = try CLIRunner.run(
            Self.follow(replay.tourBaseURL, db: first, details: "common") + ["--lang", "en"], environment: env)
        #expect(leader.status == 0, "\(leader.stderr)")
        #expect(leader.output.contains(#""codeLists":4"#), "\(leader.output)")

        let (run, http) = try ServeSyncTests.serve(["--db", first], key: "")
        defer {
            kill(run.process.processIdentifier, SIGTERM)
            _ = try? run.finish()
        }
        let base = "http://127.0.0.1:\(http.port)/B551011"
        let follower = try CLIRunner.run(
            Self.follow(base, db: second, details: "common") + ["--lang", "en"], environment: env)
        #expect(follower.status == 0, "\(follower.stderr)")
        #expect(follower.output.contains(#""codeLists":4"#), "\(follower.output)")
        let expected = try SyncCommandTests.export(first)
        #expect(expected.split(separator: "\n").count == 10 && expected.contains(#""id":"en:264337""#))
        #expect(try SyncCommandTests.export(second) == expected)
        for list in ["areaCode2", "categoryCode2", "ldongCode2", "lclsSystmCode2"] {
            let codes = { (db: String) in
                try PlaceCache(path: db, readOnly: true).syncedCodes(service: "EngService2", list: list)?.codes
            }
            let leading = try #require(try codes(first), "\(list)")
            let following = try codes(second)
            #expect(!leading.isEmpty && following == leading, "\(list)")
        }
    }
}
