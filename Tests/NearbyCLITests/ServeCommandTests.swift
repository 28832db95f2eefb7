import Foundation
import NearbyTestSupport
import Testing

/// `nearby serve` as a real process: it answers, logs each request on stderr (never stdout), and
/// stops cleanly (exit 0) on SIGTERM and SIGINT.
@Suite(.serialized) struct ServeCommandTests {
    @Test func testServeAnswersLogsAndStopsOnSignals() throws {
        let folder = try TempFolder()
        let db = folder.file("places.sqlite")
        let input = try folder.write(
            "places.jsonl",
            """
            {"id":"1","title":"경복궁","lat":37.5796,"lon":126.977,"category":12}
            {"id":"2","title":"덕수궁","lat":37.5658,"lon":126.9751,"category":12}

            """)
        #expect(try CLIRunner.run(["import", input, "--db", db]).status == 0)
        for signal in [SIGTERM, SIGINT] {
            let (ids, result) = try serveOneQuery(db: db, stoppedBy: signal)
            #expect(ids == ["2", "1"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.killedBySignal)
            #expect(result.output == "", "nothing on stdout")
            #expect(result.stderr.contains("listening"), "\(result.stderr)")
            #expect(
                result.stderr.contains("path=/v1/places") && result.stderr.contains("status=200"), "\(result.stderr)")
            // swift-log's StreamLogHandler line, with Hummingbird's request id among the sorted metadata
            // (StderrLogHandler formats it only when it writes a line). The id is a random 64-bit prefix in
            // hex without leading zeros, then 16 hex digits: 17 to 32 digits (31 once in 16 starts).
            let accessLine =
                #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} info nearby\.serve: hb\.request\.id=[0-9a-f]{17,32} method=GET path=/v1/places status=200 us=\d+ \[NearbyServer\] request$/#
            #expect(
                result.stderr.split(separator: "\n").contains { $0.wholeMatch(of: accessLine) != nil },
                "\(result.stderr)")
        }
    }

    /// `--pin-event-loops` pins before it listens, says so once on stderr, and serves as without it.
    @Test func testServePinsItsEventLoops() throws {
        let folder = try TempFolder()
        let db = folder.file("places.sqlite")
        let input = try folder.write(
            "places.jsonl",
            """
            {"id":"1","title":"경복궁","lat":37.5796,"lon":126.977,"category":12}

            """)
        #expect(try CLIRunner.run(["import", input, "--db", db]).status == 0)
        let (ids, result) = try serveOneQuery(db: db, flags: ["--pin-event-loops"], stoppedBy: SIGTERM)
        #expect(ids == ["1"])
        #expect(result.status == 0, "\(result.stderr)")
        let pinned = result.stderr.split(separator: "\n").filter { $0.contains("event loops pinned") }
        #expect(pinned.count == 1, "\(result.stderr)")
        #expect(pinned.first?.firstMatch(of: #/ cpus=\d+(,\d+)* /#) != nil, "\(result.stderr)")
    }

    /// Starts `nearby serve --db db` with `flags`, asks for the ids within 2 km of Seoul City Hall (the
    /// answer must be a 200), and stops it with `signal`: the ids and how the process ended.
    private func serveOneQuery(db: String, flags: [String] = [], stoppedBy signal: Int32) throws -> (
        ids: [String]?, result: CLIResult
    ) {
        let port = try LoopbackHTTP.freePort()
        let run = try CLIRunner.start(["serve", "--db", db, "--port", String(port)] + flags)
        let http = LoopbackHTTP(port: port)
        let deadline = Date().addingTimeInterval(60)
        while !http.isListening() && Date() < deadline && run.process.isRunning { Thread.sleep(forTimeInterval: 0.05) }
        let r = try http.get("/v1/places?lat=37.5665&lon=126.978&radius=2000&fields=id")
        #expect(r.status == 200, "\(r.text)")
        let ids = (r.json["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        kill(run.process.processIdentifier, signal)
        return (ids, try run.finish())
    }

    @Test func testServeRefusesAMissingCacheAndABadPort() throws {
        let folder = try TempFolder()
        let missing = try CLIRunner.run(["serve", "--db", folder.file("none.sqlite"), "--port", "0"])
        #expect(missing.status == 1, "\(missing.stderr)")
        #expect(missing.stderr.hasPrefix("nearby serve: "), "\(missing.stderr)")
        let bad = try CLIRunner.run(["serve", "--port", "70000"])
        #expect(bad.status == 2, "\(bad.stderr)")
    }
}
