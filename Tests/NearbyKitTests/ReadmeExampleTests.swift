import Foundation
import NearbyCore
import NearbyKit
import NearbyStore
import NearbyTestSupport
import Testing

/// The library example of README.md ("As a library"), run as written: `example` is the README's code
/// block, character for character, and `readmeLibraryExampleAnswersFromARealCache` runs the same
/// statements with its two file names pointed into a temporary folder. If either test fails, fix the
/// README and this file together.
@Suite struct ReadmeExampleTests {
    static let example = """
        import NearbyKit

        let cache = try DefaultCache.open(path: "places.sqlite", readOnly: false)
        let summary = try Importer().importFiles(["areaBasedList.json"], into: cache)
        let query = try QueryParameters.parse([("lat", "37.5665"), ("lon", "126.978"), ("radius", "2000"), ("category", "39")])
        let answer = try EngineKind.snapshot.open(cache).run(query)
        // answer.total, answer.places, answer.distances (metres), answer.nextCursor
        var out = PlaceWriter(format: .jsonl)
        try out.write(answer, query: query, tookMs: 0); try out.finish()
        """

    @Test func readmeHoldsTheExample() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        #expect(text.contains("```swift\n" + Self.example + "\n```\n"))
    }

    /// Two cafés near Seoul City Hall, a palace beside them (another content type) and a café in Busan,
    /// as a TourAPI areaBasedList2 response.
    static let areaBasedList = """
        {"response":{"header":{"resultCode":"0000","resultMsg":"OK"},"body":{"items":{"item":[
        {"contentid":"1","contenttypeid":"39","title":"시청 카페","mapx":"126.9779","mapy":"37.5663","modifiedtime":"20250101000000"},
        {"contentid":"2","contenttypeid":"39","title":"덕수궁 카페","mapx":"126.9751","mapy":"37.5658","modifiedtime":"20250101000000"},
        {"contentid":"3","contenttypeid":"12","title":"덕수궁","mapx":"126.9752","mapy":"37.5659","modifiedtime":"20250101000000"},
        {"contentid":"4","contenttypeid":"39","title":"부산역 카페","mapx":"129.0422","mapy":"35.1151","modifiedtime":"20250101000000"}
        ]},"numOfRows":10,"pageNo":1,"totalCount":4}}}
        """

    @Test func readmeLibraryExampleAnswersFromARealCache() throws {
        let folder = try TempFolder()
        let list = try folder.write("areaBasedList.json", Self.areaBasedList)

        // The README's statements; only the two file names differ.
        let cache = try DefaultCache.open(path: folder.file("places.sqlite"), readOnly: false)
        let summary = try Importer().importFiles([list], into: cache)
        let query = try QueryParameters.parse([
            ("lat", "37.5665"), ("lon", "126.978"), ("radius", "2000"), ("category", "39"),
        ])
        let answer = try EngineKind.snapshot.open(cache).run(query)
        // answer.total, answer.places, answer.distances (metres), answer.nextCursor
        var out = PlaceWriter(format: .jsonl)
        try out.write(answer, query: query, tookMs: 0)
        try out.finish()

        #expect(summary.counts.inserted == 4)
        #expect(answer.total == 2)
        #expect(answer.places.map(\.id) == ["1", "2"])
        let expected = Haversine.distance(lat1: 37.5665, lon1: 126.978, lat2: 37.5663, lon2: 126.9779)
        #expect(answer.distances.first! == expected)
        #expect(answer.nextCursor == nil)
    }
}
