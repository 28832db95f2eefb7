import Foundation
import NearbyTestSupport
import Testing

/// Hardening: inputs that are not regular files are read like `-`, or refused plainly with
/// one exit code per class (2: the path names nothing readable; 1: reading or importing failed).
@Suite struct InputKindsTests {
    static let tsv = "id\ttitle\tlat\tlon\tcategory\n1\tA\t37.5\t127\t12\n2\tB\t37.6\t127.1\t14\n"

    @Test func processSubstitutionAndFIFOAreRead() throws {
        let dir = try TempFolder()
        let file = try dir.write("p.tsv", Self.tsv)
        let nearby = try CLIRunner.executableURL().path
        // bash's <(...) hands nearby a /dev/fd/N pipe.
        let bash = Process()
        bash.executableURL = URL(fileURLWithPath: "/bin/bash")
        bash.arguments = ["-c", "'\(nearby)' import --db '\(dir.file("a.sqlite"))' <(cat '\(file)')"]
        let out = Pipe()
        let err = Pipe()
        bash.standardOutput = out
        bash.standardError = err
        try bash.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        bash.waitUntilExit()
        #expect(bash.terminationStatus == 0, "\(stderr)")
        #expect(stdout.hasPrefix(#"{"inserted":2,"#), "\(stdout)")

        let fifo = dir.file("f.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            let h = FileHandle(forWritingAtPath: fifo)
            h?.write(Data(Self.tsv.utf8))
            try? h?.close()
        }
        writer.start()
        let r = try CLIRunner.run(["import", "--db", dir.file("b.sqlite"), fifo])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.output.hasPrefix(#"{"inserted":2,"#), "\(r.output)")
    }

    @Test func devNullIsAnEmptyInput() throws {
        let dir = try TempFolder()
        let r = try CLIRunner.run(["import", "--db", dir.file("c.sqlite"), "/dev/null"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.output.hasPrefix(#"{"inserted":0,"#))
    }

    @Test func pathsThatNameNothingReadableAreUsageErrors() throws {
        let dir = try TempFolder()
        let folder = try CLIRunner.run(["import", "--db", dir.file("d.sqlite"), dir.path])
        #expect(folder.status == 2)
        #expect(folder.stderr.contains("\(dir.path): is a folder, not a file"), "\(folder.stderr)")
        #expect(!folder.stderr.contains("NSCocoaErrorDomain"))
        let missing = try CLIRunner.run(["import", "--db", dir.file("d.sqlite"), dir.file("nope.tsv")])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("nope.tsv: no such file"), "\(missing.stderr)")
    }
}
