import Foundation
import NearbyCore
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// The same places written in every input format parse to the same records.
@Suite struct ImportFormatsAgreeTests {
    /// Deterministic places around Seoul City Hall with Korean titles and the workload's columns.
    static let places: [Place] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        func unit() -> Double { Double(next() % 1_000_000_000) / 1e9 }
        let words = ["관광지", "문화시설", "축제", "음식점", "숙박", "쇼핑"]
        let categories = [12, 14, 15, 25, 28, 32, 38, 39]
        var places: [Place] = []
        for i in 1...60 {
            let lat: Double = 37.5665 + (unit() - 0.5) * 0.2
            let lon: Double = 126.978 + (unit() - 0.5) * 0.2
            let created = String(format: "20%02d%02d%02d120000", 10 + i % 10, 1 + i % 12, 1 + i % 28)
            let modified = String(format: "2024%02d%02d235959", 1 + i % 12, 1 + i % 31)
            let title = "서울 \(words[i % words.count]) \(i), \"역\""
            places.append(
                Place(
                    id: String(i * 7919), title: title, lat: lat, lon: lon, category: categories[i % 8],
                    created: created, modified: modified, areacode: "1", sigungucode: String(1 + i % 25),
                    tel: i % 3 == 0 ? nil : "02-120-\(i)"))
        }
        return places
    }()

    static let columns: [PlaceField] = [
        .id, .lat, .lon, .category, .title, .created, .modified, .areacode, .sigungucode, .tel,
    ]

    static func cell(_ p: Place, _ f: PlaceField) -> String {
        switch f {
        case .lat: return p.lat.description
        case .lon: return p.lon.description
        case .category: return String(p.category)
        default: return p[text: f] ?? ""
        }
    }

    @Test func everyFormatGivesTheSameRecords() throws {
        let tsv =
            Self.columns.map(\.name).joined(separator: "\t") + "\n"
            + Self.places.map { p in Self.columns.map { Self.cell(p, $0) }.joined(separator: "\t") + "\n" }.joined()
        let csv =
            Self.columns.map(\.name).joined(separator: ",") + "\r\n"
            + Self.places.map { p in
                Self.columns.map { f in
                    let v = Self.cell(p, f)
                    return v.contains(where: { $0 == "," || $0 == "\"" })
                        ? "\"" + v.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : v
                }.joined(separator: ",") + "\r\n"
            }.joined()
        var jsonl: [UInt8] = []
        for p in Self.places {
            PlaceJSON.append(p, to: &jsonl)
            jsonl.append(0x0A)
        }
        var geojson: [UInt8] = []
        var writer = GeoJSONWriter()
        writer.begin(to: &geojson)
        for p in Self.places { writer.append(p, to: &geojson) }
        writer.end(to: &geojson)
        let tourNames: [PlaceField: String] = [
            .id: "contentid", .lat: "mapy", .lon: "mapx", .category: "contenttypeid",
            .title: "title", .created: "createdtime", .modified: "modifiedtime", .areacode: "areacode",
            .sigungucode: "sigungucode", .tel: "tel",
        ]
        var tour = Array(
            #"{"response":{"header":{"resultCode":"0000","resultMsg":"OK"},"body":{"items":{"item":["#.utf8)
        for (i, p) in Self.places.enumerated() {
            tour.append(contentsOf: (i == 0 ? "\n{" : ",\n{").utf8)
            for (k, f) in Self.columns.enumerated() {
                if k > 0 { tour.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(tourNames[f]!, to: &tour)
                tour.append(UInt8(ascii: ":"))
                JSONWriter.appendString(Self.cell(p, f), to: &tour)
            }
            tour.append(contentsOf: #","dist":"12.5","addr2":""}"#.utf8)
        }
        tour.append(contentsOf: "\n]},\"numOfRows\":60,\"pageNo\":1,\"totalCount\":60}}}\n".utf8)

        let inputs: [(String, [UInt8], ImportFormat)] = [
            ("p.tsv", Array(tsv.utf8), .tsv), ("p.csv", Array(csv.utf8), .csv), ("p.jsonl", jsonl, .jsonl),
            ("p.geojson", geojson, .geojson), ("p.json", tour, .tourapi),
        ]
        for (name, bytes, format) in inputs {
            let parsed = try parseFile(bytes, name: name)
            #expect(parsed.format == format, "\(name)")
            #expect(parsed.errors.isEmpty, "\(name): \(parsed.messages.prefix(3))")
            #expect(parsed.places == Self.places, "\(name)")
            #expect(
                parsed.lines == Array(2...61) || format == .jsonl && parsed.lines == Array(1...60),
                "\(name): \(parsed.lines.prefix(3))")
        }
    }

    @Test func lastLineWithoutNewlineAndCRLFJSONLines() throws {
        #expect(try parseFile("id,title,lat,lon,category\n1,a,1,2,3", name: "n.csv").places.map(\.id) == ["1"])
        #expect(
            try parseFile("id\ttitle\tlat\tlon\tcategory\r\n1\ta\t1\t2\t3", name: "n.tsv").places.map(\.id) == ["1"])
        let jsonl =
            #"{"id":"1","title":"a","lat":1,"lon":2,"category":3}"# + "\r\n"
            + #"{"id":"2","title":"b","lat":1,"lon":2,"category":3}"#
        #expect(try parseFile(jsonl, name: "n.jsonl").lines == [1, 2])
    }
}
