import Foundation
import NearbyBench
import NearbyCore
import Testing

/// Runs every `nearby bench` subcommand on a tiny workload generated here, checks the JSON shape
/// documented in docs/bench-json.md, and checks every answer against a brute-force one.
@Suite struct BenchCommandTests {
    let workload = try! BenchTestWorkload()

    @Test func radiusAnswersMatchBruteForce() throws {
        let answersPath = workload.dir + "/radius.answers.tsv"
        let doc = try workload.bench(["radius", "--answers", answersPath])
        try BenchShape.checkQueryDocument(doc, command: "radius", engine: "memory", workload: workload)
        let expected = workload.queries.map { workload.bruteRadius($0) }
        let answers = try #require(doc["answers"] as? [[String: Any]])
        #expect(answers.count == expected.count)
        for (a, e) in zip(answers, expected) {
            #expect(a["qid"] as? Int == e.qid)
            #expect(a["total"] as? Int == e.total, "qid \(e.qid)")
            #expect(a["returned"] as? Int == e.rows.count, "qid \(e.qid)")
            #expect(a["checksum"] as? String == e.checksum, "qid \(e.qid)")
        }
        let groups = try #require(doc["groups"] as? [[String: Any]])
        #expect(
            groups.map { $0["name"] as? String } == ["all", "radius=500", "radius=2000", "radius=20000", "radius=0"])
        #expect(groups[0]["totalMatches"] as? Int == expected.reduce(0) { $0 + $1.total })
        // The TSV has the same answers, one line per query.
        let tsv = try String(contentsOfFile: answersPath, encoding: .utf8).split(separator: "\n")
        #expect(tsv.first == "qid\ttotal\treturned\tchecksum")
        #expect(
            tsv.dropFirst().map(String.init)
                == expected.map { "\($0.qid)\t\($0.total)\t\($0.rows.count)\t\($0.checksum)" })
    }

    /// BENCHMARKS.md's "radius + category filter + title sort, page of 30", on both engines.
    @Test func radiusWithCategoryTitleSortAndLimitMatchesBruteForce() throws {
        let expected = workload.queries.map { q in
            let rows = workload.places
                .filter {
                    $0.category == 39
                        && Haversine.distance(lat1: q.lat, lon1: q.lon, lat2: $0.lat, lon2: $0.lon) <= q.radius
                }
                .map { (key: KoreanCollation.sortKey($0.title), id: Int($0.id)!) }
                .sorted { $0.key != $1.key ? $0.key.lexicographicallyPrecedes($1.key) : $0.id < $1.id }
            return BenchTestWorkload.Expected(qid: q.qid, total: rows.count, ids: rows.prefix(30).map(\.id))
        }
        #expect(expected.contains { $0.rows.count == 30 && $0.total > 30 }, "some page is cut")
        for engine in ["memory", "sqlite"] {
            let doc = try workload.bench([
                "radius", "--engine", engine, "--category", "39", "--sort", "title", "--limit", "30",
            ])
            #expect(doc["variant"] as? String == "category 39, sort title, limit 30")
            let answers = try #require(doc["answers"] as? [[String: Any]])
            #expect(answers.map { $0["total"] as? Int } == expected.map(\.total), "\(engine)")
            #expect(answers.map { $0["checksum"] as? String } == expected.map(\.checksum), "\(engine)")
        }
        let bad = try BenchTestWorkload.runRaw([
            "bench", "radius", "--places", workload.placesPath,
            "--queries", workload.queriesPath, "--sort", "colour",
        ])
        #expect(bad.status == 2 && bad.stderr.contains(#"nearby bench radius: --sort: "colour""#), "\(bad.stderr)")
    }

    @Test func radiusWithThreadsAndRepeatsGivesTheSameAnswers() throws {
        let one = try workload.bench(["radius"])
        let many = try workload.bench(["radius", "--threads", "3", "--repeat", "2"])
        #expect(many["threads"] as? Int == 3)
        #expect(many["repeat"] as? Int == 2)
        let a = try #require(one["answers"] as? [[String: Any]])
        let b = try #require(many["answers"] as? [[String: Any]])
        #expect(a.map { $0["checksum"] as? String } == b.map { $0["checksum"] as? String })
    }

    /// The sqlite engine (a fresh temporary cache, one connection per thread) and the snapshot engine
    /// over that cache give the same answers.
    @Test(arguments: ["sqlite", "snapshot"]) func cacheEngineAnswersMatchBruteForce(engine: String) throws {
        for command in ["radius", "knn", "bbox"] {
            let doc = try workload.bench([command, "--engine", engine, "--threads", "2"])
            try BenchShape.checkQueryDocument(
                doc, command: command, engine: engine, workload: workload,
                perQuery: command == "knn" ? 3 : 1)
            let seconds = try #require(doc["seconds"] as? [String: Any])
            #expect(seconds["import"] is Double)
            let expected =
                command == "knn"
                ? [1, 10, 100].flatMap { k in workload.queries.map { workload.bruteNearest($0, k: k) } }
                : workload.queries.map { command == "radius" ? workload.bruteRadius($0) : workload.bruteBox($0) }
            let answers = try #require(doc["answers"] as? [[String: Any]])
            #expect(answers.map { $0["total"] as? Int } == expected.map(\.total), "\(command)")
            #expect(answers.map { $0["checksum"] as? String } == expected.map(\.checksum), "\(command)")
        }
    }

    @Test func firstLimitsTheQueries() throws {
        let doc = try workload.bench(["radius", "--first", "3"])
        #expect((doc["answers"] as? [[String: Any]])?.map { $0["qid"] as? Int } == [1, 2, 3])
        #expect((doc["workload"] as? [String: Any])?["queryCount"] as? Int == 3)
    }

    @Test func knnAnswersMatchBruteForce() throws {
        let doc = try workload.bench(["knn"])
        try BenchShape.checkQueryDocument(doc, command: "knn", engine: "memory", workload: workload, perQuery: 3)
        let answers = try #require(doc["answers"] as? [[String: Any]])
        let expected = [1, 10, 100].flatMap { k in workload.queries.map { workload.bruteNearest($0, k: k) } }
        for (a, e) in zip(answers, expected) {
            #expect(a["returned"] as? Int == e.rows.count, "qid \(e.qid)")
            #expect(a["total"] as? Int == e.total, "qid \(e.qid)")
            #expect(a["checksum"] as? String == e.checksum, "qid \(e.qid) k \(a["k"] ?? "?")")
        }
        let groups = try #require(doc["groups"] as? [[String: Any]])
        #expect(groups.map { $0["name"] as? String } == ["all", "k=1", "k=10", "k=100"])
    }

    @Test func bboxAnswersMatchBruteForce() throws {
        let doc = try workload.bench(["bbox"])
        try BenchShape.checkQueryDocument(doc, command: "bbox", engine: "memory", workload: workload)
        let answers = try #require(doc["answers"] as? [[String: Any]])
        for (a, q) in zip(answers, workload.queries) {
            let e = workload.bruteBox(q)
            #expect(a["total"] as? Int == e.total, "qid \(q.qid)")
            #expect(a["checksum"] as? String == e.checksum, "qid \(q.qid)")
        }
    }

    @Test func sortFilterItemsMatchBruteForce() throws {
        let doc = try BenchTestWorkload.run(["bench", "sortfilter", "--places", workload.placesPath, "--runs", "2"])
        #expect(doc["command"] as? String == "sortfilter")
        let items = try #require(doc["items"] as? [[String: Any]])
        #expect(items.map { $0["name"] as? String } == ["a", "b", "c", "c-page", "d", "e", "f"])
        let expected = workload.bruteSortFilter()
        for item in items {
            let name = try #require(item["name"] as? String)
            let e = try #require(expected[name])
            #expect(item["rows"] as? Int == e.rows.count, "item \(name)")
            #expect(name == "c-page" ? item["total"] == nil : item["total"] as? Int == e.total, "item \(name)")
            #expect(item["checksum"] as? String == e.checksum, "item \(name)")
            #expect(item["runs"] as? Int == 2)
            #expect((item["medianMicros"] as? Double ?? -1) > 0)
        }
        // (d) asks for rows 1001-1100: the workload is big enough that the page is full.
        #expect(expected["d"]!.rows.count == 100)
    }

    @Test func carouselReportsThroughput() throws {
        let doc = try BenchTestWorkload.run(["bench", "carousel", "--events", "20000", "--runs", "2"])
        let c = try #require(doc["carousel"] as? [String: Any])
        #expect(c["events"] as? Int == 20000)
        #expect((c["eventsPerSecond"] as? Double ?? 0) > 0)
        // At most one selection per burst of 8 events (debounce), some dropped as repeats (distinct).
        let selections = c["selections"] as? Int ?? 0
        #expect(selections > 0 && selections <= 20000 / 8)
        #expect(c["requery"] == nil)
    }

    @Test func carouselTimesLocationRequeriesOnAWorkload() throws {
        let doc = try BenchTestWorkload.run(
            [
                "bench", "carousel", "--events", "1000", "--runs", "2", "--places", workload.placesPath, "--updates",
                "200",
            ])
        let r = try #require((doc["carousel"] as? [String: Any])?["requery"] as? [String: Any])
        #expect(r["places"] as? Int == workload.places.count)
        #expect(r["updates"] as? Int == 200)
        // 40 m steps through a 50 m filter: every second update re-queries (the first always does),
        // less one at each of the walk's three turns (it turns back every 50 updates): 100 - 3.
        #expect(r["queries"] as? Int == 97)
        #expect((r["microsPerQuery"] as? Double ?? 0) > 0)
    }

    @Test func reportWritesChartsAndTables() throws {
        var paths: [String] = []
        for (n, args) in [["radius"], ["knn"]].enumerated() {
            let path = workload.dir + "/doc\(n).json"
            let out = try BenchTestWorkload.runRaw(
                ["bench"] + args + ["--places", workload.placesPath, "--queries", workload.queriesPath])
            try out.stdout.write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
        }
        let charts = workload.dir + "/charts"
        let out = try BenchTestWorkload.runRaw(["bench", "report"] + paths + ["--svg", charts])
        #expect(out.status == 0)
        #expect(out.stdout.contains("#### radius, 3k places, 1 thread"))
        #expect(out.stdout.contains("#### knn, 3k places, 1 thread"))
        #expect(out.stdout.contains("| radius=500 |"))
        for name in ["latency-by-radius.svg", "throughput-vs-size.svg", "latency-vs-size.svg", "build-vs-size.svg"] {
            let svg = try String(contentsOfFile: charts + "/" + name, encoding: .utf8)
            #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""), "\(name)")
            #expect(svg.contains("<polyline"), "\(name)")
            #expect(svg.hasSuffix("</svg>\n"), "\(name)")
        }
    }

    @Test func badWorkloadLineIsNamedAndExitsTwo() throws {
        let bad = workload.dir + "/bad.queries.tsv"
        try "qid\tlat\tlon\tradius_m\tlimit\n1\t37.5\t127\t500\t0\n2\t37.5\tabc\t500\t0\n".write(
            toFile: bad, atomically: true, encoding: .utf8)
        let out = try BenchTestWorkload.runRaw(["bench", "radius", "--places", workload.placesPath, "--queries", bad])
        #expect(out.status == 2)
        #expect(out.stdout.isEmpty)
        #expect(out.stderr.contains("\(bad):3: lon: not a finite number: 'abc'"))
    }

    @Test func noProgressOnStderrWhenNotATerminal() throws {
        let out = try BenchTestWorkload.runRaw([
            "bench", "radius", "--places", workload.placesPath, "--queries", workload.queriesPath,
        ])
        #expect(out.status == 0)
        #expect(out.stderr.isEmpty)
        #expect(out.stdout.split(separator: "\n").count == 1)
    }
}

/// The documented JSON shape of the query commands (docs/bench-json.md).
enum BenchShape {
    static func checkQueryDocument(
        _ doc: [String: Any], command: String, engine: String,
        workload: BenchTestWorkload, perQuery: Int = 1
    ) throws {
        #expect(doc["schema"] as? String == "nearby-bench/1")
        #expect(doc["command"] as? String == command)
        #expect(doc["engine"] as? String == engine)
        #expect(doc["distance"] as? String == "haversine")
        let w = try #require(doc["workload"] as? [String: Any])
        #expect(w["placeCount"] as? Int == workload.places.count)
        #expect(w["queryCount"] as? Int == workload.queries.count)
        let machine = try #require(doc["machine"] as? [String: Any])
        #expect((machine["cores"] as? Int ?? 0) >= 1)
        let seconds = try #require(doc["seconds"] as? [String: Any])
        for key in ["load", "build", "queries"] { #expect(seconds[key] is Double, "seconds.\(key)") }
        let memory = try #require(doc["memory"] as? [String: Any])
        for key in ["beforeBuild", "afterBuild", "afterQueries"] {
            let m = try #require(memory[key] as? [String: Any], "memory.\(key)")
            #expect((m["rssKiB"] as? Int ?? 0) > 0)
            #expect((m["hwmKiB"] as? Int ?? 0) >= (m["rssKiB"] as? Int ?? 0))
        }
        let groups = try #require(doc["groups"] as? [[String: Any]])
        #expect(groups.first?["name"] as? String == "all")
        #expect(groups.first?["queries"] as? Int == workload.queries.count * perQuery)
        for g in groups {
            let l = try #require(g["latencyMicros"] as? [String: Any])
            let p = ["p50", "p90", "p99", "max"].map { l[$0] as? Double ?? -1 }
            #expect(p[0] >= 0 && p[0] <= p[1] && p[1] <= p[2] && p[2] <= p[3], "percentiles in order")
            #expect((g["queriesPerSecond"] as? Double ?? 0) > 0)
            #expect(g["totalResults"] is Int && g["totalMatches"] is Int)
        }
        let answers = try #require(doc["answers"] as? [[String: Any]])
        #expect(answers.count == workload.queries.count * perQuery)
    }
}

/// A small workload written to a temporary folder: 3,000 places in three clusters (Seoul, Busan and
/// a few on one duplicated coordinate, so distance ties are broken by id), and queries covering
/// radius 0, 500 m, 2 km and 20 km with limits 0, 30 and 100.
struct BenchTestWorkload {
    struct Query { var qid: Int, lat: Double, lon: Double, radius: Double, limit: Int }
    /// An answer: its total matches and its rows (ids, or item (f)'s "category:count" labels).
    struct Expected {
        var qid: Int, total: Int, rows: [String]
        init(qid: Int, total: Int, ids: [Int]) {
            self.qid = qid
            self.total = total
            rows = ids.map(String.init)
        }
        init(labels: [String], total: Int) {
            qid = 0
            self.total = total
            rows = labels
        }
        /// The workload README's checksum, computed independently of the CLI's streaming one.
        var checksum: String { String(SHA1.hex(rows.joined(separator: ",")).prefix(16)) }
    }

    let dir: String
    let places: [Place]
    let queries: [Query]
    var placesPath: String { dir + "/w.places.tsv" }
    var queriesPath: String { dir + "/w.queries.tsv" }
    static let duplicate = (lat: 37.5700, lon: 126.9800)

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("bench-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var rng = SplitMix64(seed: 5)
        let syllables = Array("가나다동리산강역시장공원길마을바위섬").map(String.init)
        let categories = [12, 14, 15, 25, 28, 32, 38, 39]
        func stamp(_ year: Int) -> String {
            String(
                format: "%04d%02d%02d%02d%02d%02d", year, Int.random(in: 1...12, using: &rng),
                Int.random(in: 1...28, using: &rng),
                Int.random(in: 0...23, using: &rng), Int.random(in: 0...59, using: &rng),
                Int.random(in: 0...59, using: &rng))
        }
        var places: [Place] = []
        for i in 1...3000 {
            let seoul = i % 3 != 0
            var lat = seoul ? 37.5665 : 35.1796
            var lon = seoul ? 126.9780 : 129.0756
            if i % 100 == 7 {
                (lat, lon) = Self.duplicate
            } else {
                lat += Double.random(in: -0.08...0.08, using: &rng)
                lon += Double.random(in: -0.1...0.1, using: &rng)
            }
            let title = (0..<3).map { _ in syllables.randomElement(using: &rng)! }.joined() + " \(i % 50)"
            let created = stamp(Int.random(in: 2013...2020, using: &rng))
            places.append(
                Place(
                    id: String(i), title: title, lat: (lat * 1e7).rounded() / 1e7, lon: (lon * 1e7).rounded() / 1e7,
                    category: categories.randomElement(using: &rng)!, created: created,
                    modified: max(created, stamp(Int.random(in: 2013...2022, using: &rng))),
                    areacode: seoul ? "11" : "26", sigungucode: seoul ? "11110" : "26110"))
        }
        self.places = places
        queries = [
            Query(qid: 1, lat: 37.5665, lon: 126.9780, radius: 500, limit: 0),
            Query(qid: 2, lat: 37.5665, lon: 126.9780, radius: 2000, limit: 30),
            Query(qid: 3, lat: 35.1796, lon: 129.0756, radius: 20000, limit: 100),
            Query(qid: 4, lat: 37.5600, lon: 126.9900, radius: 20000, limit: 0),
            Query(qid: 5, lat: Self.duplicate.lat, lon: Self.duplicate.lon, radius: 0, limit: 0),
            Query(qid: 6, lat: Self.duplicate.lat, lon: Self.duplicate.lon, radius: 500, limit: 30),
            Query(qid: 7, lat: 35.2000, lon: 129.1000, radius: 2000, limit: 0),
            Query(qid: 8, lat: 36.5000, lon: 128.0000, radius: 2000, limit: 30),
        ]
        var p = "id\tlat\tlon\tcategory\ttitle\tcreated\tmodified\tareacode\tsigungucode\n"
        for x in places {
            p +=
                "\(x.id)\t\(x.lat)\t\(x.lon)\t\(x.category)\t\(x.title)\t\(x.created!)\t\(x.modified!)\t\(x.areacode!)\t\(x.sigungucode!)\n"
        }
        try p.write(toFile: placesPath, atomically: true, encoding: .utf8)
        var q = "qid\tlat\tlon\tradius_m\tlimit\n"
        for x in queries { q += "\(x.qid)\t\(x.lat)\t\(x.lon)\t\(Int(x.radius))\t\(x.limit)\n" }
        try q.write(toFile: queriesPath, atomically: true, encoding: .utf8)
    }

    // MARK: brute force

    private func byDistance(_ lat: Double, _ lon: Double, _ keep: (Place) -> Bool) -> [(d: Double, id: Int)] {
        places.filter(keep).map { (Haversine.distance(lat1: lat, lon1: lon, lat2: $0.lat, lon2: $0.lon), Int($0.id)!) }
            .sorted { ($0.d, $0.id) < ($1.d, $1.id) }
    }

    private func cut(_ qid: Int, _ rows: [(d: Double, id: Int)], limit: Int) -> Expected {
        Expected(qid: qid, total: rows.count, ids: (limit > 0 ? Array(rows.prefix(limit)) : rows).map(\.id))
    }

    func bruteRadius(_ q: Query) -> Expected {
        cut(q.qid, byDistance(q.lat, q.lon) { _ in true }.filter { $0.d <= q.radius }, limit: q.limit)
    }

    func bruteNearest(_ q: Query, k: Int) -> Expected {
        let rows = Array(byDistance(q.lat, q.lon) { _ in true }.prefix(k))
        return Expected(qid: q.qid, total: rows.count, ids: rows.map(\.id))
    }

    /// The box of `nearby bench bbox --help`: lat ± r/R, lon ± r/(R cos lat), in degrees.
    func bruteBox(_ q: Query) -> Expected {
        let dLat = q.radius / 6_371_008.8 * 180 / .pi
        let dLon = dLat / cos(q.lat * .pi / 180)
        let rows = byDistance(q.lat, q.lon) {
            abs($0.lat - q.lat) <= dLat && $0.lon >= q.lon - dLon && $0.lon <= q.lon + dLon
        }
        return cut(q.qid, rows, limit: q.limit)
    }

    /// Items (a)-(f) of `nearby bench sortfilter`, by sorting and filtering plain arrays.
    func bruteSortFilter() -> [String: Expected] {
        func id(_ p: Place) -> Int { Int(p.id)! }
        func byTitle(_ a: Place, _ b: Place) -> Bool {
            let ka = KoreanCollation.sortKey(a.title)
            let kb = KoreanCollation.sortKey(b.title)
            return ka != kb ? ka.lexicographicallyPrecedes(kb) : id(a) < id(b)
        }
        func page(_ rows: [Place], total: Int? = nil, drop: Int = 0, _ n: Int) -> Expected {
            Expected(qid: 0, total: total ?? rows.count, ids: rows.dropFirst(drop).prefix(n).map(id))
        }
        let a = places.sorted(by: byTitle)
        let b = places.filter { [12, 39].contains($0.category) }
            .sorted { $0.modified! != $1.modified! ? $0.modified! > $1.modified! : id($0) < id($1) }
        let c = places.filter { $0.areacode == "11" && $0.title.contains("동") }.sorted(by: byTitle)
        let d = places.filter { ("20150101000000"..."20181231235959").contains($0.created!) }
            .sorted { $0.created! != $1.created! ? $0.created! < $1.created! : id($0) < id($1) }
        let e = byDistance(37.5665, 126.9780) { $0.category == 39 }.filter { $0.d <= 2000 }
        let counts = [12, 14, 15, 25, 28, 32, 38, 39].map { c in places.filter { $0.category == c }.count }
        let f = zip([12, 14, 15, 25, 28, 32, 38, 39], counts).map { "\($0):\($1)" }
        return [
            "a": page(a, a.count), "b": page(b, 30), "c": page(c, 30), "c-page": page(c, 30),
            "d": page(d, drop: 1000, 100),
            "e": cut(0, e, limit: 30), "f": Expected(labels: f, total: places.count),
        ]
    }

    // MARK: running the CLI

    /// `nearby bench <command> --places … --queries … <more>`, parsed.
    func bench(_ args: [String]) throws -> [String: Any] {
        try Self.run(["bench", args[0], "--places", placesPath, "--queries", queriesPath] + args.dropFirst())
    }

    static func run(_ args: [String]) throws -> [String: Any] {
        let out = try runRaw(args)
        try #require(out.status == 0, "nearby \(args.joined(separator: " ")) failed: \(out.stderr)")
        return try #require(JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
    }

    static func runRaw(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = args
        // Output goes to files, not pipes: a large document cannot fill a pipe and block the child.
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("bench-run-\(UUID().uuidString)").path
        _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: base + ".err", contents: nil)
        defer { for ext in [".out", ".err"] { try? FileManager.default.removeItem(atPath: base + ext) } }
        process.standardOutput = FileHandle(forWritingAtPath: base + ".out")
        process.standardError = FileHandle(forWritingAtPath: base + ".err")
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus, try String(contentsOfFile: base + ".out", encoding: .utf8),
            try String(contentsOfFile: base + ".err", encoding: .utf8)
        )
    }

    /// The built `nearby` next to the test bundle (.build/<config>/).
    static let binary: URL = {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("nearby").path)
            && dir.path != "/"
        {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("nearby")
    }()
}
