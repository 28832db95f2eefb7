import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// `nearby generate`'s output is what `nearby import` reads: both formats parse and validate without
/// a single rejected record, and give back exactly the generated places.
@Suite struct PlaceGeneratorImportTests {
    static let places = PlaceGenerator(towns: try! RepositoryData.towns(), seed: 17).places(count: 2000)

    func imported(_ bytes: [UInt8], _ format: ImportFormat) throws -> [Place] {
        let parsed = try PlaceParser.parse(bytes, file: "generated", strict: true)
        #expect(parsed.format == format)
        #expect(parsed.errors.isEmpty)
        return parsed.records.compactMap {
            if case .upsert(let p) = $0.record { return p }
            Issue.record("line \($0.line) is not an upsert")
            return nil
        }
    }

    @Test func tsvImportsExactly() throws {
        var bytes = Array((PlaceGenerator.tsvColumns.joined(separator: "\t") + "\n").utf8)
        for p in Self.places { PlaceGenerator.appendTSV(p, to: &bytes) }
        #expect(try imported(bytes, .tsv) == Self.places)
    }

    @Test func jsonLinesImportExactly() throws {
        var bytes: [UInt8] = []
        for p in Self.places {
            PlaceJSON.append(p, to: &bytes)
            bytes.append(0x0A)
        }
        #expect(try imported(bytes, .jsonl) == Self.places)
    }
}
