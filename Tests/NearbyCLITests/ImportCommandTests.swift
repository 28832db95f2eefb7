import Foundation
import NearbyTestSupport
import Testing

/// The summary line of `nearby import`, decoded.
func summary(_ result: CLIResult) throws -> [String: Any] {
    let line = try #require(result.lines.last)
    return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
}

func counts(_ result: CLIResult) throws -> [String: Int] {
    let s = try summary(result)
    var c: [String: Int] = [:]
    for key in ["inserted", "updated", "unchanged", "older", "deleted", "rejected", "pending"] {
        c[key] = s[key] as? Int
    }
    return c
}

/// Canonical JSON lines (the exact form `nearby export` writes), sorted by id: every field, escapes,
/// Korean text, accessibility tags, and coordinates at the edges.
let canonicalLines = [
    #"{"id":"a1","title":"경복궁 \"정문\" \\ 광화문","lat":37.5796171234567,"lon":126.977040123456,"category":12,"#
        + #""created":"20100101090000","modified":"20240131235959","areacode":"1","sigungucode":"23","#
        + #""addr":"서울특별시 종로구 사직로 161","tel":"02-3700-3900","image":"http://tong.visitkorea.or.kr/cms/a.jpg","#
        + #""cat1":"A02","cat2":"A0201","cat3":"A02010100","eventStart":"20240501","eventEnd":"20240505","#
        + #""accessibility":["elevator","wheelchair"],"lDongRegnCd":"11","lDongSignguCd":"110","#
        + #""lclsSystm1":"HS","lclsSystm2":"HS01","lclsSystm3":"HS010100"}"#,
    #"{"id":"b2","title":"Bare","lat":-33.8688,"lon":151.2093,"category":99}"#,
    #"{"id":"c3","title":"Antimeridian","lat":-16.5,"lon":179.999999,"category":39,"modified":"20200101000000"}"#,
    #"{"id":"d4","title":"Pole","lat":89.9999999,"lon":-179.999999,"category":15,"created":"20240101000000","modified":"20240101000000"}"#,
]

@Suite struct ImportCommandTests {
    /// `--verbose` times the steps on stderr, in order, and leaves stdout's summary line alone.
    @Test func verboseTimesEachStep() throws {
        let dir = try TempFolder()
        let input = try dir.write("in.jsonl", canonicalLines.joined(separator: "\n") + "\n")
        let r = try CLIRunner.run(["import", "--verbose", "--db", dir.file("a.sqlite"), input])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try counts(r)["inserted"] == canonicalLines.count)
        let steps = r.stderr.split(separator: "\n").compactMap { line -> (Double, String)? in
            let parts = line.split(separator: " ", maxSplits: 3)
            guard parts.count == 4, parts[0] == "nearby", parts[1] == "import:", parts[3].hasPrefix("s: "),
                let t = Double(parts[2])
            else { return nil }
            return (t, String(parts[3].dropFirst(3)))
        }
        #expect(steps.count == 4 && steps[0].1.hasSuffix("in.jsonl: reading"), "\(r.stderr)")
        #expect(
            steps.dropFirst().map(\.1) == [
                "updating the spatial index and committing", "writing the index snapshot", "done",
            ], "\(r.stderr)")
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.0 <= $1.0 }, "\(r.stderr)")
    }

    @Test func exportThenImportRoundTripsEveryField() throws {
        let dir = try TempFolder()
        let input = try dir.write("in.jsonl", canonicalLines.reversed().joined(separator: "\n") + "\n")
        let first = try CLIRunner.run(["import", "--db", dir.file("a.sqlite"), input])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try counts(first)["inserted"] == canonicalLines.count)

        let jsonl = try CLIRunner.run(["export", "--db", dir.file("a.sqlite")])
        #expect(jsonl.status == 0)
        #expect(jsonl.lines == canonicalLines)

        // JSON lines → a second cache, GeoJSON → a third: both export the same bytes.
        let geojson = try CLIRunner.run(["export", "--db", dir.file("a.sqlite"), "--format", "geojson"])
        #expect(geojson.output.hasPrefix(#"{"type":"FeatureCollection""#))
        for (db, data) in [("b.sqlite", jsonl.stdout), ("c.sqlite", geojson.stdout)] {
            let again = try CLIRunner.run(["import", "--db", dir.file(db), "-"], stdin: data)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try CLIRunner.run(["export", "--db", dir.file(db)]).stdout == jsonl.stdout)
        }
    }

    @Test func upsertRulesAndDeletesAreCounted() throws {
        let dir = try TempFolder()
        let db = dir.file("c.sqlite")
        _ = try CLIRunner.run(["import", "--db", db, dir.write("base.jsonl", canonicalLines.joined(separator: "\n"))])
        let changes = try dir.write(
            "changes.jsonl",
            [
                #"{"id":"a1","title":"newer","lat":37.5,"lon":127.0,"category":12,"modified":"20250101000000"}"#,
                #"{"id":"c3","title":"older","lat":1.5,"lon":1.5,"category":39,"modified":"20191231235959"}"#,
                #"{"id":"d4","title":"same time, new title","lat":1.5,"lon":1.5,"category":15,"modified":"20240101000000"}"#,
                canonicalLines[1],
                #"{"id":"e5","title":"new","lat":10.25,"lon":20.75,"category":28}"#,
            ].joined(separator: "\n"))
        let sync = try dir.write(
            "sync.json",
            """
            {"response":{"header":{"resultCode":"0000","resultMsg":"OK"},"body":{"items":{"item":[
            {"contentid":"b2","showflag":"0","title":"Bare","mapx":"151.2093","mapy":"-33.8688","contenttypeid":"99"},
            {"contentid":"zz","showflag":"0","title":"never cached","mapx":"1.5","mapy":"1.5","contenttypeid":"12"}
            ]},"numOfRows":2,"pageNo":1,"totalCount":2}}}
            """)
        let result = try CLIRunner.run(["import", "--db", db, changes, sync])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try counts(result) == [
                "inserted": 1, "updated": 2, "unchanged": 2, "older": 1, "deleted": 1, "rejected": 0, "pending": 0,
            ])
        let files = try #require(try summary(result)["files"] as? [[String: Any]])
        #expect(files.map { $0["format"] as? String } == ["jsonl", "tourapi"])
        let titles = try CLIRunner.run(["export", "--db", db]).lines.map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return "\(object["id"]!)=\(object["title"]!)"
        }
        #expect(titles == ["a1=newer", "c3=Antimeridian", "d4=same time, new title", "e5=new"])
    }

    @Test func badRecordsAreReportedCappedAndCounted() throws {
        let dir = try TempFolder()
        var rows = ["id\tlat\tlon\tcategory\ttitle", "ok1\t37.5\t127.25\t12\tgood"]
        for i in 0..<25 { rows.append("bad\(i)\t\(91 + i)\t127\t12\tout of range") }
        rows.append("ok2\t-37.5\t-127.25\t39\tgood")
        let file = try dir.write("mixed.tsv", rows.joined(separator: "\n") + "\n")
        let result = try CLIRunner.run(["import", "--db", dir.file("c.sqlite"), file])
        #expect(result.status == 0)
        let errorLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix(file + ":") }
        #expect(errorLines.count == 20)
        #expect(errorLines.first == "\(file):3: lat: 91.0 is outside [-90, 90]")
        #expect(result.stderr.contains("and 5 more bad records"))
        #expect(try counts(result)["inserted"] == 2 && counts(result)["rejected"] == 25)
        #expect(result.lines.count == 1)  // stdout holds the summary only
    }

    @Test func strictStopsAtTheFirstBadRecordAndChangesNothing() throws {
        let dir = try TempFolder()
        let db = dir.file("c.sqlite")
        _ = try CLIRunner.run(["import", "--db", db, dir.write("base.jsonl", canonicalLines.joined(separator: "\n"))])
        let before = try CLIRunner.run(["export", "--db", db]).stdout
        let file = try dir.write(
            "bad.tsv", "id\tlat\tlon\tcategory\ttitle\nnew1\t1.5\t2.5\t12\tfine\nnew2\tabc\t2.5\t12\tbad\n")
        let result = try CLIRunner.run(["import", "--db", db, "--strict", file])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("\(file):3: lat: "))
        #expect(result.stderr.contains("nothing was imported"))
        #expect(try CLIRunner.run(["export", "--db", db]).stdout == before)
    }

    @Test func allInputsAreOneTransaction() throws {
        let dir = try TempFolder()
        let db = dir.file("c.sqlite")
        let good = try dir.write("good.jsonl", canonicalLines.joined(separator: "\n"))
        let junk = try dir.write("junk.txt", "this is not a place file\n")
        let result = try CLIRunner.run(["import", "--db", db, good, junk])
        #expect(result.status == 1)
        #expect(result.stderr.contains(junk))
        #expect(try CLIRunner.run(["export", "--db", db]).stdout.isEmpty)
    }

    @Test func emptyCacheExportsNothing() throws {
        let dir = try TempFolder()
        let db = dir.file("c.sqlite")
        let empty = try CLIRunner.run(["import", "--db", db, dir.write("empty.jsonl", "")])
        #expect(
            try counts(empty) == [
                "inserted": 0, "updated": 0, "unchanged": 0, "older": 0, "deleted": 0, "rejected": 0, "pending": 0,
            ])
        #expect(try CLIRunner.run(["export", "--db", db]).stdout.isEmpty)
        let geojson = try CLIRunner.run(["export", "--db", db, "--format", "geojson"])
        let object = try JSONSerialization.jsonObject(with: geojson.stdout) as? [String: Any]
        #expect((object?["features"] as? [Any])?.isEmpty == true)
    }

    @Test func defaultCacheIsBuiltOnFirstUseAndAnnouncedOnce() throws {
        // No --db: the default path ($NEARBY_DB here, so the user's cache is never touched).
        let dir = try TempFolder()
        let environment = ["NEARBY_DB": dir.file("default/places.sqlite")]
        let first = try CLIRunner.run(["export"], environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.components(separatedBy: "building").count == 2)
        #expect(first.lines.count == 100_000)
        // The second run reads the cache the first built: silent, and the same places (the nearest to
        // City Hall, checked against the first run's export).
        let second = try CLIRunner.run(
            ["query", "--lat", "37.5665", "--lon", "126.978", "--limit", "5", "--fields", "id"],
            environment: environment)
        #expect(second.status == 0 && second.stderr.isEmpty, "\(second.stderr)")
        // Each line begins with its id (`{"id":"…"`, PlaceJSON's field order).
        func id(_ line: String) -> String? {
            line.split(separator: "\"", maxSplits: 4).dropFirst(3).first.map(String.init)
        }
        let exported = Set(first.lines.compactMap(id))
        let near = second.lines.compactMap(id)
        #expect(near.count == 5 && near.allSatisfy(exported.contains), "\(second.stdout)")
    }

    @Test func foreignOrMissingCacheFilesAreClearErrors() throws {
        let dir = try TempFolder()
        let text = try dir.write("notes.txt", String(repeating: "hello\n", count: 1000))
        let input = try dir.write("in.jsonl", canonicalLines[1])
        let foreign = try CLIRunner.run(["import", "--db", text, input])
        #expect(foreign.status == 1)
        #expect(foreign.stderr.contains("\(text): not a Nearby cache"))
        #expect(try String(contentsOfFile: text, encoding: .utf8) == String(repeating: "hello\n", count: 1000))

        let missing = try CLIRunner.run(["export", "--db", dir.file("absent.sqlite")])
        #expect(missing.status == 1)
        #expect(
            missing.stderr
                == "nearby export: \(dir.file("absent.sqlite")): cannot open the cache: no such file (nearby import creates a cache)\n"
        )
        let noFolder = try CLIRunner.run(["import", "--db", dir.file("nowhere/c.sqlite"), input])
        #expect(
            noFolder.status == 1 && noFolder.stderr.contains("no folder \(dir.file("nowhere"))"), "\(noFolder.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("absent.sqlite")))

        let noFile = try CLIRunner.run(["import", "--db", dir.file("c.sqlite"), dir.file("absent.jsonl")])
        #expect(noFile.status != 0 && noFile.stderr.contains("absent.jsonl"))
    }
}
