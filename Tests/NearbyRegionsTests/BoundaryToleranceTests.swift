import Foundation
import NearbyCore
import Testing

@testable import NearbyRegions

/// The simplification tolerance (5 m) against the unsimplified polygons: Fixtures/boundary_samples.tsv
/// (written by scripts/fetch_regions.py) holds 3,000 points 5.5-40 m from the nearest original town or
/// village boundary with the regions the original polygons put them in. Beyond the tolerance, the
/// simplified boundaries must agree on every one.
@Suite struct BoundaryToleranceTests {
    @Test func pointsBeyondTheToleranceKeepTheirRegion() throws {
        let index = try SharedIndex.get()
        let text = try String(contentsOfFile: SharedIndex.fixture("boundary_samples.tsv"), encoding: .utf8)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines.first == "lat\tlon\temd\tri\tdistance_m")
        var checked = 0
        var nearestMiss = Double.infinity
        var misses: [String] = []
        for line in lines.dropFirst() {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let lat = try #require(Double(f[0]))
            let lon = try #require(Double(f[1]))
            let distance = try #require(Double(f[4]))
            #expect(distance > 5)
            let expected = f[3].isEmpty ? f[2] : f[3]
            let location = index.locate(lat: lat, lon: lon)
            let actual: Region?
            if expected.isEmpty {
                actual = location.path?.deepest
                if actual != nil { misses.append("\(line) → \(actual!)") }
            } else {
                let want = try SharedIndex.region(expected)
                actual = location.path?.deepest
                if actual != want {
                    misses.append("\(line) → \(actual?.description ?? "unknown")")
                    nearestMiss = min(nearestMiss, distance)
                }
            }
            checked += 1
        }
        #expect(checked == 3000)
        #expect(misses.isEmpty, "\(misses.count) misses (closest \(nearestMiss) m): \(misses.prefix(5))")
    }
}
