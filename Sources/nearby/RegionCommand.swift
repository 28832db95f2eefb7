import ArgumentParser
import Foundation
import NearbyKit

/// `nearby region`: a region by name or code, as JSON or as its GeoJSON polygon.
struct RegionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "region",
        abstract: "Show a region by name or legal-dong code, or write its polygon as GeoJSON.",
        discussion: """
            The region is a name (종로구, 서울 종로구, 서울특별시 종로구, 수원시, 청운동) or a code \
            (11, 11110, 11110119, 1111010100), today's or older: 42110 is 춘천시 under its code \
            before 2023. A name that fits several regions (중구) is refused with the candidates \
            listed; add the 시도 or give the code.

            --format json prints one line per region: code, name, fullName, level, formerCodes, \
            parts (a city's 일반구) and bbox [minLon, minLat, maxLon, maxLat]. --format geojson \
            prints a GeoJSON Feature with a MultiPolygon (a FeatureCollection when an old code now \
            names several regions); 시군구 and 시도 are dissolved from their towns.

            Examples:
              nearby region 종로구
              nearby region 서울 중구 --format geojson > jung.geojson
              nearby region 42110
            """
    )

    @Option(help: "json (default) or geojson.")
    var format: Format = .json

    @Argument(help: "A region name (several words are joined) or code.")
    var region: [String] = []

    @Flag(
        name: .customLong("render-ldong-codes"),
        help: ArgumentHelp(
            "Write data/ldong-codes.tsv's text (the --ldong table) from the boundaries.", visibility: .hidden))
    var renderLegalDongCodes = false

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, geojson
    }

    func run() throws {
        if renderLegalDongCodes {
            print(LegalDongCodes(index: try RegionData.index()).rendered, terminator: "")
            return
        }
        let text = region.joined(separator: " ")
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw UsageError("give a region name or code") }
        let index = try RegionData.index()
        switch index.resolve(text) {
        case .notFound:
            throw UsageError("no region is named or coded \(MessageText.quoted(text))")
        case .ambiguous(let candidates):
            let list = candidates.map { "  \($0.fullName) (\($0.code))" }.joined(separator: "\n")
            throw UsageError(
                "\(MessageText.quoted(text)) names \(candidates.count) regions; add the 시도 or give a code:\n\(list)")
        case .found(let regions):
            var out = StdoutBlocks()
            switch format {
            case .json:
                for region in regions {
                    out.bytes += RegionOutput.regionJSON(region, index: index)
                    out.bytes.append(0x0A)
                }
            case .geojson:
                let features = regions.map { index.geoJSON($0) }
                let text =
                    features.count == 1
                    ? features[0]
                    : "{\"type\":\"FeatureCollection\",\"features\":[" + features.joined(separator: ",") + "]}"
                out.bytes += Array(text.utf8)
                out.bytes.append(0x0A)
            }
            try out.flush()
        }
    }

}
