import NearbyCore

/// Throughput of the simulator's index path (debounce → lookup → distinct → selection) on one core.
public enum CarouselBenchmark {
    /// Feeds `count` visible-index events through a simulator with the default configuration over a list
    /// of 16 places and returns the wall time of the feed loop alone.
    ///
    /// The timeline is a repeated swipe: bursts of 8 cards 40 ms apart (each restarting the 300 ms timer),
    /// then a 400 ms rest, so every burst ends with one selection; every 4th burst lands on the card already
    /// selected, so distinct drops it. Outputs are drained every 4096 events with capacity kept.
    public static func indexEvents(count: Int) -> (events: Int, seconds: Double, selections: Int) {
        let places = (0..<16).map { Place(id: "p\($0)", title: "", lat: 37.5 + Double($0) * 1e-3, lon: 127, category: 12) }
        var sim = CarouselSimulator()
        try! sim.feed(.places(places), at: 0)
        sim.output.reserveCapacity(4096)
        var t: Int64 = 1_000
        var selections = 0
        let clock = ContinuousClock()
        let start = clock.now
        for n in 0..<count {
            let burst = n >> 3, k = n & 7
            t += k == 0 ? 400 : 40
            // Bursts alternate direction; every 4th repeats the previous burst's last card.
            let card = burst & 3 == 3 ? (k + 8 * ((burst - 1) & 1)) : (k + 8 * (burst & 1))
            try! sim.feed(.visible(card), at: t)
            if n & 4095 == 4095 {
                selections += sim.output.count
                sim.output.removeAll(keepingCapacity: true)
            }
        }
        sim.finish()
        let elapsed = clock.now - start
        selections += sim.output.count
        let c = elapsed.components
        return (count, Double(c.seconds) + Double(c.attoseconds) * 1e-18, selections)
    }
}
