import Foundation
import NearbyTestSupport
import Testing

/// The package's target graph, as SwiftPM reads the manifest (`swift package dump-package`).
/// PostgreSQL is opt-in: a library user who imports NearbyKit (or anything under it) must not get
/// NearbyPostGIS nor libpq (`CLibPQ`); only NearbyServer and the `nearby` executable link them.
@Suite struct PackageGraphTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Each target's direct dependencies within the package (products of other packages left out).
    static func targetDependencies() throws -> [String: [String]] {
        let scratch = try TempFolder()  // not .build: `swift test` holds its lock while the tests run
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "swift", "package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()  // before the wait: a full pipe would block it
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "swift package dump-package failed")
        let json = try JSONSerialization.jsonObject(with: bytes)
        let targets = try #require((json as? [String: Any])?["targets"] as? [[String: Any]])
        var graph: [String: [String]] = [:]
        for target in targets {
            let name = try #require(target["name"] as? String)
            let dependencies = target["dependencies"] as? [[String: Any]] ?? []
            graph[name] = dependencies.compactMap { d in
                ((d["byName"] ?? d["target"]) as? [Any])?.first as? String
            }
        }
        return graph
    }

    /// `target` and every target it depends on, directly or not.
    static func closure(_ target: String, in graph: [String: [String]]) -> Set<String> {
        var seen: Set<String> = []
        var stack = [target]
        while let t = stack.popLast() {
            if seen.insert(t).inserted { stack += graph[t] ?? [] }
        }
        return seen
    }

    @Test func postgreSQLIsOptIn() throws {
        let graph = try Self.targetDependencies()
        #expect(graph["NearbyPostGIS"]?.contains("CLibPQ") == true, "the manifest was not read as expected: \(graph)")
        for library in ["NearbyCore", "NearbyStore", "NearbyRegions", "NearbyKit", "NearbyBench", "NearbyTestSupport"] {
            let reached = Self.closure(library, in: graph)
            #expect(reached.contains(library) && graph[library] != nil, "\(library) is not a target")
            #expect(
                reached.isDisjoint(with: ["NearbyPostGIS", "CLibPQ"]),
                "\(library) reaches \(reached.intersection(["NearbyPostGIS", "CLibPQ"]).sorted())")
        }
        #expect(Self.closure("nearby", in: graph).isSuperset(of: ["NearbyPostGIS", "CLibPQ"]))
    }

    /// The HTTP client is the sync's alone: the libraries below it do not link AsyncHTTPClient. The server
    /// and the sync do not know each other: NearbyServer owns what a background sync and an upstream
    /// fallback are (`BackgroundSync`, `UpstreamFallback`), and the `nearby` executable, which links
    /// both, fills them in with NearbySync (`nearby serve --sync`, `--fallback`).
    @Test func syncIsAboveKit() throws {
        let graph = try Self.targetDependencies()
        #expect(graph["NearbySync"]?.contains("NearbyKit") == true, "\(graph)")
        for library in ["NearbyCore", "NearbyStore", "NearbyRegions", "NearbyKit", "NearbyServer", "NearbyReplay"] {
            #expect(!Self.closure(library, in: graph).contains("NearbySync"), "\(library) reaches NearbySync")
        }
        #expect(!Self.closure("NearbySync", in: graph).contains("NearbyServer"), "NearbySync reaches NearbyServer")
        #expect(Self.closure("nearby", in: graph).isSuperset(of: ["NearbySync", "NearbyReplay", "NearbyServer"]))
    }

    @Test func coreDependsOnNoOtherNearbyTarget() throws {
        let reached = Self.closure("NearbyCore", in: try Self.targetDependencies())
        #expect(reached.filter { $0.hasPrefix("Nearby") } == ["NearbyCore"])
    }
}
