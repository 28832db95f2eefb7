import Foundation
import NearbyTestSupport
import Testing

/// The command line reads numbers with the one strict grammar, accepts a UTF-8 byte order mark at
/// the start of its input, and `serve` always says where it listens.
@Suite struct StrictInputCommandTests {
    @Test func whereReadsDecimalNumbersAndSkipsAByteOrderMark() throws {
        let input = "\u{FEFF}37.5796 126.9770\n37\u{0}abc 126.977\n0x25 126.977\n37.5796 nan\n 37.5796\t126.9770 \n"
        let r = try CLIRunner.run(["where", "--format", "text"], stdin: Data(input.utf8))
        #expect(r.status == 2, "\(r.stderr)")
        #expect(
            r.stderr == """
                nearby where: line 2: lat "37\\u0000abc" is not a number
                nearby where: line 3: lat "0x25" is not a number
                nearby where: line 4: lon "nan" is not a number

                """)
        #expect(r.lines.count == 2)
        #expect(r.lines.allSatisfy { $0.hasPrefix("37.5796 126.977 서울특별시 종로구 세종로") }, "\(r.lines)")
        let hex = try CLIRunner.run(["where", "0x25", "126.977"])
        #expect(hex.status != 0 && hex.stderr.contains("\"0x25\" is not a number"), "\(hex.stderr)")
    }

    @Test func distanceReadsDecimalNumbers() throws {
        let r = try CLIRunner.run(["distance"], stdin: Data("\u{FEFF}37 127 37 127.001\n37 127 0x25 127\n".utf8))
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.lines.count == 1)
        #expect(r.stderr.contains("line 2: lat2 \"0x25\" is not a number"), "\(r.stderr)")
    }

    @Test func serveSaysWhereItListensAtAnyLogLevel() throws {
        let folder = try TempFolder()
        let db = folder.file("places.sqlite")
        let input = try folder.write(
            "places.jsonl", #"{"id":"1","title":"경복궁","lat":37.5796,"lon":126.977,"category":12}"# + "\n")
        #expect(try CLIRunner.run(["import", input, "--db", db]).status == 0)
        for level in ["warning", "error", "info"] {
            let run = try CLIRunner.start(["serve", "--db", db, "--port", "0", "--log-level", level])
            let deadline = Date().addingTimeInterval(60)
            var port: Int?
            while port == nil && Date() < deadline && run.process.isRunning {
                Thread.sleep(forTimeInterval: 0.05)
                port = run.stderrSoFar.firstMatch(of: /\ port=(\d+) .*listening/).flatMap { Int($0.1) }
            }
            let found = try #require(port, "--log-level \(level): \(run.stderrSoFar)")
            #expect(try LoopbackHTTP(port: found).get("/healthz").status == 200)
            kill(run.process.processIdentifier, SIGTERM)
            let result = try run.finish()
            #expect(result.status == 0)
            #expect(
                result.stderr.components(separatedBy: "[NearbyServer] listening").count == 2, "once: \(result.stderr)")
        }
    }
}
