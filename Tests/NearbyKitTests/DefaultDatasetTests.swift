import NearbyKit
import NearbyTestSupport
import Testing

/// Where the default dataset's towns are looked for, and that the Core tests' copy of it
/// (`RepositoryData`) is the default dataset.
@Suite struct DefaultDatasetTests {
    @Test func missingFileIsAClearError() {
        #expect(throws: KoreanTowns.FormatError.self) {
            try DefaultDataset.loadTowns(path: "/nonexistent/kr_points.tsv")
        }
    }

    @Test func dataDirectorySearchOrder() {
        let env = DefaultDataset.candidateDirectories(
            environment: ["NEARBY_DATA": "/x/data"], sourceFile: "/r/Sources/NearbyKit/Cache/D.swift")
        #expect(env == ["/x/data"])
        let dirs = DefaultDataset.candidateDirectories(
            environment: [:], sourceFile: "/r/Sources/NearbyKit/Cache/D.swift")
        #expect(dirs.first == "/r/data")
        #expect(dirs.count == 3)
    }

    @Test func repositoryDataIsTheDefaultDataset() throws {
        #expect(
            RepositoryData.defaultSeed == DefaultDataset.seed && RepositoryData.defaultCount == DefaultDataset.count)
        #expect(try RepositoryData.towns() == DefaultDataset.towns())
        let kit = try DefaultDataset.generator(seed: DefaultDataset.seed).places(count: 2000)
        #expect(try RepositoryData.defaultPlaces(count: 2000) == kit)
    }

    /// Every generated place's legal-dong codes agree with its coordinates by the same check import
    /// warns by (`RegionIndex.checkCodes`), and none lies at sea or abroad; only points drawn again
    /// moved, nothing else about any place.
    @Test func generatedCodesAgreeWithTheRegionIndex() throws {
        let index = try RegionData.index()
        let places = try DefaultDataset.generator(seed: DefaultDataset.seed).places(count: 20_000)
        var disagree: [String] = []
        var unplaced: [String] = []
        for p in places {
            switch index.checkCodes(lat: p.lat, lon: p.lon, lDongRegnCd: p.lDongRegnCd, lDongSignguCd: p.lDongSignguCd)
            {
            case .disagrees(_, _, let message): disagree.append("\(p.id): \(message)")
            case .unknownLocation: unplaced.append("\(p.id): (\(p.lat), \(p.lon))")
            case .agrees, .derived: break
            }
        }
        #expect(disagree.isEmpty, "\(disagree.count) disagree: \(disagree.prefix(5))")
        #expect(unplaced.isEmpty, "\(unplaced.count) at sea or abroad: \(unplaced.prefix(5))")

        let plain = PlaceGenerator(towns: try DefaultDataset.towns(), seed: DefaultDataset.seed).places(count: 20_000)
        var moved = 0
        var recoded = 0
        for (a, b) in zip(plain, places) {
            var a = a
            if (a.lat, a.lon) != (b.lat, b.lon) { moved += 1 }
            if (a.lDongRegnCd, a.lDongSignguCd) != (b.lDongRegnCd, b.lDongSignguCd) { recoded += 1 }
            (a.lat, a.lon, a.lDongRegnCd, a.lDongSignguCd, a.areacode) =
                (b.lat, b.lon, b.lDongRegnCd, b.lDongSignguCd, b.areacode)
            #expect(a == b)
        }
        // About 2 % of the discs' points fall over a border or into the sea; a few towns keep a code
        // the boundaries have replaced (당진군's 44830, now 당진시 44270) and get the region's.
        #expect(moved > 0 && moved < places.count / 10, "\(moved) moved")
        #expect(recoded < places.count / 100, "\(recoded) recoded")
    }
}
