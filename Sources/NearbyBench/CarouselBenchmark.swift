import NearbyCarousel
import NearbyKit

/// Workloads for `nearby bench carousel`: the simulator's throughput on one core.
public enum CarouselBenchmark {
    /// Feeds `count` visible-index events (debounce → lookup → distinct → selection) through a simulator
    /// with the default configuration over a list of 16 places; times the feed loop alone.
    ///
    /// The timeline is a repeated swipe: bursts of 8 cards 40 ms apart (each restarting the 300 ms timer),
    /// then a 400 ms rest, so every burst ends with one debounced index; bursts end on cards 7, 15, 15, 11,
    /// so one burst in four lands on the card already selected and distinct drops it. Outputs are drained
    /// every 4096 events, keeping their capacity.
    public static func indexEvents(count: Int) -> (events: Int, seconds: Double, selections: Int) {
        let places = (0..<16).map {
            Place(id: "p\($0)", title: "", lat: 37.5 + Double($0) * 1e-3, lon: 127, category: 12)
        }
        let bases = [0, 8, 8, 4]
        var sim = CarouselSimulator()
        try! sim.feed(.places(places), at: 0)
        sim.output.reserveCapacity(4096)
        var t: Int64 = 1_000
        var selections = 0
        let clock = ContinuousClock()
        let start = clock.now
        for n in 0..<count {
            let k = n & 7
            t += k == 0 ? 400 : 40
            try! sim.feed(.visible(bases[(n >> 3) & 3] + k), at: t)
            if n & 4095 == 4095 {
                selections += sim.output.count
                sim.output.removeAll(keepingCapacity: true)
            }
        }
        sim.finish()
        let elapsed = clock.now - start
        return (count, seconds(elapsed), selections + sim.output.count)
    }

    /// Feeds `updates` location updates, one a second, 40 m apart (north, turning back every 50), through
    /// the 50 m distance filter into a radius query (`radius` m, `limit` cards, by distance) on the memory
    /// `engine`, starting at its first place; every second update re-queries. Build the engine once, before,
    /// and reuse it across runs. Returns the time of the whole loop: per re-query cost ≈ seconds / queries.
    public static func locationRequeries(
        engine: MemoryEngine, updates: Int, radius: Double = 1000, limit: Int = 20
    ) -> (updates: Int, queries: Int, seconds: Double, results: Int) {
        let places = engine.table.places
        precondition(!places.isEmpty)
        var sim = CarouselSimulator(query: { lat, lon in
            try engine.run(PlaceQuery(center: Coordinate(lat: lat, lon: lon), shape: .radius(radius), limit: limit))
                .places
        })
        let step = 40 / Haversine.earthRadius * 180 / Double.pi  // 40 m of latitude, in degrees
        var lat = places[0].lat
        let lon = places[0].lon
        var queries = 0
        var results = 0
        let clock = ContinuousClock()
        let start = clock.now
        for n in 0..<updates {
            lat += (n / 50) & 1 == 0 ? step : -step
            try! sim.feed(.location(lat: min(90, max(-90, lat)), lon: lon), at: Int64(n) * 1000)
            for o in sim.output {
                if case .query(_, _, _, _, let ids) = o {
                    queries += 1
                    results += ids.count
                }
            }
            sim.output.removeAll(keepingCapacity: true)
        }
        let elapsed = clock.now - start
        return (updates, queries, seconds(elapsed), results)
    }

    public static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    /// `nearby bench carousel`'s document: `indexEvents(count: events)` `runs` times (median rate), and
    /// with a workload `places` file, location re-queries on a memory engine built over it (before the
    /// clock starts), `updates` per run, median cost per re-query.
    public static func document(events: Int, runs: Int, places: String?, updates: Int) throws -> BenchDocument {
        let progress = BenchProgress("carousel")
        var seconds: [Double] = []
        var selections = 0
        for run in 1...runs {
            progress.say("run \(run) of \(runs)")
            let r = indexEvents(count: events)
            seconds.append(r.seconds)
            selections = r.selections
        }
        let median = LatencyStats.median(seconds)
        var doc = BenchDocument(command: "carousel")
        doc.carousel = BenchCarousel(
            events: events, runs: runs, eventsPerSecond: Double(events) / median,
            medianSeconds: median, selections: selections)
        if let places {
            progress.say("loading \(places)")
            let workload = try Workload.readPlaces(path: places)
            guard !workload.isEmpty else { throw UsageError("\(places): no places") }
            progress.say("building the memory engine over \(workload.count) places")
            let engine = MemoryEngine(places: workload)
            var micros: [Double] = []
            var last = (updates: 0, queries: 0, seconds: 0.0, results: 0)
            for run in 1...runs {
                progress.say("re-query run \(run) of \(runs)")
                last = locationRequeries(engine: engine, updates: updates)
                micros.append(last.seconds * 1e6 / Double(max(1, last.queries)))
            }
            doc.carousel?.requery = BenchRequery(
                places: workload.count, updates: last.updates, queries: last.queries,
                microsPerQuery: LatencyStats.median(micros),
                resultsPerQuery: Double(last.results) / Double(max(1, last.queries)))
        }
        progress.done()
        doc.memory.afterQueries = ResidentMemory.now()
        return doc
    }
}
