import Foundation
import NearbyTestSupport
import Testing

/// Bounded memory before an input's format is known: a prefix decides the format, a record over
/// `--max-record-bytes` stops the import (and changes nothing), and a non-regular input is never held
/// in memory whole.
@Suite struct ImportLimitsTests {
    static func line(_ id: Int, title: String = "Place") -> String {
        #"{"id":"\#(id)","title":"\#(title)","lat":37.5,"lon":127.0,"category":12}"#
    }

    /// Waits for `run` at most `seconds`; kills it when it is still running then.
    static func finish(_ run: CLIRunner.Run, within seconds: Double) throws -> (CLIResult, inTime: Bool) {
        let deadline = Date().addingTimeInterval(seconds)
        while run.process.isRunning && Date() < deadline { usleep(10_000) }
        let inTime = !run.process.isRunning
        if !inTime { run.process.terminate() }
        return (try run.finish(), inTime)
    }

    /// The peak resident memory of `run` in KiB (VmHWM, read until the process ends) and its result.
    static func peak(_ run: CLIRunner.Run, within seconds: Double) throws -> (CLIResult, peakKiB: Int, inTime: Bool) {
        let pid = run.process.processIdentifier
        let deadline = Date().addingTimeInterval(seconds)
        var peak = 0
        while run.process.isRunning && Date() < deadline {
            if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
            {
                peak = max(peak, kib)
            }
            usleep(5_000)
        }
        let (result, inTime) = try finish(run, within: 0.1)
        return (result, peak, inTime && !run.process.isRunning)
    }

    @Test func devZeroIsRefusedOnItsPrefix() throws {
        let dir = try TempFolder()
        let run = try CLIRunner.start(["import", "--db", dir.file("z.sqlite"), "/dev/zero"])
        let (r, inTime) = try Self.finish(run, within: 20)
        #expect(inTime, "import /dev/zero still running after 20 s")
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("/dev/zero: not a supported format"), "\(r.stderr)")
    }

    @Test func sparseFileIsRefusedWithoutBeingRead() throws {
        let dir = try TempFolder()
        let path = dir.file("sparse.bin")
        let fd = open(path, O_CREAT | O_WRONLY, 0o600)
        #expect(fd >= 0)
        #expect(ftruncate(fd, 256 << 20) == 0)
        close(fd)
        let run = try CLIRunner.start(["import", "--db", dir.file("s.sqlite"), path])
        let (r, peakKiB, inTime) = try Self.peak(run, within: 30)
        #expect(inTime)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("sparse.bin: not a supported format"), "\(r.stderr)")
        // Reading the whole file would make at least 256 MB resident; the prefix is 64 KiB.
        #expect(peakKiB < 150 << 10, "peak RSS \(peakKiB) KiB")
    }

    @Test func recordOverTheLimitStopsTheImportAndChangesNothing() throws {
        let dir = try TempFolder()
        let db = dir.file("r.sqlite")
        let seed = try dir.write("seed.jsonl", Self.line(1) + "\n")
        #expect(try CLIRunner.run(["import", "--db", db, seed]).status == 0)
        let big = try dir.write(
            "big.jsonl", Self.line(2) + "\n" + Self.line(3, title: String(repeating: "a", count: 2 << 20)) + "\n")
        let r = try CLIRunner.run(["import", "--db", db, big])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("big.jsonl:2: record: record larger than 1048576 bytes"), "\(r.stderr)")
        #expect(r.stderr.contains("nothing was imported; the cache is unchanged"), "\(r.stderr)")
        let export = try CLIRunner.run(["export", "--db", db])
        #expect(export.lines.count == 1, "\(export.output)")
    }

    @Test func recordAtTheLimitImports() throws {
        let dir = try TempFolder()
        let record = Self.line(4, title: String(repeating: "b", count: 5000))
        let file = try dir.write("edge.jsonl", Self.line(1) + "\n" + record + "\n")
        let limit = String(record.utf8.count)
        let at = try CLIRunner.run(["import", "--db", dir.file("a.sqlite"), "--max-record-bytes", limit, file])
        #expect(at.status == 0, "\(at.stderr)")
        #expect(at.output.hasPrefix(#"{"inserted":2,"#), "\(at.output)")
        let under = String(record.utf8.count - 1)
        let over = try CLIRunner.run(["import", "--db", dir.file("b.sqlite"), "--max-record-bytes", under, file])
        #expect(over.status == 1)
        #expect(over.stderr.contains("edge.jsonl:2: record: record larger than \(under) bytes"), "\(over.stderr)")
    }

    /// Runs `script` in bash (its pipes are real pipes), for at most `seconds`.
    static func bash(_ script: String, within seconds: Double) throws -> (
        status: Int32, stdout: String, stderr: String, inTime: Bool
    ) {
        let bash = Process()
        bash.executableURL = URL(fileURLWithPath: "/bin/bash")
        bash.arguments = ["-c", script]
        let out = Pipe()
        let err = Pipe()
        bash.standardOutput = out
        bash.standardError = err
        try bash.run()
        let deadline = Date().addingTimeInterval(seconds)
        while bash.isRunning && Date() < deadline { usleep(10_000) }
        let inTime = !bash.isRunning
        if !inTime { bash.terminate() }
        bash.waitUntilExit()
        return (
            bash.terminationStatus, String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), inTime
        )
    }

    @Test func endlessRecordOnAPipeEndsAtTheLimit() throws {
        let dir = try TempFolder()
        let nearby = try CLIRunner.executableURL().path
        let first = Self.line(1)
        let r = try Self.bash(
            "(echo '\(first)'; printf '{\"id\":\"2\",\"title\":\"'; yes aaaaaaaaaaaaaaaa | tr -d '\\n') | '\(nearby)' import --db '\(dir.file("p.sqlite"))' -",
            within: 30)
        #expect(r.inTime, "an endless record on standard input was still being read after 30 s")
        #expect(r.stderr.contains("<stdin>:2: record: record larger than 1048576 bytes"), "\(r.stderr)")
    }

    @Test func largeInputOnAPipeImports() throws {
        let dir = try TempFolder()
        // Past the prefix and several chunks, so the temporary copy is made and mapped.
        let lines = (1...40_000).map { Self.line($0, title: "Place \($0)") }
        let text = lines.joined(separator: "\n") + "\n"
        #expect(text.utf8.count > 2 << 20)
        let file = try dir.write("many.jsonl", text)
        let nearby = try CLIRunner.executableURL().path
        let r = try Self.bash("cat '\(file)' | '\(nearby)' import --db '\(dir.file("pipe.sqlite"))' -", within: 120)
        #expect(r.inTime)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix(#"{"inserted":40000,"#), "\(r.stdout)")
    }
}
