import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `nearby` with `stdin` through the shared subprocess runner: status, stdout, stderr.
private func nearby(_ args: [String], stdin: String = "") throws -> (status: Int32, out: String, err: String) {
    let r = try CLIRunner.run(args, stdin: Data(stdin.utf8))
    return (r.status, r.output, r.stderr)
}

/// A temporary folder with a places file of six places 100 m apart, removed when the test ends.
private struct Folder: ~Copyable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("carousel-\(UUID().uuidString)")
    init() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let places = (0..<6).map { #"{"id":"p\#($0)","title":"곳 \#($0)","lat":\#(37.5 + Double($0) * 0.0009),"lon":127.0,"category":12}"# }
        try write("places.jsonl", places.joined(separator: "\n") + "\n")
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func write(_ name: String, _ text: String) throws { try text.write(to: url.appendingPathComponent(name), atomically: true, encoding: .utf8) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

private func objects(_ jsonl: String) throws -> [[String: Any]] {
    try jsonl.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
}

@Suite struct CarouselCommandTests {
    @Test func aTapSelectsOnlyTheTappedMarker() throws {
        let f = try Folder()
        try f.write("tap.jsonl", #"{"t":1000,"tapMarker":5}"# + "\n" + #"{"t":2000,"complete":true}"# + "\n")
        let r = try nearby(["carousel", "--events", f.path("tap.jsonl"), "--places", f.path("places.jsonl")])
        #expect(r.status == 0, "\(r.err)")
        let lines = try objects(r.out)
        #expect(lines.compactMap { $0["selected"] as? Int } == [0, 5])
        #expect(lines.compactMap { $0["t"] as? Int } == [300, 1600, 2000])
        let camera = lines[1]["camera"] as? [String: Double]
        #expect(camera?["lat"] == 37.5 + 5 * 0.0009 && camera?["lon"] == 127)
        #expect(lines[1]["id"] as? String == "p5")

        let raw = try nearby(["carousel", "--events", f.path("tap.jsonl"), "--places", f.path("places.jsonl"), "--debounce", "0"])
        #expect(try objects(raw.out).compactMap { $0["selected"] as? Int } == [0, 1, 2, 3, 4, 5])
    }

    @Test func eventsFromStdinAndLocationQueriesOverThePlacesList() throws {
        let f = try Folder()
        let events = """
            {"t":0,"location":{"lat":37.5,"lon":127.0}}
            {"t":1000,"location":{"lat":37.5002,"lon":127.0}}
            {"t":2000,"location":{"lat":37.5045,"lon":127.0}}
            {"t":2400,"visible":9}

            """
        let r = try nearby(["carousel", "--events", "-", "--places", f.path("places.jsonl"), "--radius", "150", "--limit", "2"], stdin: events)
        #expect(r.status == 0, "\(r.err)")
        let lines = try objects(r.out)
        let queries = lines.compactMap { $0["results"] as? [String] }
        #expect(queries == [["p0", "p1"], ["p5", "p4"]])
        #expect(lines.compactMap { $0["id"] as? String } == ["p0", "p5"])
        #expect(lines.last?["dropped"] as? Int == 9)
    }

    @Test func locationQueriesRunOnTheCacheGivenByDB() throws {
        let f = try Folder()
        let db = f.path("places.sqlite")
        let imported = try nearby(["import", "--db", db, f.path("places.jsonl")])
        #expect(imported.status == 0 && imported.out.contains(#""inserted":6"#), "\(imported.out) \(imported.err)")
        let events = #"{"t":0,"location":{"lat":37.5045,"lon":127.0}}"# + "\n" + #"{"t":100,"places":["p1","p2"]}"# + "\n"
        let r = try nearby(["carousel", "--events", "-", "--db", db, "--radius", "250", "--sort=-distance"], stdin: events)
        #expect(r.status == 0, "\(r.err)")
        let lines = try objects(r.out)
        #expect(lines.first?["results"] as? [String] == ["p3", "p4", "p5"])
        #expect(lines.compactMap { $0["id"] as? String } == ["p1"])
    }

    @Test func aMalformedLineIsAUsageErrorNamingTheLine() throws {
        let f = try Folder()
        try f.write("bad.jsonl", #"{"t":0,"visible":0}"# + "\n\n" + #"{"t":5,"wiggle":1}"# + "\n")
        let r = try nearby(["carousel", "--events", f.path("bad.jsonl"), "--places", f.path("places.jsonl")])
        #expect(r.status == 2)
        #expect(r.err.contains("bad.jsonl: line 3: unknown event \"wiggle\""), "\(r.err)")
        #expect(r.out.isEmpty)
    }

    @Test func timeGoingBackwardsIsAnError() throws {
        let r = try nearby(["carousel", "--events", "-"], stdin: #"{"t":10,"visible":0}"# + "\n" + #"{"t":9,"visible":1}"# + "\n")
        #expect(r.status == 2)
        #expect(r.err.contains("line 2: time 9 is before the previous event's time 10"), "\(r.err)")
    }

    @Test func aLocationWithoutAQuerySourceIsAnError() throws {
        let r = try nearby(["carousel", "--events", "-"], stdin: #"{"t":0,"location":{"lat":1,"lon":2}}"# + "\n")
        #expect(r.status == 2)
        #expect(r.err.contains("line 1: a location event needs a query"), "\(r.err)")
    }

    @Test func badGeometryIsAnError() throws {
        let r = try nearby(["carousel", "--events", "-", "--container", "200"], stdin: "")
        #expect(r.status == 2)
        #expect(r.err.contains("container (200.0) must be at least the card width (300.0)"), "\(r.err)")
    }

    @Test func anSVGTimelineIsProduced() throws {
        let f = try Folder()
        try f.write("tap.jsonl", #"{"t":500,"visible":2}"# + "\n" + #"{"t":1000,"tapMarker":5}"# + "\n")
        let r = try nearby(["carousel", "--events", f.path("tap.jsonl"), "--places", f.path("places.jsonl"), "--format", "svg"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("<svg") && r.out.hasSuffix("</svg>\n"))
        #expect(r.out.contains(">5 · p5</text>") && r.out.contains(">visible index (raw)</text>"))
        let parser = XMLParser(data: Data(r.out.utf8))
        #expect(parser.parse(), "not well-formed XML: \(String(describing: parser.parserError))")
    }
}
