import Foundation
import NearbyTestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `nearby` with `stdin` through the shared subprocess runner: status, stdout, stderr.
private func nearby(_ args: [String], stdin: String = "") throws -> (status: Int32, out: String, err: String) {
    let r = try CLIRunner.run(args, stdin: Data(stdin.utf8))
    return (r.status, r.output, r.stderr)
}

/// A temporary folder with places.jsonl: six places 100 m apart.
private func placesFolder() throws -> TempFolder {
    let folder = try TempFolder()
    let places = (0..<6).map {
        #"{"id":"p\#($0)","title":"곳 \#($0)","lat":\#(37.5 + Double($0) * 0.0009),"lon":127.0,"category":12}"#
    }
    try folder.write("places.jsonl", places.joined(separator: "\n") + "\n")
    return folder
}

private func objects(_ jsonl: String) throws -> [[String: Any]] {
    try jsonl.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
}

@Suite struct CarouselCommandTests {
    @Test func aTapSelectsOnlyTheTappedMarker() throws {
        let f = try placesFolder()
        try f.write("tap.jsonl", #"{"t":1000,"tapMarker":5}"# + "\n" + #"{"t":2000,"complete":true}"# + "\n")
        let r = try nearby(["carousel", "--events", f.file("tap.jsonl"), "--places", f.file("places.jsonl")])
        #expect(r.status == 0, "\(r.err)")
        let lines = try objects(r.out)
        #expect(lines.compactMap { $0["selected"] as? Int } == [0, 5])
        #expect(lines.compactMap { $0["t"] as? Int } == [300, 1600, 2000])
        let camera = lines[1]["camera"] as? [String: Double]
        #expect(camera?["lat"] == 37.5 + 5 * 0.0009 && camera?["lon"] == 127)
        #expect(lines[1]["id"] as? String == "p5")

        let raw = try nearby([
            "carousel", "--events", f.file("tap.jsonl"), "--places", f.file("places.jsonl"), "--debounce", "0",
        ])
        #expect(try objects(raw.out).compactMap { $0["selected"] as? Int } == [0, 1, 2, 3, 4, 5])
    }

    @Test func eventsFromStdinAndLocationQueriesOverThePlacesList() throws {
        let f = try placesFolder()
        let events = """
            {"t":0,"location":{"lat":37.5,"lon":127.0}}
            {"t":1000,"location":{"lat":37.5002,"lon":127.0}}
            {"t":2000,"location":{"lat":37.5045,"lon":127.0}}
            {"t":2400,"visible":9}

            """
        let r = try nearby(
            ["carousel", "--events", "-", "--places", f.file("places.jsonl"), "--radius", "150", "--limit", "2"],
            stdin: events)
        #expect(r.status == 0, "\(r.err)")
        let lines = try objects(r.out)
        let queries = lines.compactMap { $0["results"] as? [String] }
        #expect(queries == [["p0", "p1"], ["p5", "p4"]])
        #expect(lines.compactMap { $0["id"] as? String } == ["p0", "p5"])
        #expect(lines.last?["dropped"] as? Int == 9)
    }

    @Test func locationQueriesRunOnTheCacheGivenByDB() throws {
        let f = try placesFolder()
        let db = f.file("places.sqlite")
        let imported = try nearby(["import", "--db", db, f.file("places.jsonl")])
        #expect(imported.status == 0 && imported.out.contains(#""inserted":6"#), "\(imported.out) \(imported.err)")
        let events =
            #"{"t":0,"location":{"lat":37.5045,"lon":127.0}}"# + "\n" + #"{"t":100,"places":["p1","p2"]}"# + "\n"
        let r = try nearby(
            ["carousel", "--events", "-", "--db", db, "--radius", "250", "--sort", "-distance"], stdin: events)
        #expect(r.status == 0, "\(r.err)")
        let lines = try objects(r.out)
        #expect(lines.first?["results"] as? [String] == ["p3", "p4", "p5"])
        #expect(lines.compactMap { $0["id"] as? String } == ["p1"])
    }

    @Test func aMalformedLineIsAUsageErrorNamingTheLine() throws {
        let f = try placesFolder()
        try f.write("bad.jsonl", #"{"t":0,"visible":0}"# + "\n\n" + #"{"t":5,"wiggle":1}"# + "\n")
        let r = try nearby(["carousel", "--events", f.file("bad.jsonl"), "--places", f.file("places.jsonl")])
        #expect(r.status == 2)
        #expect(r.err.contains("bad.jsonl:3: unknown event \"wiggle\""), "\(r.err)")
        #expect(r.out.isEmpty)
    }

    /// Ids in the `--places` list resolve against `--db`; without it, or when the cache lacks one, the
    /// error names the file and the id.
    @Test func placeIdsNeedTheCacheThatHoldsThem() throws {
        let f = try placesFolder()
        try f.write("ids.jsonl", "\"p1\"\n\"p9\"\n")
        try f.write("tap.jsonl", #"{"t":1000,"tapMarker":0}"# + "\n")
        let noDB = try nearby(["carousel", "--events", f.file("tap.jsonl"), "--places", f.file("ids.jsonl")])
        #expect(noDB.status == 2)
        #expect(noDB.err.contains("\(f.file("ids.jsonl")): place id \"p1\" needs --db to resolve"), "\(noDB.err)")
        let db = f.file("places.sqlite")
        #expect(try nearby(["import", "--db", db, f.file("places.jsonl")]).status == 0)
        let missing = try nearby([
            "carousel", "--events", f.file("tap.jsonl"), "--places", f.file("ids.jsonl"), "--db", db,
        ])
        #expect(missing.status == 2)
        #expect(missing.err.contains("\(f.file("ids.jsonl")): place id \"p9\" is not in \(db)"), "\(missing.err)")
        try f.write("ids.jsonl", "\"p1\"\n\"p2\"\n")
        let found = try nearby([
            "carousel", "--events", f.file("tap.jsonl"), "--places", f.file("ids.jsonl"), "--db", db,
        ])
        #expect(found.status == 0, "\(found.err)")
        #expect(try objects(found.out).compactMap { $0["id"] as? String }.first == "p1")
    }

    @Test func timeGoingBackwardsIsAnError() throws {
        let r = try nearby(
            ["carousel", "--events", "-"], stdin: #"{"t":10,"visible":0}"# + "\n" + #"{"t":9,"visible":1}"# + "\n")
        #expect(r.status == 2)
        #expect(r.err.contains("<stdin>:2: time 9 is before the previous event's time 10"), "\(r.err)")
    }

    @Test func aLocationWithoutAQuerySourceIsAnError() throws {
        let r = try nearby(["carousel", "--events", "-"], stdin: #"{"t":0,"location":{"lat":1,"lon":2}}"# + "\n")
        #expect(r.status == 2)
        #expect(r.err.contains("<stdin>:1: a location event needs a query"), "\(r.err)")
    }

    @Test func badGeometryIsAnError() throws {
        let r = try nearby(["carousel", "--events", "-", "--container", "200"], stdin: "")
        #expect(r.status == 2)
        #expect(r.err.contains("container (200.0) must be at least the card width (300.0)"), "\(r.err)")
    }

    @Test func anSVGTimelineIsProduced() throws {
        let f = try placesFolder()
        try f.write("tap.jsonl", #"{"t":500,"visible":2}"# + "\n" + #"{"t":1000,"tapMarker":5}"# + "\n")
        let r = try nearby([
            "carousel", "--events", f.file("tap.jsonl"), "--places", f.file("places.jsonl"), "--format", "svg",
        ])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("<svg") && r.out.hasSuffix("</svg>\n"))
        #expect(r.out.contains(">5 · p5</text>") && r.out.contains(">visible index (raw)</text>"))
        let parser = XMLParser(data: Data(r.out.utf8))
        #expect(parser.parse(), "not well-formed XML: \(String(describing: parser.parserError))")
    }

    @Test func categoryListsAndNegativeValuesReadAsInNearbyQuery() throws {
        let f = try placesFolder()
        let move = #"{"t":0,"location":{"lat":37.5,"lon":127.0}}"# + "\n"
        func results(_ extra: [String]) throws -> [String]? {
            let r = try nearby(
                ["carousel", "--events", "-", "--places", f.file("places.jsonl"), "--radius", "150"] + extra,
                stdin: move)
            #expect(r.status == 0, "\(extra): \(r.err)")
            return try objects(r.out).first?["results"] as? [String]
        }
        #expect(try results(["--category", "39,12"]) == ["p0", "p1"])
        // Repeated list flags add up, as in nearby query.
        #expect(try results(["--category", "39", "--category", "14"]) == (try results(["--category", "39"])))
        #expect(try results(["--category", "14"]) == [])
        for (bad, word) in [
            (["--category", "12,x"], #"--category: "x""#), (["--radius", "-5"], "--radius"),
            (["--limit", "-1"], "--limit"),
        ] {
            let r = try nearby(["carousel", "--events", "-", "--places", f.file("places.jsonl")] + bad, stdin: move)
            #expect(r.status == 2 && r.err.contains(word) && r.out.isEmpty, "\(bad): \(r.err)")
            // Also with nothing to query: a bad option never passes silently.
            let idle = try nearby(["carousel", "--events", "-"] + bad, stdin: #"{"t":0,"visible":0}"# + "\n")
            #expect(idle.status == 2 && idle.err.contains(word), "\(bad): \(idle.err)")
        }
    }
}
