import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

@Suite struct ImportJSONTests {
    static let places = SamplePlaces.roundTrip

    @Test func jsonLinesRoundTrip() throws {
        var out: [UInt8] = []
        for p in Self.places {
            PlaceJSON.append(p, to: &out)
            out.append(0x0A)
        }
        let parsed = try parseFile(out, name: "p.jsonl")
        #expect(parsed.format == .jsonl)
        #expect(parsed.errors.isEmpty)
        #expect(parsed.places == Self.places)
        #expect(parsed.places[1].lat.sign == .minus)
    }

    @Test func geoJSONFeatureIdAndBadFeatures() throws {
        let json = """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "id": 17, "geometry": {"type": "Point", "coordinates": [126.978, 37.5665, 38]},
               "properties": {"title": "서울광장", "category": 12, "accessibility": "restroom;wheelchair", "lat": 99, "extra": [1]}},
              {"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[1, 2], [3, 4]]}, "properties": {"id": "x"}},
              {"type": "Feature", "geometry": null, "properties": {"id": "y"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": ["126", 37]}, "properties": {"id": "z"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [127, 37]}, "properties": {"id": "w", "title": "t", "category": 1, "accessibility": ["teleporter"]}}
            ]}
            """
        let parsed = try parseFile(json, name: "f.geojson")
        #expect(
            parsed.places == [
                Place(
                    id: "17", title: "서울광장", lat: 37.5665, lon: 126.978, category: 12,
                    accessibility: ["restroom", "wheelchair"])
            ])
        #expect(
            parsed.messages == [
                "f.geojson:4: geometry: not a Point",
                "f.geojson:5: geometry: missing",
                "f.geojson:6: coordinates: expected [lon, lat] numbers",
                "f.geojson:7: accessibility: unknown tag \"teleporter\" (known: \(Accessibility.tags.joined(separator: ", ")))",
            ])
    }

    @Test func truncatedAndBrokenJSONLines() throws {
        var out: [UInt8] = []
        PlaceJSON.append(Self.places[1], to: &out)
        let good = String(decoding: out, as: UTF8.self)
        let text =
            good + "\n\n" + #"{"id":"3","title":"x","lat":37.5,"lon":127.0,"category":1"# + "\n"
            + #"{"id":"4","title":"x","lat":"37.5","lon":127.0,"category":1}"# + "\n"
            + #"{"id":"5","title":"x","lat":37.5,"lon":127.0,"category":1,"modified":"2024-01-01"}"# + "\n"
            + good + "\n" + #"{"id":"7","title":"x","lat":37.5,"lo"#
        let parsed = try parseFile(text, name: "t.jsonl")
        #expect(parsed.places == [Self.places[1], Self.places[1]])
        #expect(
            parsed.messages == [
                "t.jsonl:3: json: unexpected end of input",
                "t.jsonl:4: lat: expected a number",
                "t.jsonl:5: modified: \"2024-01-01\" is not a yyyyMMddHHmmss date-time",
                "t.jsonl:7: json: unexpected end of input",
            ])
    }

    @Test func jsonLinesWhoseFirstLineIsBrokenAreStillJSONLines() throws {
        let text = #"{"id":"1","title":"# + "\n" + #"{"id":"2","title":"b","lat":1,"lon":2,"category":3}"# + "\n"
        let parsed = try parseFile(text, name: "f.jsonl")
        #expect(parsed.format == .jsonl)
        #expect(parsed.messages == ["f.jsonl:1: json: unexpected end of input"])
        #expect(parsed.places.map(\.id) == ["2"])
    }

    @Test func unsupportedInputsGetOneError() {
        #expect(
            refusal("hello world\nthis is not data\n", name: "a.txt")
                == "a.txt: not a supported format: expected JSON lines, a TourAPI response, GeoJSON, or CSV/TSV with a header row naming id, title, lat, lon, category (or TourAPI's contentid, title, mapy, mapx, contenttypeid)"
        )
        #expect(
            refusal(#"[{"id":"1"}]"#, name: "b.json")
                == "b.json: \(PlaceParser.noPlace) (a JSON array; Nearby's own place objects go one per line, as JSON lines)"
        )
        #expect(
            refusal(#"{"name":"x","value":3}"#, name: "c.json")
                == "c.json: \(PlaceParser.noPlace) (its keys: name, value)")
        #expect(
            refusal("{\n  \"type\": \"FeatureCollection\",\n  \"features\": [\n", name: "d.geojson")
                == "d.geojson: not valid JSON: unexpected end of input at line 4")
        #expect(
            refusal("<html><body>502 Bad Gateway</body></html>", name: "e.html")
                == "e.html: XML is not a supported format; expected JSON lines, a TourAPI JSON response (_type=json), GeoJSON, CSV or TSV"
        )
        #expect(
            refusal(#"{"type":"Feature","geometry":null}"#, name: "g.json", format: .geojson)
                == "g.json: GeoJSON must be a FeatureCollection with a features array")
    }

    @Test func forcedFormatEmptyInputAndByteOrderMark() throws {
        let tsv = "id\ttitle\tlat\tlon\tcategory\n1\t가\t37\t127\t12\n"
        #expect(try parseFile(tsv, name: "x.dat", format: .tsv).places.map(\.id) == ["1"])
        #expect(
            refusal(tsv, name: "x.dat", format: .csv)?.hasPrefix("x.dat: not a supported format: the header row lacks")
                == true)
        let empty = try parseFile("", name: "empty")
        #expect(empty.records.isEmpty && empty.errors.isEmpty)
        let bom = try parseFile(
            [0xEF, 0xBB, 0xBF] + Array("id,title,lat,lon,category\n1,a,1,2,3\n".utf8), name: "bom.csv")
        #expect(bom.format == .csv && bom.places.map(\.id) == ["1"])
    }
}
