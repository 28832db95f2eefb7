import Benchmark
import Fixtures
import NearbyCore

/// Cost of one distance under each model, on random pairs of points in Korea (1,024 pairs cycled,
/// so the inputs are not constants). Throughput is calls per second.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .nanoseconds,
        scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 100_000)
    let pairs = Fixtures.pointPairs(1024)

    Benchmark("distance: haversine") { benchmark in
        for i in benchmark.scaledIterations {
            let p = pairs[i & 1023]
            blackHole(Haversine.distance(lat1: p.lat1, lon1: p.lon1, lat2: p.lat2, lon2: p.lon2))
        }
    }

    Benchmark("distance: geodesic (PROJ geod_inverse)") { benchmark in
        let g = Geodesic.wgs84
        for i in benchmark.scaledIterations {
            let p = pairs[i & 1023]
            blackHole(g.distance(lat1: p.lat1, lon1: p.lon1, lat2: p.lat2, lon2: p.lon2))
        }
    }

    // Projected distance as the engine computes it: both points projected once per dataset, so a
    // distance is one hypot in the plane; and the one-off cost including two PROJ transforms.
    let projection: Projection
    do { projection = try Projection(epsg: 5179) } catch { fatalError("\(error)") }
    let a = projection.forward(lats: pairs.map(\.lat1), lons: pairs.map(\.lon1))
    let b = projection.forward(lats: pairs.map(\.lat2), lons: pairs.map(\.lon2))

    Benchmark("distance: projected EPSG:5179, pre-projected (planar)") { benchmark in
        for i in benchmark.scaledIterations {
            let j = i & 1023
            blackHole(PlanarMetric(x: a.xs[j], y: a.ys[j]).distance(x: b.xs[j], y: b.ys[j]))
        }
    }

    Benchmark("distance: projected EPSG:5179, two transforms + planar") { benchmark in
        for i in benchmark.scaledIterations {
            let p = pairs[i & 1023]
            let a = projection.forward(lat: p.lat1, lon: p.lon1)
            let b = projection.forward(lat: p.lat2, lon: p.lon2)
            blackHole(((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot())
        }
    }
}
