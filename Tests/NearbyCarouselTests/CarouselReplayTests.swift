import NearbyCore
import Testing

@testable import NearbyCarousel

/// The replay as a library call: the checks `nearby carousel` relies on, without a process.
@Suite struct CarouselReplayTests {
    let places = (0..<5).map { i in
        Place(id: "p\(i)", title: "장소 \(i)", lat: 37.5 + Double(i) * 0.001, lon: 127, category: i % 2 == 0 ? 12 : 39)
    }

    func failure(_ events: String, query: Bool = false) -> CarouselInputError? {
        var replay = CarouselReplay(catalogue: places)
        if query {
            replay.query = CarouselReplay.query(
                over: places, template: try! CarouselReplay.template(radius: 500, limit: 3, categories: [], sort: nil))
        }
        do {
            _ = try replay.timeline(events)
            return nil
        } catch { return error }
    }

    @Test func timelineChecksEveryLineBeforeAnythingRuns() {
        #expect(
            failure("{\"t\":5,\"visible\":1}\n\n{\"t\":4,\"visible\":2}")
                == CarouselInputError("time 4 is before the previous event's time 5", line: 3))
        #expect(
            failure("{\"t\":1,\"complete\":true}\n{\"t\":2,\"visible\":1}")
                == CarouselInputError("event after the end of the stream (complete or error)", line: 2))
        #expect(failure("{\"t\":1,\"location\":{\"lat\":37.5,\"lon\":127}}")?.line == 1)
        #expect(failure("{\"t\":1,\"location\":{\"lat\":37.5,\"lon\":127}}", query: true) == nil)
        #expect(failure("{\"t\":1,\"visible\":1}\r\n{")?.line == 2)
    }

    @Test func windowsLineEndsReadLikeAnyOther() throws {
        var replay = CarouselReplay(catalogue: places)
        #expect(try replay.timeline("{\"t\":0,\"visible\":0}\r\n\r\n{\"t\":5,\"visible\":1}\r\n").count == 2)
        #expect(try PlaceListEntry.parseList("\"p1\"\r\n\"p2\"\r\n") == [.id("p1"), .id("p2")])
        #expect(TextLines.of("a\r\nb\n\nc") == ["a", "b", "", "c"])
    }

    @Test func templateGoesThroughTheRequestParser() {
        #expect(throws: RequestError.self) {
            try CarouselReplay.template(radius: -1, limit: 3, categories: [], sort: nil)
        }
        #expect(throws: RequestError.self) {
            try CarouselReplay.template(radius: 100, limit: 3, categories: ["x"], sort: nil)
        }
        #expect(throws: RequestError.self) {
            try CarouselReplay.template(radius: 100, limit: 3, categories: [], sort: "nonsense")
        }
    }

    @Test func locationQueriesRunTheMemoryEngineWithTheTemplate() throws {
        let template = try CarouselReplay.template(radius: 250, limit: 10, categories: ["39"], sort: nil)
        let query = CarouselReplay.query(over: places, template: template)
        // From p0, 250 m north reaches p1 and p2 (111 m apart); of those only p1 and p3 are category 39.
        #expect(try query(37.5, 127).map(\.id) == ["p1"])
        #expect(Set(try query(37.502, 127).map(\.id)) == ["p1", "p3"])
    }

    @Test func runStreamsOutputsPerEvent() throws {
        var replay = CarouselReplay(catalogue: places)
        let timeline = try replay.timeline(
            "{\"t\":0,\"visible\":0}\n{\"t\":1000,\"visible\":2}\n{\"t\":1100,\"complete\":true}")
        var batches: [[CarouselOutput]] = []
        try replay.run(timeline, initial: places, configuration: .init()) { batches.append($0) }
        #expect(batches.count == timeline.count + 1)  // after each event, and after the end
        let selected = batches.joined().compactMap { output -> String? in
            if case .selected(_, _, let id, _, _) = output { return id } else { return nil }
        }
        #expect(selected == ["p0", "p2"])
    }
}
