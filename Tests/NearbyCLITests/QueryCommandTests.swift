import Foundation
import Testing

/// `nearby query` run as a subprocess on a real cache built by `nearby import`.
@Suite(.serialized) struct QueryCommandTests {
    struct Result { var status: Int32; var stdout: String; var stderr: String }

    /// 400 places on a grid around Seoul City Hall, written as the workload TSV and imported once.
    static let db: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nearby-query-cli-\(UUID())")
        try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var tsv = "id\tlat\tlon\tcategory\ttitle\tcreated\tmodified\tareacode\tsigungucode\n"
        let categories = [12, 14, 15, 39]
        let names = ["경복궁", "광화문", "서울역", "남산", "cafe", "Seoul"]
        for i in 1...400 {
            let lat = 37.55 + Double(i % 20) * 0.002, lon = 126.96 + Double(i / 20) * 0.002
            let day = 10 + i % 18
            tsv += "\(i)\t\(lat)\t\(lon)\t\(categories[i % 4])\t\(names[i % 6]) \(i % 7)\t202301\(day)120000\t202405\(day)120000\t11\t\(11110 + i % 3)\n"
        }
        let file = dir.appendingPathComponent("places.tsv")
        try! tsv.write(to: file, atomically: true, encoding: .utf8)
        let db = dir.appendingPathComponent("cache.sqlite").path
        let r = try! run(["import", "--db", db, file.path])
        precondition(r.status == 0, r.stderr)
        return db
    }()

    static func run(_ arguments: [String], stdin: String = "") throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("nearby")
        process.arguments = arguments
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                      stderr: String(decoding: err, as: UTF8.self))
    }

    func query(_ arguments: [String]) throws -> Result { try Self.run(["query", "--db", Self.db] + arguments) }

    func objects(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    let seoul = ["--lat", "37.5665", "--lon", "126.978"]

    @Test func radiusQueryWritesPlacesByDistanceAfterAMetaLine() throws {
        let r = try query(seoul + ["--radius", "1500", "--limit", "30", "--meta", "--category", "12,39"])
        #expect(r.status == 0 && r.stderr.isEmpty)
        let lines = objects(r.stdout)
        let meta = lines[0]
        #expect(Set(meta.keys) == ["total", "page", "limit", "returned", "nextCursor", "tookMs"])
        let rows = lines.dropFirst()
        #expect(meta["returned"] as? Int == rows.count && rows.count == 30 && (meta["total"] as! Int) > 30)
        let distances = rows.map { $0["distance"] as! Double }
        #expect(distances == distances.sorted() && distances.last! <= 1500)
        #expect(rows.allSatisfy { [12, 39].contains($0["category"] as! Int) && $0["title"] is String && $0["modified"] is String })
    }

    @Test func bothEnginesWriteTheSameBytes() throws {
        for extra in [["--radius", "2500", "--sort", "title,-modified", "--limit", "25", "--page", "2"],
                      ["--knn", "17", "--keyword", "ㄱㅂㄱ"], ["--arrange", "C", "--limit", "10"],
                      ["--radius", "900", "--distance", "geodesic"], ["--radius", "900", "--distance", "projected"]] {
            let m = try query(seoul + extra), s = try query(seoul + extra + ["--engine", "sqlite"])
            #expect(m.status == 0 && !m.stdout.isEmpty && m.stdout == s.stdout, "\(extra)")
        }
    }

    @Test func cursorPagesConcatenateToTheWholeAnswer() throws {
        let all = objects(try query(seoul + ["--radius", "1200", "--sort=-created,title"]).stdout).map { $0["id"] as! String }
        var ids: [String] = [], cursor: String?
        repeat {
            let r = try query(seoul + ["--radius", "1200", "--sort=-created,title", "--limit", "13", "--meta"] + (cursor.map { ["--cursor", $0] } ?? []))
            let lines = objects(r.stdout)
            cursor = lines[0]["nextCursor"] as? String
            ids += lines.dropFirst().map { $0["id"] as! String }
        } while cursor != nil
        #expect(ids == all && all.count > 13)
    }

    @Test func usageErrorsAreOneLineAndExitTwo() throws {
        let cases: [([String], String)] = [
            (["--lat", "91", "--lon", "0"], "--lat"),
            (["--lat", "37", "--lon", "200"], "--lon"),
            (seoul + ["--radius=-5"], "negative"),
            (seoul + ["--radius", "inf"], "finite"),
            (["--category", "12,x"], "--category"),
            (seoul + ["--distance", "projected:EPSG:99999"], "CRS"),
            (["--sort", "distance"], "centre"),
            (["--radius", "100"], "centre"),
            (["--accessible", "wheelchair,teleporter"], "teleporter"),
            (seoul + ["--sort", "title", "--arrange", "A"], "--arrange"),
            (["--date", "2025-02-31"], "--date"),
            (["--bbox", "1,2,3"], "--bbox"),
            (["--limit", "5", "--cursor", "bm9wZQ"], "cursor"),
        ]
        for (arguments, word) in cases {
            let r = try query(arguments)
            #expect(r.status == 2 && r.stdout.isEmpty, "\(arguments)")
            #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(word), "\(arguments): \(r.stderr)")
        }
        let empty = try query(seoul + ["--radius", "0"])
        #expect(empty.status == 0 && empty.stdout.isEmpty)
    }

    @Test func batchTSVAnswersEachQueryWithItsQid() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nearby-queries-\(UUID()).tsv")
        defer { try? FileManager.default.removeItem(at: file) }
        try "qid\tlat\tlon\tradius_m\tlimit\n1\t37.5665\t126.978\t800\t0\n2\t37.56\t126.97\t2000\t5\n3\t0\t0\t10\t0\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let r = try query(["--queries", file.path, "--fields", "qid,id,distance"])
        #expect(r.status == 0)
        let rows = objects(r.stdout)
        #expect(rows.allSatisfy { Set($0.keys) == ["qid", "id", "distance"] })
        let single = objects(try query(seoul + ["--radius", "800"]).stdout).map { $0["id"] as! String }
        #expect(rows.filter { $0["qid"] as? Int == 1 }.map { $0["id"] as! String } == single)
        #expect(rows.filter { $0["qid"] as? Int == 2 }.count == 5)
        #expect(!rows.contains { $0["qid"] as? Int == 3 })
        // The qid comes first on every line, as the benchmark tools expect.
        #expect(r.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("{\"qid\":") })
    }

    @Test func batchJSONLinesTakeOptionNamesAndReportBadLines() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nearby-queries-\(UUID()).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        try """
            {"qid":"a","lat":37.5665,"lon":126.978,"radius":1000,"category":[12,39],"sort":"title","limit":4}
            {"qid":"b","lat":37.5665,"lon":126.978,"knn":3,"withImage":false,"distance":"geodesic"}
            """.write(to: file, atomically: true, encoding: .utf8)
        let r = try query(["--queries", file.path, "--meta"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = objects(r.stdout)
        #expect(lines.filter { $0["qid"] as? String == "a" && $0["id"] != nil }.count == 4)
        #expect(lines.filter { $0["qid"] as? String == "b" && $0["id"] != nil }.count == 3)
        #expect(lines.filter { $0["total"] != nil }.count == 2)
        let a = objects(try query(seoul + ["--radius", "1000", "--category", "12,39", "--sort", "title", "--limit", "4"]).stdout)
        #expect(lines.filter { $0["qid"] as? String == "a" && $0["id"] != nil }.map { $0["id"] as! String } == a.map { $0["id"] as! String })

        try "{\"qid\":1,\"lat\":37.5,\"lon\":127,\"radius\":100}\n{\"qid\":2,\"lat\":95,\"lon\":127}\n".write(to: file, atomically: true, encoding: .utf8)
        let bad = try query(["--queries", file.path])
        #expect(bad.status == 2 && bad.stdout.isEmpty && bad.stderr.contains("\(file.path):2: --lat"))
    }

    @Test func otherFormats() throws {
        let json = try query(seoul + ["--radius", "500", "--format", "json", "--meta"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        #expect((object["places"] as! [Any]).count == object["returned"] as! Int)
        let geo = try query(seoul + ["--radius", "500", "--format", "geojson"])
        let fc = try JSONSerialization.jsonObject(with: Data(geo.stdout.utf8)) as! [String: Any]
        #expect(fc["type"] as? String == "FeatureCollection" && (fc["features"] as! [Any]).count == object["returned"] as! Int)
        let table = try query(seoul + ["--radius", "500", "--format", "table", "--limit", "3"])
        #expect(table.status == 0 && table.stdout.contains("matches") && table.stdout.contains("next page"))
        let help = try Self.run(["query", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--arrange") && help.stdout.contains("Examples"))
    }
}
