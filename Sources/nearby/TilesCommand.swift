import ArgumentParser
import Foundation
import NearbyKit

struct TilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiles",
        abstract: "Write Mapbox Vector Tiles of the places and region boundaries, for static hosting or MBTiles.",
        discussion: """
            Every tile of --zoom that holds a place or a region boundary, each with the layers places \
            (one point a place: id, title, category, count; at most 4,096 a tile, thinned beyond) and regions \
            (시도 below zoom 8, 시군구 from it: code, name, level), as `nearby serve` answers \
            /tiles/{z}/{x}/{y}.mvt. The query flags filter the places as for `nearby query`; --bbox \
            also limits the tiles to those it touches (default: the places' and the boundaries' extent).

            --out DIR writes DIR/z/x/y.mvt (uncompressed); --out FILE.mbtiles writes an MBTiles 1.3 file \
            (gzipped tiles, TMS rows, metadata with the layers' fields). See docs/tiles.md.

            Examples:
              nearby tiles --zoom 0-12 --out tiles/
              nearby tiles --zoom 6-14 --region 제주 --category 12 --out jeju.mbtiles
            """
    )

    @OptionGroup var options: QueryOptions
    @OptionGroup var cache: CacheOptions

    @Option(help: ArgumentHelp("Zoom levels: N or MIN-MAX (0…\(TileID.maxZoom)).", valueName: "range"))
    var zoom: String = "0-12"

    @Option(help: ArgumentHelp("A folder for z/x/y.mvt files, or a file ending in .mbtiles.", valueName: "path"))
    var out: String

    @Flag(name: .customLong("no-regions"), help: "Leave out the regions layer.")
    var noRegions = false

    func zoomRange() throws -> ClosedRange<Int> {
        let parts = zoom.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...2).contains(parts.count), let lo = parts[0], let hi = parts.last!,
            0 <= lo, lo <= hi, hi <= TileID.maxZoom
        else {
            throw ValidationError("--zoom must be N or MIN-MAX within 0…\(TileID.maxZoom), got \(zoom)")
        }
        return lo...hi
    }

    func validate() throws { _ = try zoomRange() }

    func run() throws {
        let zooms = try zoomRange()
        let query = try TileQuery(options.parameters, areas: RegionAreas.shared)
        let placeCache = try cache.open(readOnly: true)
        let engine = try EngineKind.snapshot.open(placeCache) { StandardError.write("nearby tiles: \($0)") }
        let regions = noRegions ? nil : RegionsLayer(index: try RegionAreas.shared.index())
        let export = TileExport(minZoom: zooms.lowerBound, maxZoom: zooms.upperBound, query: query, output: out)
        let start = ContinuousClock.now
        let summary = try export.run(
            engine: engine, fetch: { ids in try ids.compactMap { try placeCache.place(id: $0) } }, regions: regions,
            progress: StandardError.progress)
        let seconds =
            Double((ContinuousClock.now - start).components.attoseconds) / 1e18
            + Double((ContinuousClock.now - start).components.seconds)
        StandardError.write(
            "nearby tiles: \(summary.tiles.reduce(0, +)) tiles (\(summary.bytes) bytes) in \(out) "
                + "(per zoom from \(zooms.lowerBound): \(summary.tiles.map(String.init).joined(separator: " ")); "
                + String(format: "%.1f s)", seconds))
    }
}
