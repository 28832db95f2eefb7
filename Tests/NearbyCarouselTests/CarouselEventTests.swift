import NearbyCore
import Testing

@testable import NearbyCarousel

@Suite struct CarouselEventParserTests {
    func parse(_ line: String, _ catalogue: [Place] = []) throws(CarouselInputError) -> TimedInput {
        var p = CarouselEventParser(catalogue: catalogue)
        return try p.parse(line)
    }

    func reason(_ line: String) -> String? {
        do {
            _ = try parse(line)
            return nil
        } catch { return error.description }
    }

    @Test func everyKind() throws {
        #expect(try parse(#"{"t":5,"visible":2}"#) == TimedInput(t: 5, .visible(2)))
        #expect(try parse(#"{"offset":620.5,"t":6}"#) == TimedInput(t: 6, .offset(620.5)))
        #expect(try parse(#"{"t":7,"tapMarker":4}"#) == TimedInput(t: 7, .tapMarker(4)))
        #expect(
            try parse(#"{"t":8,"location":{"lat":37.5,"lon":127}}"#) == TimedInput(t: 8, .location(lat: 37.5, lon: 127))
        )
        #expect(try parse(#"{"t":9,"complete":true}"#) == TimedInput(t: 9, .complete))
        #expect(try parse(#"{"t":9,"error":"x"}"#) == TimedInput(t: 9, .error("x")))
    }

    @Test func placesAreObjectsOrKnownIds() throws {
        let known = Place(id: "42", title: "", lat: 1, lon: 2, category: 12)
        var p = CarouselEventParser(catalogue: [known])
        let e = try p.parse(#"{"t":0,"places":[42,"42",{"id":"n","lat":3,"lon":4,"title":"경복궁","category":14}]}"#)
        let n = Place(id: "n", title: "경복궁", lat: 3, lon: 4, category: 14)
        #expect(e == TimedInput(t: 0, .places([known, known, n])))
        // A place object seen once can later be named by its id.
        #expect(try p.parse(#"{"t":1,"places":["n"]}"#) == TimedInput(t: 1, .places([n])))
        #expect(try p.parse(#"{"t":2,"places":[]}"#) == TimedInput(t: 2, .places([])))
        // Titles are normalised to NFC: 경 written as three conjoining jamo.
        let nfd = try p.parse(#"{"t":3,"places":[{"id":"k","lat":0,"lon":0,"title":"\u1100\u1167\u11bc"}]}"#)
        #expect(nfd == TimedInput(t: 3, .places([Place(id: "k", title: "경", lat: 0, lon: 0, category: 0)])))
    }

    @Test func malformedEventsSayWhy() {
        #expect(reason("{")?.hasPrefix("not valid JSON: ") == true)
        #expect(reason(#"{"t":1,"visible":1} x"#)?.hasPrefix("not valid JSON: ") == true)
        #expect(reason(#"{"t":1,"t":2,"visible":1}"#) == "field \"t\" appears twice")
        #expect(reason("[1]") == "an event must be a JSON object")
        #expect(reason(#"{"visible":1}"#) == "missing field \"t\" (time in ms)")
        #expect(reason(#"{"t":-1,"visible":1}"#) == "field \"t\" must be a non-negative integer (ms)")
        #expect(reason(#"{"t":1.5,"visible":1}"#) == "field \"t\" must be a non-negative integer (ms)")
        #expect(reason(#"{"t":"1","visible":1}"#) == "field \"t\" must be a non-negative integer (ms)")
        #expect(reason(#"{"t":1}"#)?.hasPrefix("no event") == true)
        #expect(reason(#"{"t":1,"visible":1,"tapMarker":2}"#) == "one event per line, found tapMarker, visible")
        #expect(reason(#"{"t":1,"swipe":1}"#)?.hasPrefix("unknown event \"swipe\"") == true)
        #expect(reason(#"{"t":1,"visible":1.5}"#) == "\"visible\" must be an integer card index")
        #expect(reason(#"{"t":1,"offset":"x"}"#) == "\"offset\" must be a number (points)")
        #expect(reason(#"{"t":1,"location":{"lat":91,"lon":0}}"#) == "location.lat: must be a number in [-90, 90]")
        #expect(reason(#"{"t":1,"location":{"lat":0}}"#) == "location.lon: must be a number in [-180, 180]")
        #expect(reason(#"{"t":1,"complete":false}"#) == "\"complete\" must be true")
        #expect(reason(#"{"t":1,"places":["zz"]}"#)?.hasPrefix("places[0]: unknown place id \"zz\"") == true)
        #expect(reason(#"{"t":1,"places":[{"id":"a","lat":1}]}"#) == "places[0].lon: must be a number in [-180, 180]")
        #expect(
            reason(#"{"t":1,"places":[{"lat":1,"lon":1}]}"#)
                == "places[0].id: missing or not a non-empty string or integer")
    }

    @Test func placeListsAsArrayOrJSONLines() throws {
        let a = try PlaceListEntry.parseList(#"  [ "7", {"id": 8, "lat": 1, "lon": 2} ]"#)
        #expect(a == [.id("7"), .place(Place(id: "8", title: "", lat: 1, lon: 2, category: 0))])
        let l = try PlaceListEntry.parseList("\"7\"\n\n{\"id\":\"8\",\"lat\":1,\"lon\":2}\n")
        #expect(l == a)
        #expect(throws: CarouselInputError("place: a place must be an object with id, lat, lon, or an id", line: 2)) {
            _ = try PlaceListEntry.parseList("\"7\"\n[1]\n")
        }
    }

    @Test func outputLinesAreJSON() {
        #expect(
            CarouselOutput.selected(t: 300, index: 2, id: "a\"b", lat: 37.5, lon: 127).jsonLine
                == #"{"t":300,"selected":2,"id":"a\"b","camera":{"lat":37.5,"lon":127.0}}"#)
        #expect(
            CarouselOutput.query(t: 1, lat: 1, lon: 2, moved: 66.6666, results: ["x", "y"]).jsonLine
                == #"{"t":1,"query":{"lat":1.0,"lon":2.0,"moved":66.7},"results":["x","y"]}"#)
        #expect(
            CarouselOutput.dropped(t: 5, index: 9, reason: "r\n").jsonLine == #"{"t":5,"dropped":9,"reason":"r\n"}"#)
        #expect(CarouselOutput.failed(t: 5, message: "\u{1}").jsonLine == #"{"t":5,"error":"\u0001"}"#)
    }
}

@Suite struct TimelineSVGTests {
    @Test func drawsEveryRawEventAndSelection() throws {
        let out = try simulate([(0, .places(places(6))), (1000, .tapMarker(5)), (2000, .complete)], traced)
        let svg = TimelineSVG.render(out, debounce: 300, title: "a <test>")
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("a &lt;test&gt; — debounce 300 ms"))
        // 6 raw events (reload + 5 frames) as circles besides the legend's 3; 2 selections as diamonds.
        #expect(svg.components(separatedBy: "<circle").count - 1 == 6 + 3)
        #expect(svg.components(separatedBy: "<title>t=").count - 1 == 6 + 2)
        #expect(svg.contains(">5 · p5</text>"))
        #expect(svg.contains(">complete</text>"))
    }

    @Test func niceTimeSteps() {
        #expect(TimelineSVG.niceStep(0.3) == 1)
        #expect(TimelineSVG.niceStep(130) == 200)
        #expect(TimelineSVG.niceStep(700) == 1000)
        #expect(TimelineSVG.niceStep(5000) == 5000)
    }
}
