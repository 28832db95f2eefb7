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
    }
}
