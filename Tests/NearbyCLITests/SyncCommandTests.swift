import Foundation
import NearbyReplay
import NearbyTestSupport
import Testing

/// `nearby sync` as a process against the replay server: the key never shows, a sync killed anywhere
/// ends as a clean one, the exit codes.
@Suite struct SyncCommandTests {
    static let realData = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("NearbyStoreTests/Fixtures/RealData").path

    static func catalog(_ count: Int) throws -> ReplayCatalog {
        var catalog = ReplayCatalog.generated(count: count)
        try catalog.addPlaces(fromFile: realData + "/bare-array.json")
        try catalog.addBarrierFree(fromFile: realData + "/detailWithTour2.json")
        try catalog.addPet(fromFile: realData + "/detailPetTour2.jsonl")
        return catalog
    }

    static func arguments(_ server: ReplayServer, db: String, pageSize: Int = 10) -> [String] {
        [
            "sync", "tourapi", "--db", db, "--base-url", server.tourBaseURL, "--page-size", String(pageSize),
            "--retry-delay", "0.001", "--retries", "3", "--read-timeout", "2", "--max-requests", "100000",
            "--details", "barrier-free,pet",
        ]
    }

    static func export(_ db: String) throws -> String {
        let result = try CLIRunner.run(["export", "--db", db])
        precondition(result.status == 0, result.stderr)
        return result.output
    }

    @Test func theKeyAppearsNowhere() throws {
        let key =
            "k" + (0..<40).map { _ in String("abcdefghijklmnopqrstuvwxyz0123456789+/=".randomElement()!) }.joined()
        let server = ReplayServer(catalog: try Self.catalog(25), serviceKey: key)
        try server.start()
        // Failures make the sync print retry lines with URLs, and end in a stop that names one.
        server.fail([.status(503, retryAfter: nil), .cutBody, .resultCode("99")])
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        let env = ["TOURAPI_SERVICE_KEY": key]
        let ok = try CLIRunner.run(Self.arguments(server, db: db), environment: env)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stderr.contains("serviceKey=REDACTED"))
        server.fail(Array(repeating: .status(500, retryAfter: nil), count: 5))
        let failed = try CLIRunner.run(Self.arguments(server, db: db), environment: env)
        #expect(failed.status == 1)
        let keyFile = try folder.write("key", key + "\n")
        let fromFile = try CLIRunner.run(
            Self.arguments(server, db: folder.file("d.sqlite")) + ["--service-key-file", keyFile])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        var everything = ok.stdout + Data(ok.stderr.utf8) + failed.stdout + Data(failed.stderr.utf8)
        everything += fromFile.stdout + Data(fromFile.stderr.utf8)
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file != "key" {
            everything += try Data(contentsOf: URL(fileURLWithPath: folder.file(file)))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).contains("c.sqlite.nearby-index"))
        let encoded = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        for form in [key, encoded, String(key.dropFirst(10).prefix(20))] {
            #expect(everything.range(of: Data(form.utf8)) == nil, "the key shows as \(form)")
        }
    }

    @Test func aSyncKilledAnywhereEndsAsACleanOne() throws {
        let server = ReplayServer(catalog: try Self.catalog(90), serviceKey: nil)
        try server.start()
        let folder = try TempFolder()
        let env = ["TOURAPI_SERVICE_KEY": "key"]
        let clean = folder.file("clean.sqlite")
        let done = try CLIRunner.run(Self.arguments(server, db: clean, pageSize: 7), environment: env)
        #expect(done.status == 0, "\(done.stderr)")
        let requests = server.requests.count
        let expected = try Self.export(clean)
        let all = expected.split(separator: "\n").count
        var midway = 0
        for trial in 0..<3 {
            // Killed once its request count reaches a random point of a whole sync's (list pages,
            // details, commits in between), a few milliseconds later still.
            let db = folder.file("killed-\(trial).sqlite")
            server.resetRequests()
            let target = Int.random(in: 2...(requests - 2))
            let run = try CLIRunner.start(Self.arguments(server, db: db, pageSize: 7), environment: env)
            while server.requests.count < target && run.process.isRunning { usleep(500) }
            usleep(UInt32.random(in: 0...3000))
            kill(run.process.processIdentifier, SIGKILL)
            _ = try run.finish()
            let kept = try Self.export(db).split(separator: "\n").count
            if kept > 0 && kept < all { midway += 1 }
            let rest = try CLIRunner.run(Self.arguments(server, db: db, pageSize: 7), environment: env)
            #expect(rest.status == 0, "\(rest.stderr)")
            #expect(try Self.export(db) == expected, "trial \(trial), killed after \(target) requests")
        }
        #expect(midway > 0, "no kill landed between the first and the last page")
    }

    @Test func aStoppedSyncExits1AndSaysRunningAgainContinues() throws {
        let server = ReplayServer(catalog: try Self.catalog(30), serviceKey: nil)
        try server.start()
        server.quota = 2
        let folder = try TempFolder()
        let db = folder.file("c.sqlite")
        let env = ["TOURAPI_SERVICE_KEY": "key"]
        let stopped = try CLIRunner.run(Self.arguments(server, db: db), environment: env)
        #expect(stopped.status == 1)
        #expect(stopped.stderr.contains("resultCode 22") && stopped.stderr.contains("continues"))
        #expect(stopped.output.hasPrefix(#"{"complete":false,"#))
        server.quota = nil
        let rest = try CLIRunner.run(Self.arguments(server, db: db), environment: env)
        #expect(rest.status == 0)
        #expect(rest.output.hasPrefix(#"{"complete":true,"#))
        let noKey = try CLIRunner.run(["sync", "tourapi", "--db", db], environment: ["TOURAPI_SERVICE_KEY": ""])
        #expect(noKey.status == 2 && noKey.stderr.contains("TOURAPI_SERVICE_KEY"))
    }
}
