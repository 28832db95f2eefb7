import Foundation

/// A throwaway PostgreSQL cluster for the tests that need a real database (no mocks): `initdb` into a
/// temporary folder, `postgres` on a free loopback port, stopped by its PID (fast shutdown) and the
/// folder removed when the test process exits. One cluster per test process, started on first use;
/// each test makes its own database with `makeDatabase()`.
///
/// PostgreSQL refuses to run as root, and CI runs as root: then initdb and postgres run as the
/// `postgres` user (Debian's packages create it) through `runuser`, in a folder that user owns.
/// Binaries: $NEARBY_PG_BIN, else `pg_config --bindir`, else /usr/lib/postgresql/15/bin
/// (scripts/install-deps.sh installs PostgreSQL 15 and PostGIS 3). If the cluster cannot start, every
/// test that asks for it fails with the reason: nothing is skipped.
public final class PostgresCluster: @unchecked Sendable {
    public let port: Int
    public let folder: String
    private let serverPID: pid_t

    nonisolated(unsafe) private static var started: Result<PostgresCluster, Error>?
    private static let lock = NSLock()

    /// The process's cluster, started on first call.
    public static func shared() throws -> PostgresCluster {
        lock.lock()
        defer { lock.unlock() }
        if started == nil {
            started = Result { try PostgresCluster() }
            if case .success = started { atexit { PostgresCluster.stopShared() } }
        }
        return try started!.get()
    }

    private static func stopShared() {
        if case .success(let c)? = started { c.stop() }
    }

    /// The URL of database `name` as the superuser `postgres` (trust authentication on loopback).
    public func url(database name: String = "postgres") -> String {
        "postgresql://postgres@127.0.0.1:\(port)/\(name)"
    }

    /// A new empty database, for one test; returns its URL.
    public func makeDatabase() throws -> String {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try psql("CREATE DATABASE \(name)")
        return url(database: name)
    }

    /// Runs SQL through psql on the maintenance database (or `url`); throws with psql's stderr.
    @discardableResult
    public func psql(_ sql: String, url: String? = nil) throws -> String {
        try Self.run(
            Self.binary("psql"), ["-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", url ?? self.url(), "-c", sql])
    }

    private init() throws {
        let isRoot = getuid() == 0
        folder = "/tmp/nearby-pg-" + UUID().uuidString
        let data = folder + "/data"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if isRoot {
            guard getpwnam("postgres") != nil else {
                throw ClusterError(
                    "running as root, and there is no postgres user to run PostgreSQL as (scripts/install-deps.sh installs PostgreSQL)"
                )
            }
            try Self.run("/bin/chown", ["postgres:", folder])
        }
        func asServerUser(_ tool: String, _ arguments: [String]) throws -> (String, [String]) {
            let path = try Self.binary(tool)
            return isRoot ? ("/sbin/runuser", ["-u", "postgres", "--", path] + arguments) : (path, arguments)
        }
        let initdb = try asServerUser(
            "initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"])
        try Self.run(initdb.0, initdb.1)
        port = try Self.freePort()
        let server = try asServerUser(
            "postgres",
            [
                "-D", data, "-p", "\(port)", "-k", folder, "-c", "listen_addresses=127.0.0.1",
                "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off",
            ])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: server.0)
        process.arguments = server.1
        let logPath = folder + "/server.log"
        FileManager.default.createFile(atPath: logPath, contents: nil)
        guard let log = FileHandle(forWritingAtPath: logPath) else { throw ClusterError("cannot write \(logPath)") }
        process.standardOutput = log
        process.standardError = log
        try process.run()
        // Ready when it answers; its PID (not runuser's) is the first line of postmaster.pid.
        let ready = try Self.binary("pg_isready")
        var pid: pid_t?
        for _ in 0..<300 {
            if let text = try? String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8),
                let first = text.split(separator: "\n").first, let p = pid_t(first),
                (try? Self.run(ready, ["-q", "-h", "127.0.0.1", "-p", "\(port)"])) != nil
            {
                pid = p
                break
            }
            if !process.isRunning { break }
            usleep(50_000)
        }
        guard let pid else {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            if process.isRunning { process.terminate() }
            throw ClusterError("PostgreSQL did not start on port \(port): \(log.suffix(600))")
        }
        serverPID = pid
    }

    /// Fast shutdown (SIGINT) by PID, waits for the server to go, removes the folder.
    public func stop() {
        kill(serverPID, SIGINT)
        for _ in 0..<200 where kill(serverPID, 0) == 0 { usleep(50_000) }
        try? FileManager.default.removeItem(atPath: folder)
    }

    static func binary(_ name: String) throws -> String {
        var folders: [String] = []
        if let env = ProcessInfo.processInfo.environment["NEARBY_PG_BIN"] { folders.append(env) }
        if let bin = try? run("/usr/bin/env", ["pg_config", "--bindir"]) {
            folders.append(bin.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        folders.append("/usr/lib/postgresql/15/bin")
        for f in folders where FileManager.default.isExecutableFile(atPath: f + "/" + name) { return f + "/" + name }
        throw ClusterError(
            "no \(name) in \(folders.joined(separator: ", ")); run scripts/install-deps.sh (PostgreSQL 15 + PostGIS 3)")
    }

    /// Runs a program to the end; its stdout, or an error with its stderr.
    @discardableResult
    static func run(_ path: String, _ arguments: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw ClusterError(
                "\(path) \(arguments.joined(separator: " ")): exit \(p.terminationStatus): \(String(decoding: errors, as: UTF8.self))"
            )
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A loopback port nothing listens on now (bound to port 0, read, closed).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClusterError("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw ClusterError("cannot bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

public struct ClusterError: Error, CustomStringConvertible {
    public var description: String
    init(_ d: String) { description = d }
}
