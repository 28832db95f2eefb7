import Foundation
import NearbyKit

/// `nearby bench where`: region lookups per second (inside Korea and along boundaries), index load
/// time (wall and process CPU) and memory, as one JSON document. Every lookup's answer is summed
/// into a checksum so none can be skipped.
public enum WhereBenchmark {
    public static func document(points: Int, repetitions: Int, loads: Int, jitter: Double, seed: UInt64) throws
        -> String
    {
        let path = try RegionData.path()
        let before = ResidentMemory.now()
        var loadMillis: [Double] = []
        var loadCPUMillis: [Double] = []
        var index = try RegionIndex(contentsOf: path)
        func cpuNanoseconds() -> Double {
            var t = timespec()
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
            return Double(t.tv_sec) * 1e9 + Double(t.tv_nsec)
        }
        for _ in 0..<loads {
            let start = DispatchTime.now().uptimeNanoseconds
            let cpu = cpuNanoseconds()
            index = try RegionIndex(contentsOf: path)
            loadMillis.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            loadCPUMillis.append((cpuNanoseconds() - cpu) / 1e6)
        }
        let after = ResidentMemory.now()

        var rng = SplitMix64(seed: seed)
        let box = index.bounds
        var inside: [(lat: Double, lon: Double)] = []
        inside.reserveCapacity(points)
        while inside.count < points {
            let lat = Double.random(in: box.minLat...box.maxLat, using: &rng)
            let lon = Double.random(in: box.minLon...box.maxLon, using: &rng)
            if index.deepestRegion(lat: lat, lon: lon) != nil { inside.append((lat, lon)) }
        }
        let boundary = index.boundaryPoints(count: points, jitter: jitter, seed: seed &+ 1)

        func threadCPUSeconds() -> Double {
            var t = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
            return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
        }
        typealias Measured = (perSecond: [Double], perCPUSecond: [Double], checksum: Int, found: Int, edges: Double)
        func measure(_ set: [(lat: Double, lon: Double)]) -> Measured {
            var rates: [Double] = []
            var cpuRates: [Double] = []
            var checksum = 0
            var found = 0
            for _ in 0..<repetitions {
                checksum = 0
                found = 0
                let start = DispatchTime.now().uptimeNanoseconds
                let cpu = threadCPUSeconds()
                for p in set {
                    if let r = index.deepestRegion(lat: p.lat, lon: p.lon) {
                        checksum &+= r
                        found += 1
                    }
                }
                rates.append(Double(set.count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
                cpuRates.append(Double(set.count) / (threadCPUSeconds() - cpu))
            }
            let edges = set.prefix(100_000).reduce(0) { $0 + index.edgesTested(lat: $1.lat, lon: $1.lon) }
            return (rates, cpuRates, checksum, found, Double(edges) / Double(min(set.count, 100_000)))
        }
        let a = measure(inside)
        let b = measure(boundary)

        let median = LatencyStats.median
        func set(_ name: String, _ m: Measured) -> String {
            "\"\(name)\":{\"points\":\(points),\"found\":\(m.found),\"lookupsPerSecond\":\(median(m.perSecond).rounded()),"
                + "\"lookupsPerCPUSecond\":\(median(m.perCPUSecond).rounded()),"
                + "\"runs\":[\(m.perSecond.map { "\($0.rounded())" }.joined(separator: ","))],"
                + "\"meanEdgesInCell\":\((m.edges * 10).rounded() / 10),\"checksum\":\(m.checksum)}"
        }
        var doc = "{\"benchmark\":\"where\",\"file\":\(jsonString(path)),\"regions\":\(index.regions.count),"
        func millis(_ name: String, _ values: [Double]) -> String {
            "\"\(name)\":{\"median\":\((median(values) * 10).rounded() / 10),\"runs\":[\(values.map { "\(($0 * 10).rounded() / 10)" }.joined(separator: ","))]},"
        }
        doc += millis("loadMillis", loadMillis) + millis("loadCPUMillis", loadCPUMillis)
        if let r0 = before.rssKiB, let r1 = after.rssKiB { doc += "\"indexMemoryKiB\":\(r1 - r0)," }
        doc += set("inside", a) + "," + set("boundary", b) + ",\"jitterMetres\":\(jitter),\"seed\":\(seed)"
        return doc + "}"
    }

    private static func jsonString(_ s: String) -> String {
        var out: [UInt8] = []
        JSONWriter.appendString(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
