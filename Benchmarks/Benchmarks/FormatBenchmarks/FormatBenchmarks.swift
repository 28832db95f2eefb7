import Benchmark
import Fixtures
import Foundation
import NearbyCore
import NearbyStore

/// Output encoding and import parsing: JSON lines for a page of 30 results, and `PlaceParser` on
/// 10,000 generated places written in each import format (one iteration parses the whole input).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .microseconds,
        maxDuration: .seconds(3), maxIterations: 10_000)
    let towns: [KoreanTown]
    do { towns = try DefaultDataset.towns() } catch { fatalError("\(error)") }
    let places = PlaceGenerator(towns: towns, seed: 2026).places(count: 10_000)

    Benchmark("JSON lines: encode a page of 30 places with distance") { benchmark in
        let page = Array(places.prefix(30))
        var out: [UInt8] = []
        out.reserveCapacity(1 << 16)
        for _ in benchmark.scaledIterations {
            out.removeAll(keepingCapacity: true)
            for (i, p) in page.enumerated() {
                PlaceJSON.append(p, distance: Double(i) * 12.5, to: &out)
                out.append(UInt8(ascii: "\n"))
            }
            blackHole(out)
        }
    }

    for format in ImportFormat.allCases {
        let input = FormatInputs.bytes(places, format)
        Benchmark("import parse \(format.rawValue), 10k places (\(input.count / 1024) KiB)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try PlaceParser.parse(input, file: "bench.\(format.rawValue)", format: format, strict: true))
            }
        }
    }
}

/// The same places written in each import format.
enum FormatInputs {
    static func bytes(_ places: [Place], _ format: ImportFormat) -> [UInt8] {
        var out: [UInt8] = []
        func text(_ s: String) { out.append(contentsOf: s.utf8) }
        func jsonString(_ s: String?) -> String {
            var b: [UInt8] = []
            JSONWriter.appendString(s ?? "", to: &b)
            return String(decoding: b, as: UTF8.self)
        }
        switch format {
        case .jsonl:
            for p in places {
                PlaceJSON.append(p, to: &out)
                out.append(10)
            }
        case .tsv, .csv:
            let sep = format == .tsv ? "\t" : ","
            text(
                ["id", "lat", "lon", "category", "title", "created", "modified", "areacode", "sigungucode"].joined(
                    separator: sep) + "\n")
            for p in places {
                let title =
                    format == .csv ? "\"" + p.title.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : p.title
                text(
                    [
                        p.id, "\(p.lat)", "\(p.lon)", "\(p.category)", title, p.created ?? "", p.modified ?? "",
                        p.areacode ?? "", p.sigungucode ?? "",
                    ].joined(separator: sep) + "\n")
            }
        case .geojson:
            var writer = GeoJSONWriter()
            writer.begin(to: &out)
            for p in places { writer.append(p, to: &out) }
            writer.end(to: &out)
        case .tourapi:
            text(#"{"response":{"header":{"resultCode":"0000","resultMsg":"OK"},"body":{"items":{"item":["#)
            for (i, p) in places.enumerated() {
                if i > 0 { text(",") }
                text(
                    #"{"contentid":\#(jsonString(p.id)),"contenttypeid":"\#(p.category)","title":\#(jsonString(p.title)),"#
                )
                text(#""mapx":"\#(p.lon)","mapy":"\#(p.lat)","createdtime":\#(jsonString(p.created)),"#)
                text(
                    #""modifiedtime":\#(jsonString(p.modified)),"areacode":\#(jsonString(p.areacode)),"sigungucode":\#(jsonString(p.sigungucode))}"#
                )
            }
            text(#"]},"numOfRows":\#(places.count),"pageNo":1,"totalCount":\#(places.count)}}}"#)
        }
        return out
    }
}
