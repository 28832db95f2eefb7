import Benchmark
import Fixtures
import Foundation
import NearbyCore
import NearbyStore

/// Query shapes, index build, sort keys and text filters on the in-memory engine, at 100k and 1M
/// places (see `Fixtures` for where the places come from). The query benchmarks answer the fixture's
/// 1,000 queries in each sample (scaling factor 1,000), so times are per query, averaged over the list.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .microseconds,
        maxDuration: .seconds(3), maxIterations: 20_000)

    for size in Fixtures.sizes {
        let label = size >= 1_000_000 ? "\(size / 1_000_000)M" : "\(size / 1000)k"
        let fixture: @Sendable () -> Fixtures.Fixture = { Fixtures.set(size) }
        let warm: Benchmark.BenchmarkSetupHook = { _ = Fixtures.set(size) }

        func queries(_ name: String, _ make: @escaping @Sendable (WorkloadQuery) -> PlaceQuery) {
            Benchmark(
                "\(name), \(label) places",
                configuration: .init(
                    metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .microseconds,
                    scalingFactor: .kilo, maxDuration: .seconds(5), maxIterations: 50
                ),
                closure: { benchmark in
                    let f = fixture()
                    let list = f.queries.prefix(1000).map(make)
                    benchmark.startMeasurement()
                    for i in benchmark.scaledIterations { blackHole(try f.engine.run(list[i % list.count])) }
                }, setup: warm)
        }
        @Sendable func centre(_ q: WorkloadQuery) -> Coordinate { Coordinate(lat: q.lat, lon: q.lon) }

        queries("radius (workload mix)") { q in PlaceQuery(center: centre(q), shape: .radius(q.radius), limit: q.limit)
        }
        queries("radius 2 km, limit 30") { q in PlaceQuery(center: centre(q), shape: .radius(2000), limit: 30) }
        queries("knn k=10") { q in PlaceQuery(center: centre(q), shape: .knn(k: 10, maxDistance: nil)) }
        queries("knn k=100") { q in PlaceQuery(center: centre(q), shape: .knn(k: 100, maxDistance: nil)) }
        queries("bbox around 2 km, limit 30") { q in
            let dLat = 2000 / Haversine.earthRadius * 180 / .pi
            let dLon = dLat / cos(q.lat * .pi / 180)
            return PlaceQuery(
                center: centre(q),
                filter: PlaceFilter(
                    bbox: GeoBox(
                        minLon: q.lon - dLon, minLat: q.lat - dLat, maxLon: q.lon + dLon, maxLat: q.lat + dLat)),
                limit: 30)
        }
        queries("radius 5 km + category 39 + title sort, page of 30") { q in
            PlaceQuery(
                center: centre(q), shape: .radius(5000), filter: PlaceFilter(categories: [39]),
                order: PlaceOrder([SortKey(.title)]), limit: 30)
        }

        Benchmark(
            "index build (PackedRTree), \(label) places",
            configuration: .init(
                metrics: [.wallClock, .peakMemoryResident], timeUnits: .milliseconds, maxDuration: .seconds(5),
                maxIterations: 20
            ),
            closure: { benchmark in
                let f = fixture()
                let xs = f.places.map(\.lon)
                let ys = f.places.map(\.lat)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { blackHole(PackedRTree(xs: xs, ys: ys)) }
            }, setup: warm)

        Benchmark(
            "engine build (columns + index), \(label) places",
            configuration: .init(
                metrics: [.wallClock, .peakMemoryResident], timeUnits: .milliseconds, maxDuration: .seconds(5),
                maxIterations: 10
            ),
            closure: { benchmark in
                let f = fixture()
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { blackHole(MemoryEngine(places: f.places)) }
            }, setup: warm)
    }

    // Sorts and filters over every place of the 100k fixture (full scans; a page of 30 unless noted).
    let size = 100_000
    let warm: Benchmark.BenchmarkSetupHook = { _ = Fixtures.set(size) }
    func scan(_ name: String, _ query: PlaceQuery) {
        Benchmark(
            "\(name), 100k places",
            configuration: .init(
                metrics: [.wallClock, .mallocCountTotal], timeUnits: .milliseconds, maxDuration: .seconds(3),
                maxIterations: 200
            ),
            closure: { benchmark in
                let engine = Fixtures.set(size).engine
                _ = try engine.run(query)  // builds lazily kept sort keys (title ranks) outside the measurement
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { blackHole(try engine.run(query)) }
            }, setup: warm)
    }
    let seoul = Coordinate(lat: 37.5665, lon: 126.9780)
    for key in SortField.allCases {
        scan(
            "sort all by \(key.rawValue)",
            PlaceQuery(center: key == .distance ? seoul : nil, order: PlaceOrder([SortKey(key)])))
        scan(
            "top 30 by \(key.rawValue)",
            PlaceQuery(center: key == .distance ? seoul : nil, order: PlaceOrder([SortKey(key)]), limit: 30))
    }
    scan("keyword filter 공원", PlaceQuery(filter: PlaceFilter(keyword: "공원"), limit: 30))
    scan("initial-consonant filter ㄱㅇ", PlaceQuery(filter: PlaceFilter(keyword: "ㄱㅇ"), limit: 30))
}
