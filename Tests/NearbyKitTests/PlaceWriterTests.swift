import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@Suite struct PlaceWriterTests {
    /// 3,000 places in a row north of a centre, ids in distance order.
    private func answer(format: OutputFormat) throws -> (blocks: [[UInt8]], whole: [UInt8]) {
        let places = (1...3_000).map { i in
            Place(
                id: String(i), title: "장소 \(i)", lat: 37.5 + Double(i) * 1e-5, lon: 127.0, category: 12, addr: "서울 \(i)"
            )
        }
        let engine = MemoryEngine(places: places)
        let query = try QueryParameters.parse([("lat", "37.5"), ("lon", "127"), ("radius", "10000"), ("limit", "3000")])
        let a = try engine.run(query)
        #expect(a.rows.count == 3_000)
        final class Sink { var blocks: [[UInt8]] = [] }
        let sink = Sink()
        var writer = PlaceWriter(format: format, to: StdoutBlocks(blockSize: 16_384) { sink.blocks.append($0) })
        try writer.write(a, query: query, tookMs: 0)
        try writer.finish()
        return (sink.blocks, sink.blocks.flatMap { $0 })
    }

    /// A JSON array larger than a block leaves in blocks as it is written (the server streams them to
    /// the client; the whole answer is never held), and the blocks join into the one document, every
    /// row in order with its distance.
    @Test func testJSONArrayLeavesInBlocksThatJoinIntoTheDocument() throws {
        let (blocks, whole) = try answer(format: .json)
        #expect(blocks.count > 10, "the array was held whole and written at the end")
        #expect(
            blocks.dropLast().allSatisfy { $0.count >= 16_384 && $0.count < 16_384 + 4_096 }, "\(blocks.map(\.count))")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(whole)) as? [[String: Any]])
        #expect(rows.map { $0["id"] as? String } == (1...3_000).map { String($0) })
        #expect(rows[0]["addr"] as? String == "서울 1")
        #expect(abs((rows[2_999]["distance"] as? Double ?? 0) - 3_335.8) <= 0.5)
    }

    /// Ids and distances (`fields=id,distance`, `id`, `distance`) are written from the id column
    /// (`PlaceRows.forEachID`), byte for byte what writing each place gives, escapes and blocks included;
    /// from an in-memory table and from fetched rows alike.
    @Test func testIDsAndDistancesFromTheIdColumnAreTheBytesOfThePlaces() throws {
        let odd = ["a\"b", "back\\slash", "tab\there", "line\nbreak", "\u{1}ctl", "한글-7", "🙂", ""]
        let places = (0..<3_000).map { (i: Int) -> Place in
            let id: String = i < odd.count ? odd[i] : String(i)
            let lat: Double = 37.5 + Double(i % 97) * 1e-4
            let lon: Double = 127.0 + Double(i % 89) * 1e-4
            return Place(id: id, title: "장소", lat: lat, lon: lon, category: 12)
        }
        let engine = MemoryEngine(places: places)
        let query = try QueryParameters.parse([("lat", "37.5"), ("lon", "127"), ("radius", "10000"), ("limit", "3000")])
        let a = try engine.run(query)
        let fetched = QueryAnswer(
            total: a.total, rows: PlaceRows(places: a.places), distances: a.distances, page: a.page, next: a.next)
        for names in [["id", "distance"], ["id"], ["distance"], ["distance", "id"]] {
            let fields = try PlaceJSON.Selection(names: names)
            for format in [OutputFormat.json, .jsonl] {
                #expect(PlaceWriter.writesOnlyIDs(format: format, fields: fields))
                var expected: [UInt8] = format == .json ? [UInt8(ascii: "[")] : []
                for (i, p) in a.places.enumerated() {
                    if format == .json && i > 0 { expected.append(UInt8(ascii: ",")) }
                    PlaceJSON.append(p, distance: a.distances[i], fields: fields, to: &expected)
                    if format == .jsonl { expected.append(0x0A) }
                }
                if format == .json { expected += Array("]\n".utf8) }
                for answer in [a, fetched] {
                    final class Sink { var blocks: [[UInt8]] = [] }
                    let sink = Sink()
                    var writer = PlaceWriter(
                        format: format, fields: fields, to: StdoutBlocks(blockSize: 4_096) { sink.blocks.append($0) })
                    try writer.write(answer, query: query, tookMs: 0)
                    try writer.finish()
                    #expect(sink.blocks.count > 2)
                    #expect(sink.blocks.flatMap { $0 } == expected, "\(names) \(format)")
                }
            }
        }
        #expect(!PlaceWriter.writesOnlyIDs(format: .json, fields: try PlaceJSON.Selection(names: ["id", "title"])))
        #expect(!PlaceWriter.writesOnlyIDs(format: .geojson, fields: try PlaceJSON.Selection(names: ["id"])))
    }

    /// JSON lines: the same rows, one object a line, in blocks too.
    @Test func testJSONLinesInBlocksMatchTheArray() throws {
        let (blocks, whole) = try answer(format: .jsonl)
        #expect(blocks.count > 10)
        let lines = whole.split(separator: 0x0A).map {
            try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
        }
        #expect(lines.map { $0?["id"] as? String } == (1...3_000).map { String($0) })
    }
}
