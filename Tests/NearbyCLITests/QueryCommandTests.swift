import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

/// `nearby query` run as a subprocess on a real cache built by `nearby import`.
@Suite(.serialized) struct QueryCommandTests {

    /// 400 places on a grid around Seoul City Hall, written as the workload TSV and imported once.
    static let folder = try! TempFolder()
    static let db: String = {
        var tsv = "id\tlat\tlon\tcategory\ttitle\tcreated\tmodified\tareacode\tsigungucode\n"
        let categories = [12, 14, 15, 39]
        let names = ["경복궁", "광화문", "서울역", "남산", "cafe", "Seoul"]
        for i in 1...400 {
            let lat = 37.55 + Double(i % 20) * 0.002
            let lon = 126.96 + Double(i / 20) * 0.002
            let day = 10 + i % 18
            tsv +=
                "\(i)\t\(lat)\t\(lon)\t\(categories[i % 4])\t\(names[i % 6]) \(i % 7)\t202301\(day)120000\t202405\(day)120000\t11\t\(11110 + i % 3)\n"
        }
        let db = folder.file("cache.sqlite")
        let r = try! CLIRunner.run(["import", "--db", db, folder.write("places.tsv", tsv)])
        precondition(r.status == 0, r.stderr)
        return db
    }()

    func query(_ arguments: [String]) throws -> CLIResult { try CLIRunner.run(["query", "--db", Self.db] + arguments) }

    /// Every `OutputFormat` is a `--format` value, and each writes the same places.
    @Test(arguments: OutputFormat.allCases)
    func everyFormatWritesThePlaces(_ format: OutputFormat) throws {
        let seoul = ["--lat", "37.5665", "--lon", "126.978", "--radius", "1000", "--limit", "3"]
        let ids = try objects(query(seoul).output).compactMap { $0["id"] as? String }
        #expect(ids.count == 3)
        let r = try query(seoul + ["--format", format.rawValue])
        #expect(r.status == 0, "\(format): \(r.stderr)")
        let tokens = Set(r.output.split { !$0.isLetter && !$0.isNumber }.map(String.init))
        for id in ids { #expect(tokens.contains(id), "--format \(format) lacks place \(id): \(r.output.prefix(300))") }
    }

    func objects(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    let seoul = ["--lat", "37.5665", "--lon", "126.978"]

    @Test func radiusQueryWritesPlacesByDistanceAfterAMetaLine() throws {
        let r = try query(seoul + ["--radius", "1500", "--limit", "30", "--meta", "--category", "12,39"])
        #expect(r.status == 0 && r.stderr.isEmpty)
        let lines = objects(r.output)
        let meta = lines[0]
        #expect(Set(meta.keys) == ["total", "page", "limit", "returned", "nextCursor", "tookMs"])
        let rows = lines.dropFirst()
        #expect(meta["returned"] as? Int == rows.count && rows.count == 30 && (meta["total"] as! Int) > 30)
        let distances = rows.map { $0["distance"] as! Double }
        #expect(distances == distances.sorted() && distances.last! <= 1500)
        #expect(
            rows.allSatisfy {
                [12, 39].contains($0["category"] as! Int) && $0["title"] is String && $0["modified"] is String
            })
    }

    @Test func explainWritesThePlanBeforeTheAnswerAndChangesNoRow() throws {
        let sorted = ["--category", "12,39", "--sort", "-modified", "--limit", "5", "--fields", "id"]
        let r = try query(sorted + ["--explain", "--meta"])
        #expect(r.status == 0 && r.stderr.isEmpty)
        let lines = objects(r.output)
        #expect(Set(lines[0].keys) == ["plan", "rowsTouched"])
        #expect((lines[0]["plan"] as? String)?.hasPrefix("order walk: modified descending") == true, "\(lines[0])")
        #expect(lines[1]["total"] as? Int == 200)
        #expect(
            Array(r.output.split(separator: "\n").dropFirst(2)) == (try query(sorted)).output.split(separator: "\n"))
        // A batch line asks for it the same way; other formats refuse it.
        let batch = try Self.folder.write(
            "explain.jsonl", "{\"qid\":\"q\",\"category\":\"39\",\"limit\":1,\"explain\":true}\n")
        let b = objects(try query(["--queries", batch, "--fields", "qid,id"]).output)
        #expect(
            b[0]["qid"] as? String == "q" && (b[0]["plan"] as? String)?.contains("total: category statistics") == true,
            "\(b)")
        let table = try query(Array(sorted.dropLast(2)) + ["--explain", "--format", "table"])
        #expect(table.status == 2 && table.stderr.contains("--explain"))
    }

    /// `--total none`: the meta line's total is null, the rows and the cursor are those of the counted
    /// query, on every engine; a word other than exact or none is a usage error.
    @Test func totalNoneLeavesTheTotalOutAndChangesNoRow() throws {
        let page = ["--keyword", "경복", "--sort", "title", "--limit", "7", "--page", "2", "--fields", "id", "--meta"]
        for engine in ["snapshot", "memory", "sqlite"] {
            let counted = try query(page + ["--engine", engine])
            let uncounted = try query(page + ["--engine", engine, "--total", "none"])
            #expect(counted.status == 0 && uncounted.status == 0, "\(engine): \(uncounted.stderr)")
            let (c, u) = (objects(counted.output), objects(uncounted.output))
            #expect((c[0]["total"] as? Int ?? 0) > 14 && u[0]["total"] is NSNull, "\(engine): \(u[0])")
            #expect(
                u[0]["nextCursor"] as? String == c[0]["nextCursor"] as? String
                    && u.dropFirst().map { $0["id"] as! String } == c.dropFirst().map { $0["id"] as! String })
        }
        let bad = try query(page + ["--total", "some"])
        #expect(bad.status == 2 && bad.stderr.contains("total"), "\(bad.stderr)")
    }

    @Test func bothEnginesWriteTheSameBytes() throws {
        for extra in [
            ["--radius", "2500", "--sort", "title,-modified", "--limit", "25", "--page", "2"],
            ["--knn", "17", "--keyword", "ㄱㅂㄱ"], ["--arrange", "C", "--limit", "10"],
            ["--radius", "900", "--distance", "geodesic"], ["--radius", "900", "--distance", "projected"],
        ] {
            let m = try query(seoul + extra)
            let s = try query(seoul + extra + ["--engine", "sqlite"])
            #expect(m.status == 0 && !m.output.isEmpty && m.output == s.output, "\(extra)")
        }
    }

    @Test func cursorPagesConcatenateToTheWholeAnswer() throws {
        let all = objects(try query(seoul + ["--radius", "1200", "--sort", "-created,title", "--limit", "0"]).output)
            .map { $0["id"] as! String }
        var ids: [String] = []
        var cursor: String?
        repeat {
            let r = try query(
                seoul + ["--radius", "1200", "--sort", "-created,title", "--limit", "13", "--meta"]
                    + (cursor.map { ["--cursor", $0] } ?? []))
            let lines = objects(r.output)
            cursor = lines[0]["nextCursor"] as? String
            ids += lines.dropFirst().map { $0["id"] as! String }
        } while cursor != nil
        #expect(ids == all && all.count > 13)
    }

    @Test func usageErrorsAreOneLineAndExitTwo() throws {
        let cases: [([String], String)] = [
            (["--lat", "91", "--lon", "0"], "--lat"),
            (["--lat", "37", "--lon", "200"], "--lon"),
            (seoul + ["--radius", "-5"], "--radius: must be a finite number of metres ≥ 0"),
            (seoul + ["--radius", "inf"], "finite"),
            (["--category", "12,x"], "--category"),
            (seoul + ["--distance", "projected:EPSG:99999"], "CRS"),
            (["--sort", "distance"], "centre"),
            (["--radius", "100"], "centre"),
            (["--accessible", "wheelchair,teleporter"], "teleporter"),
            (seoul + ["--sort", "title", "--arrange", "A"], "--arrange"),
            (["--date", "2025-02-32"], "--date"),
            (["--fields", ""], "--fields"),
            (["--category", "-1x"], "--category"),
            (["--bbox", "1,2,3"], "--bbox"),
            (["--limit", "5", "--cursor", "bm9wZQ"], "cursor"),
            (["--format", "table", "--fields", "id"], "--fields"),
            (["--format", "geojson", "--meta"], "--meta"),
        ]
        for (arguments, word) in cases {
            let r = try query(arguments)
            #expect(r.status == 2 && r.output.isEmpty, "\(arguments)")
            #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(word), "\(arguments): \(r.stderr)")
        }
        let empty = try query(seoul + ["--radius", "0"])
        #expect(empty.status == 0 && empty.output.isEmpty)
    }

    @Test func batchTSVAnswersEachQueryWithItsQid() throws {
        let dir = try TempFolder()
        let file = try dir.write(
            "queries.tsv",
            "qid\tlat\tlon\tradius_m\tlimit\n1\t37.5665\t126.978\t800\t0\n2\t37.56\t126.97\t2000\t5\n3\t0\t0\t10\t0\n")
        let r = try query(["--queries", file, "--fields", "qid,id,distance"])
        #expect(r.status == 0)
        let rows = objects(r.output)
        #expect(rows.allSatisfy { Set($0.keys) == ["qid", "id", "distance"] })
        let single = objects(try query(seoul + ["--radius", "800", "--limit", "0"]).output).map { $0["id"] as! String }
        #expect(rows.filter { $0["qid"] as? Int == 1 }.map { $0["id"] as! String } == single)
        #expect(rows.filter { $0["qid"] as? Int == 2 }.count == 5)
        #expect(!rows.contains { $0["qid"] as? Int == 3 })
        // The qid comes first on every line, as the benchmark tools expect.
        #expect(r.output.split(separator: "\n").allSatisfy { $0.hasPrefix("{\"qid\":") })
    }

    @Test func batchJSONLinesTakeOptionNamesAndReportBadLines() throws {
        let dir = try TempFolder()
        let file = try dir.write(
            "queries.jsonl",
            """
            {"qid":"a","lat":37.5665,"lon":126.978,"radius":1000,"category":[12,39],"sort":"title","limit":4}
            {"qid":"b","lat":37.5665,"lon":126.978,"knn":3,"withImage":false,"distance":"geodesic"}
            """)
        let r = try query(["--queries", file, "--meta"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = objects(r.output)
        #expect(lines.filter { $0["qid"] as? String == "a" && $0["id"] != nil }.count == 4)
        #expect(lines.filter { $0["qid"] as? String == "b" && $0["id"] != nil }.count == 3)
        #expect(lines.filter { $0["total"] != nil }.count == 2)
        let a = objects(
            try query(seoul + ["--radius", "1000", "--category", "12,39", "--sort", "title", "--limit", "4"]).output)
        #expect(
            lines.filter { $0["qid"] as? String == "a" && $0["id"] != nil }.map { $0["id"] as! String }
                == a.map { $0["id"] as! String })

        let badFile = try dir.write(
            "bad.jsonl", "{\"qid\":1,\"lat\":37.5,\"lon\":127,\"radius\":100}\n{\"qid\":2,\"lat\":95,\"lon\":127}\n")
        let bad = try query(["--queries", badFile])
        #expect(
            bad.status == 2 && bad.output.isEmpty && bad.stderr.contains("\(badFile):2: lat: 95.0 is outside"),
            "\(bad.stderr)")
    }

    @Test func otherFormats() throws {
        let json = try query(seoul + ["--radius", "500", "--format", "json", "--meta"])
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as! [String: Any]
        #expect((object["places"] as! [Any]).count == object["returned"] as! Int)
        let geo = try query(seoul + ["--radius", "500", "--format", "geojson"])
        let fc = try JSONSerialization.jsonObject(with: Data(geo.output.utf8)) as! [String: Any]
        #expect(
            fc["type"] as? String == "FeatureCollection"
                && (fc["features"] as! [Any]).count == object["returned"] as! Int)
        #expect(geo.output.hasSuffix("]}\n") && !geo.output.hasSuffix("\n\n"))
        let table = try query(seoul + ["--radius", "500", "--format", "table", "--limit", "3"])
        #expect(table.status == 0 && table.output.contains("matches") && table.output.contains("next page"))
        let help = try CLIRunner.run(["query", "--help"])
        #expect(help.status == 0 && help.output.contains("--arrange") && help.output.contains("Examples"))
    }

    @Test func negativeValuesNeedNoEqualsSign() throws {
        // Southern and western hemispheres: places 100 m apart along a meridian from each centre.
        let dir = try TempFolder()
        var tsv = "id\tlat\tlon\tcategory\ttitle\tcreated\tmodified\tareacode\tsigungucode\n"
        for (n, (lat, lon)) in [(-33.86, 151.21), (-22.9, -43.2), (40.7, -74.0)].enumerated() {
            for i in 0..<10 {
                tsv +=
                    "\(n * 100 + i)\t\(lat + Double(i) * 0.0009)\t\(lon)\t12\tp\t20240101000000\t20240101000000\t\t\n"
            }
        }
        let db = dir.file("world.sqlite")
        #expect(try CLIRunner.run(["import", "--db", db, dir.write("world.tsv", tsv)]).status == 0)
        for (centre, first) in [(["-33.86", "151.21"], 0), (["-22.9", "-43.2"], 100), (["40.7", "-74.0"], 200)] {
            let r = try CLIRunner.run(["query", "--db", db, "--lat", centre[0], "--lon", centre[1], "--radius", "450"])
            #expect(r.status == 0, "\(centre): \(r.stderr)")
            // 0.0009° of latitude is about 100 m: points 0…4 lie within 450 m, in that order.
            #expect(objects(r.output).map { $0["id"] as! String } == (first..<first + 5).map(String.init), "\(centre)")
        }
        let box = try CLIRunner.run([
            "query", "--db", db, "--bbox", "-43.3,-23,-43.1,-22", "--sort", "-title", "--limit", "0",
        ])
        #expect(objects(box.output).count == 10, "\(box.stderr)")
    }

    @Test func descendingFirstSortKeyNeedsNoEqualsSign() throws {
        let rows = objects(try query(seoul + ["--radius", "1200", "--sort", "-created", "--limit", "0"]).output)
        #expect(rows.count > 20)
        // Newest first; equal timestamps by id (integers as numbers).
        for (a, b) in zip(rows, rows.dropFirst()) {
            let (ca, cb) = (a["created"] as! String, b["created"] as! String)
            #expect(
                ca > cb || (ca == cb && Int(a["id"] as! String)! < Int(b["id"] as! String)!),
                "\(a["id"]!) before \(b["id"]!)")
        }
    }

    @Test func tableColumnsAlignWithWideCharactersAndCutNothing() throws {
        let dir = try TempFolder()
        let ids = ["경복궁", "x", "an-identifier-longer-than-ten", "서울1"]
        let lines = ids.enumerated().map { n, id in
            #"{"id":"\#(id)","title":"제목 \#(n)","lat":\#(37.5665 + Double(n) * 0.001),"lon":126.978,"category":\#(n == 1 ? 1234 : 12)}"#
        }
        let db = dir.file("wide.sqlite")
        #expect(
            try CLIRunner.run(["import", "--db", db, dir.write("wide.jsonl", lines.joined(separator: "\n"))]).status
                == 0)
        let table = try CLIRunner.run(["query", "--db", db] + seoul + ["--radius", "1000", "--format", "table"])
        let rows = table.output.split(separator: "\n").dropFirst().map(String.init)
        #expect(rows.count == 5, "\(table.output)")
        // Terminal columns before the title: Hangul syllables take two, these ASCII characters one.
        func columns(_ s: Substring) -> Int {
            s.unicodeScalars.count + s.unicodeScalars.filter { (0xAC00...0xD7A3).contains($0.value) }.count
        }
        let starts = rows.map { row in
            columns(row[..<row.range(of: row.hasPrefix("distance") ? "title" : "제목")!.lowerBound])
        }
        #expect(Set(starts).count == 1, "\(table.output)")
        for id in ids + ["1234"] { #expect(rows.contains { $0.contains(" \(id) ") }, "\(id) cut: \(table.output)") }
        // Without a centre there is no distance column.
        let plain = try CLIRunner.run(["query", "--db", db, "--format", "table"]).output.split(separator: "\n")
        #expect(plain[1].hasPrefix("cat  ") && plain.count == 6, "\(plain)")
    }

    /// Batch lines get the same messages as flags, always with `file:line`, whatever the line's fault.
    @Test func badBatchLinesNameTheirLine() throws {
        let dir = try TempFolder()
        let cases: [(String, String)] = [
            (#"{"qid":1,"lat":NaN,"lon":127}"#, "not valid JSON"),
            (#"{"qid":1,"lat":1e999,"lon":127}"#, #"lat: "1e999" is not a finite number"#),
            ("{\"qid\":\"a\u{FF}b\",\"lat\":37.5,\"lon\":127}", "invalid UTF-8"),
            (#"{"qid":1,"page":99999999,"limit":100}"#, "page: page × limit is too large"),
            (#"{"qid":1,"lat":37.5,"lon":127,"radius":2000,"limit":5,"cursor":"bm9wZQ"}"#, "cursor: malformed cursor"),
        ]
        for (n, (line, message)) in cases.enumerated() {
            var bytes = Array("{\"qid\":0,\"lat\":37.5,\"lon\":127,\"radius\":100}\n".utf8)
            bytes +=
                line == cases[2].0
                ? Array(#"{"qid":"a"#.utf8) + [0xFF] + Array(#"b","lat":37.5,"lon":127}"#.utf8) : Array(line.utf8)
            let file = dir.file("bad\(n).jsonl")
            FileManager.default.createFile(atPath: file, contents: Data(bytes))
            let r = try query(["--queries", file])
            #expect(
                r.status == 2 && r.stderr.contains("\(file):2: ") && r.stderr.contains(message), "\(line): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        }
    }
}
