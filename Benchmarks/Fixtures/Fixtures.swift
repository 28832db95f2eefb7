import Foundation
import NearbyCore
import NearbyStore

/// Places and queries for the micro benchmarks, built once per process.
///
/// By default places come from `PlaceGenerator` (the default dataset's generator, seed 2026) and the
/// queries are drawn like the workload's: centres near generated places, radius 500 m to 20 km, limit
/// 0, 30 or 100. With `NEARBY_WORKLOAD_DIR` set to a folder holding `w100k.*.tsv` and `w1m.*.tsv`
/// (from make_dataset.py), those workload files are used instead.
public enum Fixtures {
    public static let sizes = [100_000, 1_000_000]

    public struct Fixture: Sendable {
        public let places: [Place]
        public let queries: [WorkloadQuery]
        public let engine: MemoryEngine
    }

    /// The fixture of one size; built on first use (seconds for 1M places), then shared.
    public static func set(_ size: Int) -> Fixture {
        cache.withLock { sets in
            if let s = sets[size] { return s }
            let s = build(size)
            sets[size] = s
            return s
        }
    }

    private static let cache = LockedDictionary()

    private static func build(_ size: Int) -> Fixture {
        let name = size >= 1_000_000 ? "w\(size / 1_000_000)m" : "w\(size / 1000)k"
        if let dir = ProcessInfo.processInfo.environment["NEARBY_WORKLOAD_DIR"], !dir.isEmpty {
            do {
                let places = try Workload.readPlaces(path: "\(dir)/\(name).places.tsv")
                let queries = try Workload.readQueries(path: "\(dir)/\(name).queries.tsv")
                return Fixture(places: places, queries: queries, engine: MemoryEngine(places: places))
            } catch {
                fatalError("NEARBY_WORKLOAD_DIR: \(error)")
            }
        }
        let towns: [KoreanTown]
        do { towns = try DefaultDataset.towns() } catch { fatalError("\(error)") }
        let places = PlaceGenerator(towns: towns, seed: 2026).places(count: size)
        return Fixture(places: places, queries: generatedQueries(around: places, count: 1000),
                   engine: MemoryEngine(places: places))
    }

    /// Workload-like queries: centres jittered about 1 km around random places.
    public static func generatedQueries(around places: [Place], count: Int) -> [WorkloadQuery] {
        var rng = SplitMix64(seed: 7)
        let radii: [Double] = [500, 500, 500, 1000, 1000, 1000, 1000, 2000, 2000, 2000, 2000, 5000, 5000, 20000]
        return (1...count).map { qid in
            let p = places[Int.random(in: 0..<places.count, using: &rng)]
            return WorkloadQuery(
                qid: qid, lat: p.lat + Double.random(in: -0.01...0.01, using: &rng),
                lon: p.lon + Double.random(in: -0.01...0.01, using: &rng),
                radius: radii.randomElement(using: &rng)!, limit: [0, 30, 100].randomElement(using: &rng)!)
        }
    }

    /// `count` random point pairs within South Korea's box, for per-call distance costs.
    public static func pointPairs(_ count: Int) -> [(lat1: Double, lon1: Double, lat2: Double, lon2: Double)] {
        var rng = SplitMix64(seed: 11)
        return (0..<count).map { _ in
            (Double.random(in: 33.2...38.6, using: &rng), Double.random(in: 125.0...129.6, using: &rng),
             Double.random(in: 33.2...38.6, using: &rng), Double.random(in: 125.0...129.6, using: &rng))
        }
    }
}

/// Fixture sets by size behind a lock (benchmarks may run setup hooks from any thread).
private final class LockedDictionary: @unchecked Sendable {
    private let lock = NSLock()
    private var sets: [Int: Fixtures.Fixture] = [:]
    func withLock<T>(_ body: (inout [Int: Fixtures.Fixture]) -> T) -> T {
        lock.lock(); defer { lock.unlock() }
        return body(&sets)
    }
}
