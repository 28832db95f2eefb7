import Foundation
import NearbyStore
import NearbyTestSupport
import Testing

/// Real processes against one cache file: a killed import, a second writer, a reader during an import.
///
/// An import whose last input is `-` with stdin left open holds its write transaction (it has written
/// every earlier input) until stdin closes, so these tests control exactly when a process is mid-import.
@Suite(.serialized) struct ImportAtomicityTests {
    /// A TSV of `count` generated places: big enough that its import is real work.
    func bigTSV(_ dir: TempFolder, count: Int) throws -> String {
        var text = "id\tlat\tlon\tcategory\ttitle\tmodified\n"
        for i in 0..<count {
            let lat = 33.0 + Double(i % 997) * 0.005
            let lon = 124.5 + Double(i % 1009) * 0.007
            text += "big\(i)\t\(lat)\t\(lon)\t\([12, 14, 39][i % 3])\t장소 \(i)\t20240101000000\n"
        }
        return try dir.write("big.tsv", text)
    }

    /// Waits until another process holds the cache's write lock (a probe import reports busy).
    func waitForWriter(db: String, dir: TempFolder) throws {
        let probe = try dir.write("probe.jsonl", "")
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let result = try CLIRunner.run(["import", "--db", db, probe])
            if result.status != 0 && result.stderr.contains("busy") { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("the import never took the write lock")
    }

    @Test func killedImportLeavesTheCacheAsItWas() throws {
        let dir = try TempFolder()
        let db = dir.file("c.sqlite")
        _ = try CLIRunner.run(["import", "--db", db, dir.write("base.jsonl", canonicalLines.joined(separator: "\n"))])
        let before = try CLIRunner.run(["export", "--db", db]).stdout

        let run = try CLIRunner.start(["import", "--db", db, bigTSV(dir, count: 30_000), "-"], openStdin: true)
        try waitForWriter(db: db, dir: dir)
        Thread.sleep(forTimeInterval: 1)  // let it write big.tsv's rows into the open transaction
        kill(run.process.processIdentifier, SIGKILL)
        let killed = try run.finish()
        #expect(killed.killedBySignal && killed.status == SIGKILL)

        let cache = try PlaceCache(path: db)
        #expect(try cache.integrityCheck() == "ok")
        #expect(try cache.count() == canonicalLines.count)
        #expect(try CLIRunner.run(["export", "--db", db]).stdout == before)
        // The lock died with the process: the next import works.
        let next = try CLIRunner.run(["import", "--db", db, dir.file("big.tsv")])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try cache.count() == canonicalLines.count + 30_000)
    }

    @Test func secondWriterIsBusyWhileReadersAreServed() throws {
        let dir = try TempFolder()
        let db = dir.file("c.sqlite")
        _ = try CLIRunner.run(["import", "--db", db, dir.write("base.jsonl", canonicalLines.joined(separator: "\n"))])
        let before = try CLIRunner.run(["export", "--db", db]).stdout

        let first = try CLIRunner.start(["import", "--db", db, "-"], openStdin: true)
        try first.stdin?.write(contentsOf: Data(#"{"id":"x9","title":"late","lat":1.5,"lon":2.5,"category":12}"#.utf8))
        try waitForWriter(db: db, dir: dir)

        let second = try CLIRunner.run(["import", "--db", db, dir.write("more.jsonl", canonicalLines[1])])
        #expect(second.status == 1)
        #expect(second.stderr.contains("\(db): the cache is busy"))
        let reader = try CLIRunner.run(["export", "--db", db])
        #expect(reader.status == 0 && reader.stdout == before)

        let done = try first.finish()
        #expect(done.status == 0, "\(done.stderr)")
        #expect(try counts(done)["inserted"] == 1)
        #expect(try CLIRunner.run(["export", "--db", db]).lines.count == canonicalLines.count + 1)
    }
}
