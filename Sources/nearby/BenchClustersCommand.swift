import ArgumentParser
import Foundation
import NearbyBench
import NearbyKit

/// `nearby bench clusters`: building the cluster hierarchy over the workload's places, and reading
/// viewports from it (`ClusterIndex`).
struct BenchClustersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clusters",
        abstract: "Time building the cluster hierarchy and reading viewports from it.",
        discussion: """
            Builds supercluster's hierarchy (default options) over the places of the file, in file \
            order, --repeat times (the build's time is the median: every level made and sorted into \
            its KD-tree; greedySeconds: made alone, what a request for one zoom waits for), then reads --viewports \
            viewports of 1024x768 pixels (256-pixel tiles) at each --zooms, centred on places drawn \
            with a fixed seed. Prints one JSON line: points, buildSeconds, greedySeconds, bytes, levels, and per \
            zoom p50Us, p99Us and the mean number of entries written. scripts/bench-clusters.py \
            runs it beside pysupercluster on the same points and viewports (--viewports-out).
            """
    )

    @Option(help: "Workload places TSV (id lat lon …), or lon<TAB>lat lines with --lon-lat.")
    var places: String

    @Flag(name: .customLong("lon-lat"), help: "The file holds lon<TAB>lat lines.")
    var lonLat = false

    @Option(name: .customLong("repeat"), help: "Builds timed; the median is reported.")
    var repetitions: Int = 3

    @Option(help: "Zooms whose viewports are timed, comma-separated.")
    var zooms: String = "4,8,12"

    @Option(help: "Viewports timed at each zoom.")
    var viewports: Int = 1000

    @Option(
        name: .customLong("viewports-out"),
        help: "Write the viewports timed to this file (zoom, minLon, minLat, maxLon, maxLat a line, tab-separated).")
    var viewportsOut: String?

    func run() throws {
        var lons: [Double] = []
        var lats: [Double] = []
        if lonLat {
            guard let text = try? String(contentsOfFile: places, encoding: .utf8) else {
                throw UsageError("\(places): cannot read file")
            }
            for line in text.split(separator: "\n") {
                let f = line.split(separator: "\t")
                guard f.count >= 2, let lon = Double(f[0]), let lat = Double(f[1]) else { continue }
                lons.append(lon)
                lats.append(lat)
            }
        } else {
            let list = try Workload.readPlaces(path: places)
            lons = list.map(\.lon)
            lats = list.map(\.lat)
        }
        // A build is timed until every level is sorted into its KD-tree (what pysupercluster's build
        // makes); the greedy pass alone is what a request for one zoom of a new hierarchy waits for.
        var times: [Double] = []
        var greedyTimes: [Double] = []
        var index: ClusterIndex?
        for _ in 0..<max(1, repetitions) {
            index = nil
            let start = DispatchTime.now().uptimeNanoseconds
            let made = ClusterIndex(lons: lons, lats: lats)
            greedyTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            made.sortLevels()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            index = made
        }
        let built = index!
        var generator = SplitMix64(seed: 2026)
        var perZoom: [String] = []
        var boxes = ""
        for zoom in zooms.split(separator: ",").compactMap({ Int($0) }) {
            let scale = pow(2, Double(zoom)) * 256
            var latencies: [Double] = []
            var entries = 0
            for _ in 0..<viewports {
                let i = Int(generator.next() % UInt64(max(1, lons.count)))
                let lonSpan = 1024 / scale * 360
                let y = 0.5 - log(tan(.pi / 4 + lats[i] * .pi / 360)) / (2 * .pi)
                func lat(_ y: Double) -> Double { 360 * atan(exp((0.5 - y) * 2 * .pi)) / .pi - 90 }
                let (minLon, minLat) = (lons[i] - lonSpan / 2, lat(y + 384 / scale))
                let (maxLon, maxLat) = (lons[i] + lonSpan / 2, lat(y - 384 / scale))
                if viewportsOut != nil { boxes += "\(zoom)\t\(minLon)\t\(minLat)\t\(maxLon)\t\(maxLat)\n" }
                let start = DispatchTime.now().uptimeNanoseconds
                let found = built.clusters(minLon: minLon, minLat: minLat, maxLon: maxLon, maxLat: maxLat, zoom: zoom)
                latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3)
                entries += found.count
            }
            latencies.sort()
            func at(_ q: Double) -> Double { latencies[min(latencies.count - 1, Int(q * Double(latencies.count)))] }
            perZoom.append(
                "\"\(zoom)\":{\"p50Us\":\(at(0.5)),\"p99Us\":\(at(0.99)),\"meanEntries\":\(Double(entries) / Double(max(1, viewports)))}"
            )
        }
        if let viewportsOut {
            guard FileManager.default.createFile(atPath: viewportsOut, contents: Data(boxes.utf8)) else {
                throw UsageError("\(viewportsOut): cannot write file")
            }
        }
        times.sort()
        greedyTimes.sort()
        print(
            "{\"points\":\(lons.count),\"buildSeconds\":\(times[times.count / 2]),"
                + "\"greedySeconds\":\(greedyTimes[greedyTimes.count / 2]),\"bytes\":\(built.byteCount),"
                + "\"levels\":\(built.levelCounts),\"zooms\":{\(perZoom.joined(separator: ","))}}")
    }
}
