import Foundation
import NearbyKit
import Testing

@testable import NearbyServer

/// The server's hierarchies in memory: shared by key, dropped at a new generation, and bounded by
/// their points, the least recently asked dropped first.
@Suite struct KeptHierarchiesTests {
    /// A hierarchy of `n` points (in a line, no table behind them).
    static func clusters(_ n: Int) -> PlaceClusters {
        let places = (0..<n).map { i in
            Place(id: String(i), title: "p\(i)", lat: 37 + Double(i) * 0.001, lon: 127, category: 12)
        }
        return PlaceClusters(rows: PlaceRows(places: places))
    }

    /// Builds counted per key.
    final class Builds: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]
        func built(_ key: String) { lock.withLock { counts[key, default: 0] += 1 } }
        subscript(_ key: String) -> Int { lock.withLock { counts[key] ?? 0 } }
    }

    @Test func theLeastRecentlyAskedGoFirstPastTheBound() async throws {
        let kept = KeptHierarchies(pointLimit: 100)
        let builds = Builds()
        func ask(_ key: String, _ n: Int, generation: Int64 = 1) async throws -> PlaceClusters {
            try await kept.hierarchy(generation: generation, key: key) {
                builds.built(key)
                return Self.clusters(n)
            }
        }
        _ = try await ask("a", 40)
        _ = try await ask("b", 40)
        #expect(kept.kept.keys == ["a", "b"] && kept.kept.points == 80)
        _ = try await ask("a", 40)  // kept: not built again, and now the most recently asked
        #expect(builds["a"] == 1)
        _ = try await ask("c", 40)  // 120 points: "b" goes
        #expect(kept.kept.keys == ["a", "c"] && kept.kept.points == 80)
        _ = try await ask("b", 40)
        #expect(builds["b"] == 2)
        #expect(kept.kept.keys == ["c", "b"])
        // One larger than the bound alone is answered, not kept.
        let big = try await ask("big", 150)
        #expect(big.count == 150)
        #expect(kept.kept.points <= 100 && !kept.kept.keys.contains("big"))
        // A new generation drops them all.
        _ = try await ask("c", 10, generation: 2)
        #expect(kept.kept.keys == ["c"] && kept.kept.points == 10)
    }

    @Test func requestsWaitingForOneBuildShareIt() async throws {
        let kept = KeptHierarchies(pointLimit: 1_000)
        let builds = Builds()
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await kept.hierarchy(generation: 1, key: "k") {
                        builds.built("k")
                        try await Task.sleep(for: .milliseconds(50))
                        return Self.clusters(30)
                    }.count
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 30, count: 8))
        #expect(builds["k"] == 1)
        #expect(kept.kept.points == 30)
    }
}
