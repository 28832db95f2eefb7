import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// Hostile inputs to the importers: cases a reader that trusts line endings or the first line gets wrong.
@Suite struct HardeningImportTests {
    // MARK: Lines ended by CR only (old Mac and Excel exports)

    @Test func crOnlyTSVAndCSVImportEveryRow() throws {
        let tsv = "id\ttitle\tlat\tlon\tcategory\r1\tA\t37.5\t127\t12\r2\tB\t37.6\t127.1\t14\r"
        let parsedTSV = try parseFile(tsv, name: "mac.tsv", strict: true)
        #expect(parsedTSV.format == .tsv)
        #expect(parsedTSV.places.map(\.id) == ["1", "2"])
        #expect(parsedTSV.lines == [2, 3])
        let csv = "id,title,lat,lon,category\r1,\"A, a\",37.5,127,12\r2,B,91,127.1,14\r3,C,37,127,1"
        let parsedCSV = try parseFile(csv, name: "mac.csv")
        #expect(parsedCSV.places.map(\.id) == ["1", "3"])
        #expect(parsedCSV.messages == ["mac.csv:3: lat: 91.0 is outside [-90, 90]"])
    }

    @Test func crOnlyJSONLines() throws {
        let jsonl =
            #"{"id":"1","title":"A","lat":1,"lon":2,"category":3}"# + "\r"
            + #"{"id":"2","title":"B","lat":1,"lon":2,"category":3}"# + "\r"
        let parsed = try parseFile(jsonl, name: "mac.jsonl")
        #expect(parsed.places.map(\.id) == ["1", "2"])
        #expect(parsed.lines == [1, 2])
    }

    // MARK: Detection must not depend on where the first good line falls

    @Test func jsonLinesDetectedWhereverTheFirstGoodLineIs() throws {
        let good = #"{"id":"9","title":"A","lat":1,"lon":2,"category":3}"#
        for badLines in [1, 9, 10, 11, 50] {
            let text = String(repeating: "{\"id\":\n", count: badLines) + good + "\n"
            let parsed = try parseFile(text, name: "b.jsonl")
            #expect(parsed.format == .jsonl, "\(badLines) bad lines")
            #expect(parsed.places.map(\.id) == ["9"], "\(badLines) bad lines")
            #expect(parsed.errors.count == badLines)
            #expect(parsed.errors.first?.line == 1)
        }
        // Blank lines before the first good one do not matter either.
        let blanks = "{\"id\":\n" + String(repeating: "\n", count: 20) + good + "\n"
        #expect(try parseFile(blanks, name: "c.jsonl").places.map(\.id) == ["9"])
        // A first line that is valid JSON but not a place, or not JSON at all, is one bad line too.
        for first in [#"{"note":"exported 2024"}"#, "garbage", "a,b"] {
            let parsed = try parseFile(first + "\n" + good + "\n", name: "d.jsonl")
            #expect(parsed.format == .jsonl, "\(first)")
            #expect(parsed.places.map(\.id) == ["9"], "\(first)")
            #expect(parsed.errors.map(\.line) == [1], "\(first)")
        }
    }
}
