import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

/// What `GeoJSONWriter` writes, the importer reads back exactly.
@Suite struct GeoJSONWriterTests {
    static let places = SamplePlaces.roundTrip

    @Test func geoJSONRoundTripThroughTheWriter() throws {
        var writer = GeoJSONWriter()
        var out: [UInt8] = []
        writer.begin(to: &out)
        for p in Self.places { writer.append(p, distance: 12.5, to: &out) }
        writer.end(to: &out)
        let parsed = try parseFile(out, name: "p.geojson")
        #expect(parsed.format == .geojson)
        #expect(parsed.errors.isEmpty)
        #expect(parsed.places == Self.places)
        #expect(parsed.lines == [2, 3])
        let empty = GeoJSONWriter()
        var none: [UInt8] = []
        empty.begin(to: &none)
        empty.end(to: &none)
        #expect(String(decoding: none, as: UTF8.self) == "{\"type\":\"FeatureCollection\",\"features\":[\n]}\n")
    }
}
