import Foundation
import NearbyKit

/// The output-sensitive bound of the workload's radius queries: the work any engine must do once it
/// knows a query's matches, so an engine's latency can be read against it (`nearby bench bound`).
///
/// Per query, the matches are first found by brute force, untimed (every place tested, the exact
/// haversine distance of the engines' `HaversineMetric` within its conservative search box). The clock
/// then runs only while the centre's cosine is taken (once: every distance needs it, and no engine
/// knows it before the query), each match's coordinates are read, its distance computed, and the
/// matches ordered by (distance, id) and cut to the query's limit: a bounded max-heap when the limit is
/// smaller than the matches, else a sort. Buffers are reused between queries, so no allocation is timed.
/// Places are held in id order, so the row index is the id tie-break, as in the engines.
public struct OutputBound {
    private let lats: [Double], lons: [Double], ids: [String]

    /// Takes the places in any order.
    public init(places: [Place]) {
        let order = places.indices.sorted { PlaceTable.idPrecedes(places[$0].id, places[$1].id) }
        lats = order.map { places[$0].lat }
        lons = order.map { places[$0].lon }
        ids = order.map { places[$0].id }
    }

    public var count: Int { lats.count }

    /// One query's result: the time of the timed part (median of `repetitions`), the match count and
    /// the answer's ids in order.
    public struct Answer {
        public var micros: Double
        public var total: Int
        public var ids: [String]
    }

    /// Answers `q` as described on the type.
    public func answer(_ q: WorkloadQuery, repetitions: Int, buffer: inout [(dist: Double, row: Int32)]) -> Answer {
        let metric = HaversineMetric(lat: q.lat, lon: q.lon)
        // Untimed: the matches, by brute force.
        var matches: [Int32] = []
        let box = metric.searchBox(radius: q.radius) ?? (-.infinity, -.infinity, .infinity, .infinity)
        for i in 0..<lats.count
        where lons[i] >= box.minX && lons[i] <= box.maxX && lats[i] >= box.minY && lats[i] <= box.maxY {
            if metric.distance(x: lons[i], y: lats[i]) <= q.radius { matches.append(Int32(i)) }
        }
        let limit = q.limit > 0 ? min(q.limit, matches.count) : matches.count
        var times: [Double] = []
        for _ in 0..<repetitions {
            let t0 = BenchClock.nanos()
            // Read through a call the optimizer cannot see into, so the cosine is not hoisted out of the
            // timed repetitions.
            let lat = Self.opaque(q.lat)
            let cosLat = cos(lat * (Double.pi / 180))
            buffer.removeAll(keepingCapacity: true)
            lats.withUnsafeBufferPointer { la in
                lons.withUnsafeBufferPointer { lo in
                    for row in matches {
                        let d = Haversine.distance(
                            lat1: lat, lon1: q.lon, cosLat1: cosLat, lat2: la[Int(row)], lon2: lo[Int(row)])
                        buffer.append((d, row))
                    }
                }
            }
            Self.selectFirst(limit, of: &buffer)
            times.append(Double(BenchClock.nanos() - t0) / 1000)
        }
        return Answer(
            micros: LatencyStats.median(times), total: matches.count, ids: buffer.prefix(limit).map { ids[Int($0.row)] }
        )
    }

    /// `x`, through a call the optimizer cannot see into (keeps per-repetition work in the timed part).
    @inline(never) static func opaque(_ x: Double) -> Double { x }

    /// Puts the first `k` rows of `rows` by (distance, row) into `rows[0..<k]`, sorted.
    static func selectFirst(_ k: Int, of rows: inout [(dist: Double, row: Int32)]) {
        func less(_ a: (dist: Double, row: Int32), _ b: (dist: Double, row: Int32)) -> Bool {
            a.dist < b.dist || (a.dist == b.dist && a.row < b.row)
        }
        guard k < rows.count else {
            rows.sort(by: less)
            return
        }
        guard k > 0 else { return }
        rows.withUnsafeMutableBufferPointer { r in
            // Max-heap of the best k so far in r[0..<k]: r[0] is the worst of them.
            func siftDown(_ start: Int) {
                var i = start
                while true {
                    let l = 2 * i + 1
                    let rr = l + 1
                    var worst = i
                    if l < k && less(r[worst], r[l]) { worst = l }
                    if rr < k && less(r[worst], r[rr]) { worst = rr }
                    if worst == i { return }
                    r.swapAt(i, worst)
                    i = worst
                }
            }
            for i in stride(from: k / 2 - 1, through: 0, by: -1) { siftDown(i) }
            for j in k..<r.count where less(r[j], r[0]) {
                r[0] = r[j]
                siftDown(0)
            }
            var best = UnsafeMutableBufferPointer(rebasing: r[0..<k])
            best.sort(by: less)
        }
    }

    /// Every query, as a bench document (`command` "bound"): latency groups overall and per radius,
    /// and each answer's identity, comparable with `nearby bench radius` on the same files.
    public func run(_ queries: [WorkloadQuery], repetitions: Int, progress: BenchProgress) -> BenchDocument {
        var doc = BenchDocument(command: "bound", engine: "bound", threads: 1)
        doc.workload = BenchWorkloadInfo(places: "", placeCount: count, queryCount: queries.count)
        doc.repeat = repetitions
        doc.distance = "haversine"
        var buffer: [(dist: Double, row: Int32)] = []
        buffer.reserveCapacity(count)
        var micros: [Double] = []
        var answers: [BenchAnswer] = []
        for (n, q) in queries.enumerated() {
            let a = answer(q, repetitions: repetitions, buffer: &buffer)
            micros.append(a.micros)
            answers.append(
                BenchAnswer(
                    qid: q.qid, k: nil, total: a.total, returned: a.ids.count, checksum: AnswerChecksum.of(a.ids)))
            if n % 64 == 63 { progress.say("\(n + 1) / \(queries.count) queries") }
        }
        progress.done()
        var groups = [BenchRunner.group("all", Array(queries.indices), micros, answers)]
        var order: [String] = []
        var members: [String: [Int]] = [:]
        for (i, q) in queries.enumerated() {
            let name = "radius=\(q.radius == q.radius.rounded() ? String(Int(q.radius)) : String(q.radius))"
            if members[name] == nil { order.append(name) }
            members[name, default: []].append(i)
        }
        groups += order.map { BenchRunner.group($0, members[$0]!, micros, answers) }
        doc.groups = groups
        doc.answers = answers
        return doc
    }
}
