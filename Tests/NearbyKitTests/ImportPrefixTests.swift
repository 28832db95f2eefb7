import NearbyKit
import Testing

/// Format detection looks at the first `PlaceParser.detectionPrefix` bytes only: documents whose first
/// value goes on past them are still known by what the prefix holds of it, and records past the size
/// limit stop the read wherever they are.
@Suite struct ImportPrefixTests {
    static func item(_ i: Int) -> String {
        #"{"contentid":"\#(i)","title":"Item \#(i)","mapx":"127.0\#(i % 10)","mapy":"37.5\#(i % 10)","contenttypeid":"12","addr1":"Seoul"}"#
    }
    static let items = (1...2000).map(item).joined(separator: ",")

    static func parse(_ text: String, maxRecordBytes: Int = PlaceParser.defaultMaxRecordBytes) throws -> ParsedInput {
        var records: [LineRecord] = []
        var errors: [RecordError] = []
        let format = try Array(text.utf8).withUnsafeBytes { input in
            try PlaceParser.read(
                input, file: "f", maxRecordBytes: maxRecordBytes, emit: { records.append($0) },
                reject: { errors.append($0) })
        }
        return ParsedInput(file: "f", format: format, records: records, errors: errors)
    }

    @Test func longTourAPIResponseIsKnownByItsPrefix() throws {
        let text =
            #"{"response":{"header":{"resultCode":"0000","resultMsg":"OK"},"body":{"items":{"item":["#
            + Self.items + #"]},"numOfRows":2000,"pageNo":1,"totalCount":2000}}}"#
        #expect(text.utf8.count > PlaceParser.detectionPrefix)
        let parsed = try Self.parse(text)
        #expect(parsed.format == .tourapi)
        #expect(parsed.records.count == 2000)
    }

    @Test func longBareArrayOfItemsIsKnownByItsPrefix() throws {
        let text = "[" + Self.items + "]"
        #expect(text.utf8.count > PlaceParser.detectionPrefix)
        let parsed = try Self.parse(text)
        #expect(parsed.format == .tourapi)
        #expect(parsed.records.count == 2000)
    }

    @Test func longGeoJSONWithItsTypeLastIsKnownByItsFeatures() throws {
        let features = (1...2000).map {
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[127.0,37.5]},"properties":{"id":"\#($0)","title":"P","category":12}}"#
        }
        let text = #"{"features":["# + features.joined(separator: ",") + #"],"type":"FeatureCollection"}"#
        #expect(text.utf8.count > PlaceParser.detectionPrefix)
        // Without `type` in the prefix the object is judged by its first complete members.
        let format = try? Array(text.utf8).withUnsafeBytes {
            try PlaceParser.detectPrefix(
                UnsafeRawBufferPointer(rebasing: $0.prefix(PlaceParser.detectionPrefix)), truncated: true, file: "f")
        }
        #expect(format == .geojson)
        #expect(try Self.parse(text).records.count == 2000)
    }

    @Test func firstLineLongerThanThePrefixIsStillJSONLines() throws {
        let long =
            #"{"id":"1","title":"\#(String(repeating: "a", count: 100_000))","lat":37.5,"lon":127,"category":12}"#
        let parsed = try Self.parse(long + "\n")
        #expect(parsed.format == .jsonl)
        #expect(parsed.records.count == 1)
    }

    @Test func oversizedItemOfADocumentIsAnError() throws {
        let big =
            #"{"contentid":"9","title":"\#(String(repeating: "a", count: 5000))","mapx":"127","mapy":"37.5","contenttypeid":"12"}"#
        let text = "[\n" + Self.item(1) + ",\n" + big + "\n]"
        #expect(throws: RecordError.self) { try Self.parse(text, maxRecordBytes: 4096) }
        do {
            _ = try Self.parse(text, maxRecordBytes: 4096)
        } catch let error as RecordError {
            #expect(error.line == 3)
            #expect(error.reason.contains("record larger than 4096 bytes"))
        }
        #expect(try Self.parse(text, maxRecordBytes: 8192).records.count == 2)
    }

    @Test func oversizedCSVRecordIsAnError() throws {
        let text =
            "id,title,lat,lon,category\n1,A,37.5,127,12\n2,\"\(String(repeating: "b", count: 3000))\",37.5,127,12\n"
        do {
            _ = try Self.parse(text, maxRecordBytes: 1000)
            Issue.record("no error")
        } catch let error as RecordError {
            #expect(error.line == 3)
        }
        #expect(try Self.parse(text, maxRecordBytes: 4000).records.count == 2)
    }

    @Test func sizeGuardStopsAnEndlessLine() throws {
        var guardian = RecordSizeGuard(format: .jsonl, file: "<stdin>", maxRecordBytes: 100)
        let ok = Array((String(repeating: "x", count: 99) + "\n").utf8)
        try ok.withUnsafeBytes { try guardian.feed($0) }
        let long = Array(String(repeating: "y", count: 101).utf8)
        #expect(throws: RecordError.self) { try long.withUnsafeBytes { try guardian.feed($0) } }
        var json = RecordSizeGuard(format: .tourapi, file: "<stdin>", maxRecordBytes: 100)
        let items = Array(("[" + Self.items + "]").utf8)
        try items.withUnsafeBytes { try json.feed($0) }
    }
}
