import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyRegions

/// data/kr_points.tsv holds a point inside each of the 5,026 towns and 15,297 villages, taken from the
/// unsimplified polygons: every one must land in its own region after simplification.
@Suite struct RepresentativePointTests {
    @Test func everyPointLandsInItsOwnRegion() throws {
        let index = try SharedIndex.get()
        let path = try RepositoryData.regionsPath()
        let towns = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("kr_points.tsv").path
        let text = try String(contentsOfFile: towns, encoding: .utf8)
        var lines = text.split(separator: "\n")
        #expect(lines.removeFirst() == "code\tlevel\tsido\tsigungu\temd\tri\tlat\tlon\tarea_km2")
        var checked = 0
        var stale = 0  // stale: source records that were dropped
        var misses: [String] = []
        for line in lines {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            let code = String(f[0])
            let level = f[1]
            let lat = try #require(Double(f[6]))
            let lon = try #require(Double(f[7]))
            let location = index.locate(lat: lat, lon: lon)
            if code.hasPrefix("44830") {
                // 당진군's stale polygon (dropped by scripts/fetch_regions.py): its area is 당진시's.
                #expect(location.path?.sigungu?.code == "44270", "\(line)")
                stale += 1
                continue
            }
            // The village layer repeats 93 whole towns under codes ending in 00 (dropped by
            // scripts/fetch_regions.py): their points belong to the town.
            let wholeTown = level == "ri" && code.hasSuffix("00")
            if wholeTown, index.resolve(String(code.prefix(8))) == .notFound {
                // 대구 달서구's one unnamed whole-town record has no town at all: 달서구 must hold it.
                #expect(location.path?.sigungu?.code == String(code.prefix(5)), "\(line)")
                checked += 1
                continue
            }
            if level == "ri", code.hasPrefix("4425031"), index.resolve(code) == .notFound {
                // 계룡 두마면's stale copies of 엄사면's villages (dropped by scripts/fetch_regions.py):
                // the point lands in 엄사면's village of the same name.
                #expect(location.path?.emd?.name == "엄사면" && location.path?.ri?.name == String(f[5]), "\(line)")
                stale += 1
                continue
            }
            guard case .found(let regions) = index.resolve(wholeTown ? String(code.prefix(8)) : code),
                regions.count == 1
            else {
                misses.append("\(code): does not resolve")
                continue
            }
            let own = regions[0]
            #expect(own.level == (level == "ri" && !wholeTown ? .ri : .emd))
            // A town's point may fall in a village of the village layer, which does not nest exactly
            // in the town layer; the town layer alone must still hold it.
            let holder = level == "ri" && !wholeTown ? location.path?.ri : index.townPath(lat: lat, lon: lon)?.emd
            if holder != own { misses.append("\(line) → \(holder?.description ?? "none")") }
            checked += 1
        }
        #expect(misses.isEmpty, "\(misses.count) misses, first: \(misses.prefix(5))")
        #expect(checked + stale == 20_323)
        #expect(stale == 12 + 5)
    }
}
