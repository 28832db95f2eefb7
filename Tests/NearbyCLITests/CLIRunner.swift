import Foundation

/// What one run of the `nearby` binary produced.
struct CLIResult {
    /// The exit status, or the signal number when `killedBySignal`.
    var status: Int32
    var killedBySignal: Bool
    var stdout: Data
    var stderr: String

    var output: String { String(decoding: stdout, as: UTF8.self) }
    /// stdout split into lines, without the final empty one.
    var lines: [String] { output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
}

/// Runs the built `nearby` binary as a real subprocess, with arguments, stdin and environment, and
/// collects its exit status, stdout and stderr (through temporary files, so large outputs cannot
/// deadlock a pipe).
///
/// The binary is found beside the test bundle in the build products folder (`swift test` builds it);
/// `NEARBY_BIN` overrides. Tests should pass `--db` (or `NEARBY_DB` in `environment`) so that no run
/// touches the user's default cache.
enum CLIRunner {
    /// A started run: `process` can be signalled; `stdin` is the write end when `openStdin` was set.
    final class Run {
        let process: Process
        let stdin: FileHandle?
        private let stdoutURL: URL, stderrURL: URL

        fileprivate init(process: Process, stdin: FileHandle?, stdoutURL: URL, stderrURL: URL) {
            self.process = process
            self.stdin = stdin
            self.stdoutURL = stdoutURL
            self.stderrURL = stderrURL
        }

        /// What the process has written to stderr so far.
        var stderrSoFar: String { String(decoding: (try? Data(contentsOf: stderrURL)) ?? Data(), as: UTF8.self) }

        /// Waits for the process to end and collects its output.
        func finish() throws -> CLIResult {
            try? stdin?.close()
            process.waitUntilExit()
            defer {
                try? FileManager.default.removeItem(at: stdoutURL)
                try? FileManager.default.removeItem(at: stderrURL)
            }
            return CLIResult(
                status: process.terminationStatus, killedBySignal: process.terminationReason == .uncaughtSignal,
                stdout: try Data(contentsOf: stdoutURL),
                stderr: String(decoding: try Data(contentsOf: stderrURL), as: UTF8.self))
        }
    }

    static func executableURL() throws -> URL {
        let env = ProcessInfo.processInfo.environment
        if let path = env["NEARBY_BIN"], !path.isEmpty { return URL(fileURLWithPath: path) }
        var folders = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        folders += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for folder in folders {
            let candidate = folder.appendingPathComponent("nearby")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        struct NotBuilt: Error, CustomStringConvertible {
            var folders: [URL]
            var description: String { "no nearby binary in " + folders.map(\.path).joined(separator: ", ") }
        }
        throw NotBuilt(folders: folders)
    }

    /// Starts `nearby arguments...`. stdin is `stdin` when given, a pipe left open for the caller to
    /// write and close when `openStdin`, else empty. `environment` is added to this process's environment.
    static func start(
        _ arguments: [String], stdin: Data? = nil, openStdin: Bool = false, environment: [String: String] = [:]
    ) throws -> Run {
        let process = Process()
        process.executableURL = try executableURL()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let temp = FileManager.default.temporaryDirectory
        let stdoutURL = temp.appendingPathComponent("nearby-cli-\(UUID().uuidString).out")
        let stderrURL = temp.appendingPathComponent("nearby-cli-\(UUID().uuidString).err")
        FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        var input: FileHandle?
        if openStdin {
            let pipe = Pipe()
            process.standardInput = pipe
            input = pipe.fileHandleForWriting
        } else {
            let stdinURL = temp.appendingPathComponent("nearby-cli-\(UUID().uuidString).in")
            FileManager.default.createFile(atPath: stdinURL.path, contents: stdin ?? Data())
            process.standardInput = try FileHandle(forReadingFrom: stdinURL)
            try FileManager.default.removeItem(at: stdinURL)  // the open handle keeps the data readable
        }
        try process.run()
        return Run(process: process, stdin: input, stdoutURL: stdoutURL, stderrURL: stderrURL)
    }

    /// Runs `nearby arguments...` to the end.
    static func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) throws -> CLIResult
    {
        try start(arguments, stdin: stdin, environment: environment).finish()
    }
}
