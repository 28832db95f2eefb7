import ArgumentParser
import Foundation
import NearbyBench
import NearbyKit

/// `nearby bench bbox`: bounding-box queries, one box per workload query circle.
struct BenchBBoxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bbox",
        abstract: "Time bounding-box queries: the latitude/longitude box around each workload query's circle.",
        discussion: """
            The box of a query (lat, lon, r) is lat ± r/R and lon ± r/(R·cos lat) in degrees with \
            R = 6,371,008.8 m (the smallest such box holding the circle, up to the haversine's \
            curvature), clamped to ±90° of latitude; a box that crosses ±180° wraps. The answer is \
            every place in the box, by distance from the query centre then id, cut to the query's limit.

              nearby bench bbox --places $W.places.tsv --queries $W.queries.tsv
            """
    )

    @OptionGroup var options: BenchWorkloadOptions

    func run() throws { try body() }

    private func body() throws {
        let (setup, queries) = try options.setUp(command: "bbox")
        defer { setup.cleanup() }
        let model = options.distanceModel
        let tasks = queries.map { q in
            BenchTask(
                qid: q.qid, group: "radius=\(BenchFormat.metres(q.radius))",
                query: PlaceQuery(
                    center: Coordinate(lat: q.lat, lon: q.lon), filter: PlaceFilter(bbox: Self.box(around: q)),
                    limit: q.limit, distance: model))
        }
        try BenchRunner.run(tasks, setup: setup, repetitions: options.repetitions, answersFile: options.answers).print()
    }

    /// The latitude/longitude box around a query's circle (see the discussion above).
    static func box(around q: WorkloadQuery) -> GeoBox {
        let dLat = q.radius / Haversine.earthRadius * 180 / .pi
        let minLat = max(-90, q.lat - dLat)
        let maxLat = min(90, q.lat + dLat)
        let cosLat = cos(q.lat * .pi / 180)
        let dLon = cosLat > 1e-12 ? dLat / cosLat : 360
        if dLon >= 180 || minLat == -90 || maxLat == 90 {
            return GeoBox(minLon: -180, minLat: minLat, maxLon: 180, maxLat: maxLat)
        }
        func wrap(_ lon: Double) -> Double { lon > 180 ? lon - 360 : (lon < -180 ? lon + 360 : lon) }
        return GeoBox(minLon: wrap(q.lon - dLon), minLat: minLat, maxLon: wrap(q.lon + dLon), maxLat: maxLat)
    }
}
