import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyBench

/// The bound computes the answer it times: the same totals and ids as the memory engine, whose
/// answers the core's property tests check against brute force.
@Suite struct OutputBoundTests {
    @Test func boundAnswersAreTheEngines() throws {
        var g = QuerySampler(seed: 31)
        let places = g.places(3000)
        let bound = OutputBound(places: places.reversed())
        let engine = MemoryEngine(places: places)
        var buffer: [(dist: Double, row: Int32)] = []
        for qid in 0..<120 {
            let centre = places[g.int(0...places.count - 1)]
            let radius = Double(g.pick([0, 50, 500, 5000, 50_000, 2_000_000]))
            let limit = g.pick([0, 1, 10, 30, 10_000])
            let q = WorkloadQuery(qid: qid, lat: centre.lat + 0.001, lon: centre.lon, radius: radius, limit: limit)
            let a = bound.answer(q, repetitions: 2, buffer: &buffer)
            let want = try engine.run(
                PlaceQuery(center: Coordinate(lat: q.lat, lon: q.lon), shape: .radius(radius), limit: limit))
            // Compared outside the macro: its expansion of `a.total == want.total` (Int against the
            // answer's Int?) reports false for equal values.
            let same = want.total == a.total && a.ids == want.places.map(\.id)
            #expect(
                same,
                "query \(qid): r \(radius), limit \(limit): bound \(a.total) \(a.ids.prefix(5)), engine \(want.total.map(String.init) ?? "none") \(want.places.prefix(5).map(\.id))"
            )
            #expect(a.micros >= 0)
        }
    }

    @Test func selectFirstKeepsTheBestInOrder() {
        var g = QuerySampler(seed: 5)
        for _ in 0..<200 {
            let n = g.int(0...60)
            let k = g.int(0...70)
            let rows = (0..<n).map { (dist: Double(g.int(0...9)), row: Int32($0)) }.shuffled()
            var got = rows
            OutputBound.selectFirst(min(k, n), of: &got)
            let want = rows.sorted { $0.dist < $1.dist || ($0.dist == $1.dist && $0.row < $1.row) }.prefix(k)
            #expect(got.prefix(min(k, n)).map(\.row) == want.map(\.row))
        }
    }
}
