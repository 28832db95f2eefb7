import Foundation
import NearbyTestSupport
import Testing

/// The index snapshot through the real binary: written by imports, used by default, rebuilt after a
/// writer is killed mid-snapshot, bypassed in a folder that cannot be written, and consistent while
/// an import runs beside the queries.
@Suite(.serialized) struct SnapshotCommandTests {
    /// `count` places around (34…39 N, 125…130 E), ids `s0`…, in a TSV.
    func placesTSV(_ dir: TempFolder, _ name: String, count: Int, seed: Int) throws -> String {
        var text = "id\tlat\tlon\tcategory\ttitle\tmodified\n"
        for i in 0..<count {
            let lat = 34.0 + Double((i * 7919 + seed) % 5003) * 0.001
            let lon = 125.0 + Double((i * 104_729 + seed) % 5009) * 0.001
            text += "\(name)\(i)\t\(lat)\t\(lon)\t\([12, 14, 39][i % 3])\t장소 \(i % 97)\t20240101000000\n"
        }
        return try dir.write(name + ".tsv", text)
    }

    static let queries: [[String]] = [
        ["--lat", "36.5", "--lon", "127.5", "--radius", "20000", "--limit", "20"],
        [
            "--lat", "36.5", "--lon", "127.5", "--radius", "60000", "--category", "39", "--sort", "title", "--limit",
            "30",
        ],
        ["--lat", "35", "--lon", "126", "--knn", "15", "--distance", "geodesic"],
        [
            "--bbox", "125.5,34.5,127,36", "--keyword", "장소 1", "--sort", "-modified,title", "--limit", "10", "--page",
            "2",
        ],
    ]

    func query(_ db: String, _ args: [String], engine: String? = nil) throws -> CLIResult {
        try CLIRunner.run(["query", "--db", db] + args + (engine.map { ["--engine", $0] } ?? []))
    }

    @Test func importWritesTheSnapshotAndEveryEngineAgrees() throws {
        let dir = try TempFolder()
        let db = dir.file("c.sqlite")
        let imported = try CLIRunner.run(["import", "--db", db, placesTSV(dir, "a", count: 3000, seed: 1)])
        #expect(imported.status == 0 && imported.stderr.isEmpty, "\(imported.stderr)")
        #expect(FileManager.default.fileExists(atPath: db + ".nearby-index"))
        for args in Self.queries {
            let snapshot = try query(db, args)
            #expect(snapshot.status == 0 && snapshot.stderr.isEmpty, "\(snapshot.stderr)")
            #expect(!snapshot.lines.isEmpty)
            for engine in ["memory", "sqlite"] {
                #expect(try query(db, args, engine: engine).stdout == snapshot.stdout, "\(args) --engine \(engine)")
            }
        }
    }

    @Test func aWriterKilledMidSnapshotLeavesNoWrongAnswer() throws {
        let dir = try TempFolder()
        let db = dir.file("c.sqlite")
        _ = try CLIRunner.run(["import", "--db", db, placesTSV(dir, "a", count: 500, seed: 2)])
        let run = try CLIRunner.start(["import", "--db", db, placesTSV(dir, "b", count: 60_000, seed: 3)])
        let temporary = db + ".nearby-index.tmp-\(run.process.processIdentifier)"
        let deadline = Date().addingTimeInterval(120)
        while run.process.isRunning && !FileManager.default.fileExists(atPath: temporary) && Date() < deadline {
            usleep(1000)
        }
        kill(run.process.processIdentifier, SIGKILL)
        let killed = try run.finish()
        try #require(killed.killedBySignal, "the import ended before it could be killed mid-snapshot")
        #expect(FileManager.default.fileExists(atPath: temporary))

        // The cache committed (generation 2); the snapshot on disk is generation 1's.
        let args = Self.queries[0]
        let answer = try query(db, args)
        #expect(
            answer.stderr.contains("made at cache generation 1, the cache is at 2; rebuilding it"), "\(answer.stderr)")
        #expect(answer.stdout == (try query(db, args, engine: "sqlite")).stdout)
        #expect(!FileManager.default.fileExists(atPath: temporary), "the dead writer's temporary file is cleaned up")
        #expect(try query(db, args).stderr.isEmpty)
    }

    @Test func aFolderThatCannotBeWrittenAnswersFromMemory() throws {
        let dir = try TempFolder()
        let db = dir.file("c.sqlite")
        _ = try CLIRunner.run(["import", "--db", db, placesTSV(dir, "a", count: 800, seed: 4)])
        try FileManager.default.removeItem(atPath: db + ".nearby-index")
        let expected = try query(db, Self.queries[1], engine: "sqlite").stdout
        let result: CLIResult
        if geteuid() == 0 {
            // Root writes anywhere: run as nobody, in a folder (mode 0755) that root owns.
            let binary = dir.file("nearby")
            try FileManager.default.copyItem(at: try CLIRunner.executableURL(), to: URL(fileURLWithPath: binary))
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.path)
            result = try Self.runAsNobody([binary, "query", "--db", db] + Self.queries[1])
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: dir.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.path) }
            result = try query(db, Self.queries[1])
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("cannot use the index snapshot \(db).nearby-index"), "\(result.stderr)")
        #expect(result.stderr.contains("answering from memory"), "\(result.stderr)")
        #expect(result.stdout == expected)
        #expect(!FileManager.default.fileExists(atPath: db + ".nearby-index"))
    }

    static func runAsNobody(_ command: [String]) throws -> CLIResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups"] + command
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIResult(
            status: process.terminationStatus, killedBySignal: false, stdout: stdout,
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test func queriesDuringAnImportSeeTheCacheBeforeOrAfterIt() throws {
        let dir = try TempFolder()
        let db = dir.file("c.sqlite")
        _ = try CLIRunner.run(["import", "--db", db, placesTSV(dir, "a", count: 2000, seed: 5)])
        let args = Self.queries[1]
        let before = try query(db, args).stdout
        let more = try placesTSV(dir, "b", count: 40_000, seed: 6)
        let after: Data = try {  // the answer once `more` is in, computed on a copy
            let copy = dir.file("copy.sqlite")
            try FileManager.default.copyItem(atPath: db, toPath: copy)
            _ = try CLIRunner.run(["import", "--db", copy, more])
            return try query(copy, args, engine: "sqlite").stdout
        }()
        #expect(before != after)
        let run = try CLIRunner.start(["import", "--db", db, more])
        var seen: Set<Data> = []
        var count = 0
        while run.process.isRunning || count < 3 {
            let answer = try query(db, args)
            #expect(answer.status == 0, "\(answer.stderr)")
            #expect(answer.stdout == before || answer.stdout == after, "an answer of neither state")
            seen.insert(answer.stdout)
            count += 1
        }
        #expect(try run.finish().status == 0)
        #expect(try query(db, args).stdout == after)
        #expect(seen.contains(after))
    }
}
