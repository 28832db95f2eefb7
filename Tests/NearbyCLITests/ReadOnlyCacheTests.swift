import Foundation
import NearbyTestSupport
import Testing

/// Hardening: a cache in a folder the reader cannot write (no `-shm` can be made) is still read.
///
/// Root may write anywhere, so as root the reading commands run as `nobody` (setpriv); otherwise the
/// folder is simply made read-only.
@Suite struct ReadOnlyCacheTests {
    func asReader(_ arguments: [String]) throws -> CLIResult {
        guard getuid() == 0 else { return try CLIRunner.run(arguments) }
        let nearby = try CLIRunner.executableURL().path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", nearby] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIResult(
            status: process.terminationStatus, killedBySignal: process.terminationReason == .uncaughtSignal,
            stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test func readCommandsWorkInAReadOnlyFolder() throws {
        let dir = try TempFolder()
        let folder = dir.file("ro")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let db = folder + "/c.sqlite"
        let tsv = try dir.write("p.tsv", "id\ttitle\tlat\tlon\tcategory\n1\tA\t37.5\t127\t12\n2\tB\t37.6\t127.1\t14\n")
        #expect(try CLIRunner.run(["import", "--db", db, tsv]).status == 0)
        chmod(dir.path, 0o755)
        chmod(db, 0o644)
        chmod(folder, 0o555)
        defer { chmod(folder, 0o755) }
        #expect(!FileManager.default.fileExists(atPath: db + "-shm"))

        let export = try asReader(["export", "--db", db])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.lines.count == 2)
        let query = try asReader([
            "query", "--db", db, "--engine", "sqlite", "--lat", "37.5", "--lon", "127", "--radius", "20000",
        ])
        #expect(query.status == 0, "\(query.stderr)")
        #expect(query.lines.count == 2)
        let memory = try asReader(["query", "--db", db, "--lat", "37.5", "--lon", "127", "--radius", "20000"])
        #expect(memory.output == query.output)
        // Writing there is refused plainly, and the cache is unchanged.
        let write = try asReader(["import", "--db", db, tsv])
        #expect(write.status == 1)
        #expect(write.stderr.contains("read-only"), "\(write.stderr)")
    }
}
