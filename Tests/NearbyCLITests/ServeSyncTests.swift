import Foundation
import NearbyKit
import NearbyReplay
import NearbyTestSupport
import Testing

/// `nearby serve --sync tourapi` and `--fallback tourapi` as a real process against the replay server:
/// the background sync is served and retried, upstream is asked once per area, a failing upstream never
/// fails a query, and the key shows nowhere.
@Suite(.serialized) struct ServeSyncTests {
    static func key() -> String {
        "k" + (0..<40).map { _ in String("abcdefghijklmnopqrstuvwxyz0123456789+/=".randomElement()!) }.joined()
    }

    /// The flags that point the sync at `server`, quick to give up.
    static func upstream(_ server: ReplayServer) -> [String] {
        [
            "--base-url", server.tourBaseURL, "--page-size", "10", "--retry-delay", "0.001", "--retries", "2",
            "--read-timeout", "2", "--max-requests", "100000",
        ]
    }

    /// Starts `nearby serve` on a free port and waits until it listens.
    static func serve(_ arguments: [String], key: String) throws -> (CLIRunner.Run, LoopbackHTTP) {
        let port = try LoopbackHTTP.freePort()
        let run = try CLIRunner.start(
            ["serve", "--port", String(port)] + arguments, environment: ["TOURAPI_SERVICE_KEY": key])
        let http = LoopbackHTTP(port: port)
        let deadline = Date().addingTimeInterval(60)
        while !http.isListening() && Date() < deadline && run.process.isRunning { Thread.sleep(forTimeInterval: 0.05) }
        return (run, http)
    }

    /// Every form of `key` that must not show.
    static func forms(_ key: String) -> [String] {
        [key, key.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!, String(key.dropFirst(10).prefix(20))]
    }

    @Test func aBackgroundSyncIsServedRetriedAndItsKeyShowsNowhere() throws {
        let key = Self.key()
        var catalog = ReplayCatalog.generated(count: 25)
        try catalog.addPlaces(fromFile: SyncCommandTests.realData + "/bare-array.json")
        let replay = ReplayServer(catalog: catalog, serviceKey: key)
        try replay.start()
        // The first run fails every try of its first request (a retry line with the URL, then a stop that
        // names it); the next, a second later, completes.
        replay.fail(Array(repeating: .status(500, retryAfter: nil), count: 3))
        let folder = try TempFolder()
        let db = folder.file("synced.sqlite")  // no cache yet: the server makes it
        let (run, http) = try Self.serve(
            ["--db", db, "--sync", "tourapi", "--sync-every", "1s"] + Self.upstream(replay), key: key)
        var health: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && run.process.isRunning {
            health = (try? http.get("/healthz"))?.json ?? [:]
            if (health["sync"] as? [String: Any])?["outcome"] as? String == "complete" { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let sync = try #require(health["sync"] as? [String: Any], "\(health)")
        #expect(sync["outcome"] as? String == "complete", "\(health)")
        #expect((sync["runs"] as? Int ?? 0) >= 2, "\(health)")
        #expect(sync["last_complete"] is String, "\(health)")
        let shown = Set(catalog.places.values.filter { !$0.hidden }.map(\.id))
        #expect(health["places"] as? Int == shown.count, "\(health)")
        // The next query sees the synced places.
        let answer = try http.get("/v1/places?limit=1000&fields=id")
        let ids = (answer.json["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        #expect(Set(ids) == shown)
        let metrics = try http.get("/metrics").text
        #expect(metrics.contains(#"nearby_sync_runs_total{outcome="stopped"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"nearby_sync_runs_total{outcome="complete"}"#), "\(metrics)")
        #expect(metrics.contains("nearby_sync_last_complete_timestamp_seconds"), "\(metrics)")
        let healthText = try http.get("/healthz").text
        kill(run.process.processIdentifier, SIGTERM)
        let result = try run.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("sync stopped"), "\(result.stderr)")
        #expect(result.stderr.contains("serviceKey=REDACTED"), "\(result.stderr)")
        #expect(result.stderr.contains("sync finished"), "\(result.stderr)")
        var everything = Data((result.stderr + metrics + healthText).utf8) + result.stdout
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            everything += try Data(contentsOf: URL(fileURLWithPath: folder.file(file)))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).contains("synced.sqlite.nearby-index"))
        for form in Self.forms(key) {
            #expect(everything.range(of: Data(form.utf8)) == nil, "the key shows as \(form)")
        }
    }

    @Test func anUnsyncedAreaIsAskedOnceAndAFailingUpstreamFailsNoQuery() throws {
        let key = Self.key()
        // Five places within a kilometre of Seoul City Hall upstream, the rest far away.
        var catalog = ReplayCatalog.generated(count: 30)
        let near = (0..<5).map { String(3_000_001 + $0) }
        for (i, id) in near.enumerated() {
            catalog.change(id) { place in
                place["mapx"] = String(format: "%.6f", 126.978 + 0.001 * Double(i))
                place["mapy"] = "37.566500"
            }
        }
        let replay = ReplayServer(catalog: catalog, serviceKey: key)
        try replay.start()
        let folder = try TempFolder()
        let db = folder.file("places.sqlite")  // made empty by the server
        // --timeout 3: a query waits at most 3 s for upstream; answers are slow to read at most 10 s.
        let (run, http) = try Self.serve(
            ["--db", db, "--fallback", "tourapi", "--timeout", "3"] + Self.upstream(replay) + ["--read-timeout", "10"],
            key: key)
        func located() -> Int { replay.requests.filter { $0.contains("locationBasedList2") }.count }

        // Eight queries of the same unsynced area at once: one upstream call, every answer has its places.
        final class Answers: @unchecked Sendable {
            let lock = NSLock()
            var all: [LoopbackHTTP.Response?] = []
        }
        let answers = Answers()
        let port = http.port
        let asked = DispatchGroup()
        for i in 0..<8 {
            asked.enter()
            Thread {
                let lon = 126.978 + 0.0005 * Double(i % 3)
                let r = try? LoopbackHTTP(port: port).get("/v1/places?lat=37.5665&lon=\(lon)&radius=900&fields=id")
                answers.lock.withLock { answers.all.append(r) }
                asked.leave()
            }.start()
        }
        asked.wait()
        #expect(answers.all.count == 8)
        #expect(located() == 1, "\(replay.requests)")
        for answer in answers.all {
            #expect(answer?.status == 200)
            #expect(answer?.headers["nearby-partial"] == nil)
            let ids = (answer?.json["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
            #expect(Set(ids).isSuperset(of: near.prefix(3)), "\(ids)")
        }
        // The same area again, through TourAPI's endpoint: answered from the cache, upstream not asked.
        let tour = try http.get(
            "/B551011/KorService2/locationBasedList2?mapX=126.9785&mapY=37.5667&radius=500&_type=json&numOfRows=50")
        #expect(tour.status == 200)
        #expect(tour.text.contains(near[0]), "\(tour.text)")
        #expect(located() == 1, "\(replay.requests)")

        // A wider circle is another area. Upstream refuses the key (code 30): the cache's answer (the
        // places fetched before), marked partial.
        replay.fail([.gateway("30", status: 200)])
        let wide = try http.get("/v1/places?lat=37.5665&lon=126.978&radius=5000&fields=id")
        #expect(wide.status == 200)
        #expect(wide.headers["nearby-partial"] == "upstream-failed")
        #expect(wide.text.contains(near[0]), "\(wide.text)")
        #expect(located() == 2)
        // Upstream failing (5xx, every retry): a TourAPI answer from the cache (empty here), marked partial.
        replay.fail(Array(repeating: .status(503, retryAfter: nil), count: 3))
        let daegu = try http.get("/B551011/KorService2/locationBasedList2?mapX=128.6&mapY=35.87&radius=1000&_type=json")
        #expect(daegu.status == 200, "\(daegu.text)")
        #expect(daegu.headers["nearby-partial"] == "upstream-failed")
        #expect(daegu.text.contains(#""totalCount":0"#), "\(daegu.text)")
        // A failed area is not asked again at once.
        let before = located()
        let again = try http.get("/v1/places?lat=37.5665&lon=126.978&radius=5000&fields=id")
        #expect(again.headers["nearby-partial"] == "upstream-failed")
        #expect(located() == before)
        // Upstream slower than the query's wait: answered from the cache at once, marked; the fetch goes
        // on, and a later query of the area is whole without a second call.
        replay.fail([.stall(3.5)])
        let slow = try http.get("/v1/places?lat=35.16&lon=126.85&radius=900&fields=id")
        #expect(slow.status == 200)
        #expect(slow.headers["nearby-partial"] == "upstream-slow")
        Thread.sleep(forTimeInterval: 1)
        let later = try http.get("/v1/places?lat=35.16&lon=126.85&radius=900&fields=id")
        #expect(later.status == 200 && later.headers["nearby-partial"] == nil, "\(later.headers)")
        #expect(located() == before + 1)

        let metrics = try http.get("/metrics").text
        #expect(metrics.contains(#"nearby_upstream_fetches_total{result="ok"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"nearby_upstream_fetches_total{result="failed"} 2"#), "\(metrics)")
        kill(run.process.processIdentifier, SIGTERM)
        let result = try run.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("upstream failed"), "\(result.stderr)")
        var everything = Data((result.stderr + metrics).utf8)
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            everything += try Data(contentsOf: URL(fileURLWithPath: folder.file(file)))
        }
        for form in Self.forms(key) {
            #expect(everything.range(of: Data(form.utf8)) == nil, "the key shows as \(form)")
        }
        // The areas fetched are remembered in the cache (the next server asks upstream for none of them);
        // the failed ones are not.
        let cache = try PlaceCache(path: db, readOnly: true)
        let source = "tourapi KorService2 locationBasedList2"
        #expect(try cache.syncAreaFetched(source: source, area: "37.57,126.98,2000"))
        #expect(try cache.syncAreaFetched(source: source, area: "35.16,126.85,2000"))
        #expect(try !cache.syncAreaFetched(source: source, area: "37.57,126.98,10000"))
    }

    @Test func badSyncFlagsAreUsageErrors() throws {
        let folder = try TempFolder()
        let db = folder.file("none.sqlite")
        for flags in [
            ["--sync", "tourapi", "--sync-every", "5x"], ["--sync", "tourapi", "--sync-every", "0s"],
            ["--sync", "tourapi", "--sync-every", "-1h"], ["--sync-every", "24h"], ["--sync", "kakao"],
        ] {
            let r = try CLIRunner.run(
                ["serve", "--db", db, "--port", "0"] + flags, environment: ["TOURAPI_SERVICE_KEY": "k"])
            #expect(r.status == 2, "\(flags): \(r.stderr)")
        }
        // No key at all: a usage error too.
        let noKey = try CLIRunner.run(
            ["serve", "--db", db, "--port", "0", "--sync", "tourapi"], environment: ["TOURAPI_SERVICE_KEY": ""])
        #expect(noKey.status == 2, "\(noKey.stderr)")
    }
}
