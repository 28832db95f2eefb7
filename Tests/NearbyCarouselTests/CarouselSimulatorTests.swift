import NearbyCore
import Testing

@testable import NearbyCarousel

/// `n` places `prefix0…` one after another 100 m apart going north from (37.5, 127).
func places(_ n: Int, _ prefix: String = "p") -> [Place] {
    (0..<n).map { Place(id: "\(prefix)\($0)", title: "", lat: 37.5 + Double($0) * 0.0009, lon: 127, category: 12) }
}

/// Runs a timeline through a simulator and returns its outputs; `finish()` ends it unless it completed.
func simulate(
    _ timeline: [(Int64, CarouselInput)], _ config: CarouselSimulator.Configuration = .init(),
    query: CarouselSimulator.Query? = nil
) throws -> [CarouselOutput] {
    var sim = CarouselSimulator(configuration: config, query: query)
    for (t, input) in timeline { try sim.feed(input, at: t) }
    sim.finish()
    return sim.output
}

/// Selections as "index@t id" strings, the shortest readable form for expectations.
func selections(_ outputs: [CarouselOutput]) -> [String] {
    outputs.compactMap { if case .selected(let t, let i, let id, _, _) = $0 { "\(i)@\(t) \(id)" } else { nil } }
}

func visibleTrace(_ outputs: [CarouselOutput]) -> [String] {
    outputs.compactMap { if case .visible(let t, let i, let o) = $0 { "\(i)@\(t) \(o.rawValue)" } else { nil } }
}

let traced = CarouselSimulator.Configuration(traceVisible: true)
let ten = places(10)

@Suite struct CarouselSimulatorTests {
    @Test func aNewListSelectsItsFirstCardAfterTheDebounce() throws {
        let out = try simulate([(0, .places(ten))])
        #expect(out == [.selected(t: 300, index: 0, id: "p0", lat: 37.5, lon: 127)])
    }

    @Test func slowSwipeSelectsEveryCard() throws {
        let out = try simulate([(0, .places(ten)), (1000, .visible(1)), (2000, .visible(2)), (3000, .visible(3))])
        #expect(selections(out) == ["0@300 p0", "1@1300 p1", "2@2300 p2", "3@3300 p3"])
    }

    @Test func fastFlingSelectsOnlyWhereItStops() throws {
        let fling = (1...6).map { (Int64(950 + 50 * $0), CarouselInput.visible($0)) }
        let out = try simulate([(0, .places(ten))] + fling)
        #expect(selections(out) == ["0@300 p0", "6@1550 p6"])
    }

    @Test func swipesExactlyOneDebounceApartSelectOnlyTheLast() throws {
        let out = try simulate([(0, .places(ten)), (1000, .visible(1)), (1300, .visible(2))])
        #expect(selections(out) == ["0@300 p0", "2@1600 p2"])
    }

    @Test func offsetsCountOnlyWhenACardIsFullyVisible() throws {
        let out = try simulate(
            [
                (0, .places(ten)), (1000, .offset(100)), (1010, .offset(280)), (1020, .offset(400)),
                (1030, .offset(620)),
            ],
            traced)
        #expect(visibleTrace(out) == ["0@0 reload", "1@1010 user", "2@1030 user"])
        #expect(selections(out) == ["0@300 p0", "2@1330 p2"])
    }

    @Test func markerTapAcrossFiveCardsSelectsOnlyTheTappedMarker() throws {
        let out = try simulate([(0, .places(ten)), (1000, .tapMarker(5))], traced)
        #expect(
            visibleTrace(out) == [
                "0@0 reload", "1@1060 animation", "2@1120 animation", "3@1180 animation", "4@1240 animation",
                "5@1300 animation",
            ])
        #expect(selections(out) == ["0@300 p0", "5@1600 p5"])
    }

    @Test func withoutDebounceTheCameraVisitsEveryCardOnTheWay() throws {
        let out = try simulate([(0, .places(ten)), (1000, .tapMarker(5))], .init(debounce: 0))
        #expect(selections(out) == ["0@0 p0", "1@1060 p1", "2@1120 p2", "3@1180 p3", "4@1240 p4", "5@1300 p5"])
    }

    @Test func tappingBackwardsAnimatesDownward() throws {
        let out = try simulate([(0, .places(ten)), (1000, .visible(4)), (2000, .tapMarker(1))], traced)
        #expect(visibleTrace(out).suffix(3) == ["3@2100 animation", "2@2200 animation", "1@2300 animation"])
        #expect(selections(out) == ["0@300 p0", "4@1300 p4", "1@2600 p1"])
    }

    @Test func twoTapsInQuickSuccessionSelectOnlyTheSecond() throws {
        // The second tap stops the first animation at card 2 and scrolls on from there.
        let out = try simulate([(0, .places(ten)), (1000, .tapMarker(5)), (1150, .tapMarker(8))], traced)
        #expect(
            visibleTrace(out) == [
                "0@0 reload", "1@1060 animation", "2@1120 animation", "3@1200 animation", "4@1250 animation",
                "5@1300 animation", "6@1350 animation", "7@1400 animation", "8@1450 animation",
            ])
        #expect(selections(out) == ["0@300 p0", "8@1750 p8"])
    }

    @Test func aTapDuringASwipeWins() throws {
        let out = try simulate([(0, .places(ten)), (1000, .visible(1)), (1050, .visible(2)), (1100, .tapMarker(7))])
        #expect(selections(out) == ["0@300 p0", "7@1700 p7"])
    }

    @Test func aSwipeDuringATapAnimationStopsIt() throws {
        let out = try simulate([(0, .places(ten)), (1000, .tapMarker(5)), (1150, .visible(3))], traced)
        #expect(visibleTrace(out) == ["0@0 reload", "1@1060 animation", "2@1120 animation", "3@1150 user"])
        #expect(selections(out) == ["0@300 p0", "3@1450 p3"])
    }

    @Test func anInputAtTheSameInstantAsAFrameComesFirst() throws {
        // Frame 1 would be at 1060; the swipe at 1060 stops the animation before it.
        let out = try simulate([(0, .places(ten)), (1000, .tapMarker(5)), (1060, .visible(9))], traced)
        #expect(visibleTrace(out) == ["0@0 reload", "9@1060 user"])
    }

    @Test func aFrameAtTheInstantATimerFallsDueComesFirst() throws {
        // Frames every 60 ms with a 60 ms debounce: each frame cancels the previous frame's timer.
        let out = try simulate([(0, .places(ten)), (1000, .tapMarker(5))], .init(debounce: 60))
        #expect(selections(out) == ["0@60 p0", "5@1360 p5"])
        let slower = try simulate([(0, .places(ten)), (1000, .tapMarker(5))], .init(debounce: 59))
        #expect(selections(slower) == ["0@59 p0", "1@1119 p1", "2@1179 p2", "3@1239 p3", "4@1299 p4", "5@1359 p5"])
    }

    @Test func aNewListStopsATapAnimation() throws {
        let out = try simulate([(0, .places(ten)), (1000, .tapMarker(5)), (1100, .places(places(8, "q")))], traced)
        #expect(visibleTrace(out) == ["0@0 reload", "1@1060 animation", "0@1100 reload"])
        #expect(selections(out) == ["0@300 p0", "0@1400 q0"])
    }

    @Test func selectingTheAlreadySelectedCardDoesNothing() throws {
        let out = try simulate([
            (0, .places(ten)), (1000, .visible(1)), (1100, .visible(0)), (2000, .visible(0)), (3000, .tapMarker(0)),
        ])
        #expect(selections(out) == ["0@300 p0"])
    }

    @Test func anEmptyListSelectsNothingAndReportsIndices() throws {
        let out = try simulate([(0, .places([])), (100, .visible(0)), (1000, .tapMarker(0))])
        #expect(
            out == [
                .dropped(t: 400, index: 0, reason: "index 0 out of range: the list has 0 cards"),
                .dropped(t: 1000, index: 0, reason: "tapMarker 0 out of range: the list has 0 cards"),
            ])
    }

    @Test func aListOfOne() throws {
        let out = try simulate([
            (0, .places(places(1))), (1000, .tapMarker(0)), (2000, .visible(1)), (3000, .offset(310)),
        ])
        #expect(
            out == [
                .selected(t: 300, index: 0, id: "p0", lat: 37.5, lon: 127),
                .dropped(t: 2300, index: 1, reason: "index 1 out of range: the list has 1 cards"),
            ])
    }

    @Test func aNewListReselectsIndexZeroAndMovesTheCamera() throws {
        let other = places(3, "q").map {
            var p = $0
            p.lon = 128
            return p
        }
        let out = try simulate([(0, .places(ten)), (1000, .places(other))])
        #expect(
            out == [
                .selected(t: 300, index: 0, id: "p0", lat: 37.5, lon: 127),
                .selected(t: 1300, index: 0, id: "q0", lat: 37.5, lon: 128),
            ])
    }

    @Test func aListReplacedWhileAnIndexIsPendingStartsOver() throws {
        // The pending 7 is replaced by the reload's 0, which falls due 300 ms after the new list.
        let out = try simulate([(0, .places(ten)), (1000, .visible(7)), (1100, .places(places(3, "q")))])
        #expect(selections(out) == ["0@300 p0", "0@1400 q0"])
    }

    @Test func aPendingIndexOutOfRangeWhenDueIsDropped() throws {
        let out = try simulate([(0, .places(ten)), (1000, .visible(7)), (1100, .places([]))])
        #expect(out.last == .dropped(t: 1300, index: 7, reason: "index 7 out of range: the list has 0 cards"))
        #expect(selections(out) == ["0@300 p0"])
    }

    @Test func completionFlushesThePendingSelection() throws {
        var sim = CarouselSimulator()
        try sim.feed(.places(ten), at: 0)
        try sim.feed(.visible(3), at: 1000)
        try sim.feed(.complete, at: 1100)
        #expect(
            sim.output.suffix(2) == [
                .selected(t: 1100, index: 3, id: "p3", lat: 37.5 + 3 * 0.0009, lon: 127), .completed(t: 1100),
            ])
        #expect(throws: CarouselSimulatorError.afterEnd) { try sim.feed(.visible(1), at: 1200) }
    }

    @Test func completionStopsATapAnimation() throws {
        let out = try simulate([(0, .places(ten)), (1000, .tapMarker(5)), (1130, .complete)])
        #expect(selections(out) == ["0@300 p0", "2@1130 p2"])
    }

    @Test func anErrorDropsThePendingSelection() throws {
        let out = try simulate([(0, .places(ten)), (1000, .visible(3)), (1100, .error("gone"))])
        #expect(out == [.selected(t: 300, index: 0, id: "p0", lat: 37.5, lon: 127), .failed(t: 1100, message: "gone")])
    }

    @Test func timeMustNotGoBack() throws {
        var sim = CarouselSimulator()
        try sim.feed(.visible(1), at: 100)
        #expect(throws: CarouselSimulatorError.timeWentBack(t: 99, now: 100)) { try sim.feed(.visible(2), at: 99) }
        try sim.feed(.visible(2), at: 100)
    }

    @Test func locationWithoutAQueryIsAnError() {
        var sim = CarouselSimulator()
        #expect(throws: CarouselSimulatorError.noQuery) { try sim.feed(.location(lat: 37, lon: 127), at: 0) }
    }
}

@Suite struct CarouselLocationTests {
    /// A real query over a fixed catalogue: places within 150 m of the user, nearest first.
    static let catalogue = places(10)
    static func nearest(_ lat: Double, _ lon: Double) -> [Place] {
        catalogue
            .map { ($0, Haversine.distance(lat1: lat, lon1: lon, lat2: $0.lat, lon2: $0.lon)) }
            .filter { $0.1 <= 150 }
            .sorted { $0.1 < $1.1 }
            .map(\.0)
    }

    func queries(_ out: [CarouselOutput]) -> [String] {
        out.compactMap {
            if case .query(let t, _, _, _, let ids) = $0 { "\(t): \(ids.joined(separator: ","))" } else { nil }
        }
    }

    @Test func theFirstLocationAlwaysQueriesAndSelectsTheNearest() throws {
        let out = try simulate([(0, .location(lat: 37.5, lon: 127))], query: Self.nearest)
        #expect(queries(out) == ["0: p0,p1"])
        #expect(out[0] == .query(t: 0, lat: 37.5, lon: 127, moved: nil, results: ["p0", "p1"]))
        #expect(selections(out) == ["0@300 p0"])
    }

    @Test func movesWithinTheDistanceFilterDoNotQuery() throws {
        // 0.0003° of latitude ≈ 33 m; three such steps add up to ≈ 100 m from the first query.
        let steps = (0...3).map {
            (Int64($0) * 1000, CarouselInput.location(lat: 37.5 + Double($0) * 0.0003, lon: 127))
        }
        let out = try simulate(steps, query: Self.nearest)
        #expect(queries(out) == ["0: p0,p1", "2000: p1,p0,p2"])
        guard case .query(_, _, _, let moved?, _) = out.first(where: { $0.t == 2000 }) else {
            Issue.record("no second query")
            return
        }
        #expect(abs(moved - 66.7) < 0.5)
        #expect(selections(out) == ["0@300 p0", "0@2300 p1"])
    }

    @Test func theFilterNeedsStrictlyMoreThanItsDistance() throws {
        let a = (lat: 37.5, lon: 127.0)
        let b = (lat: 37.5004, lon: 127.0003)
        let d = Haversine.distance(lat1: a.lat, lon1: a.lon, lat2: b.lat, lon2: b.lon)
        let moves: [(Int64, CarouselInput)] = [
            (0, .location(lat: a.lat, lon: a.lon)), (10, .location(lat: b.lat, lon: b.lon)),
        ]
        #expect(queries(try simulate(moves, .init(distanceFilter: d), query: Self.nearest)).count == 1)
        #expect(queries(try simulate(moves, .init(distanceFilter: d.nextDown), query: Self.nearest)).count == 2)
    }

    @Test func aRequeryWithTheSameResultsStillReselectsTheFirstCard() throws {
        let out = try simulate(
            [(0, .location(lat: 37.5, lon: 127)), (1000, .visible(1)), (2000, .location(lat: 37.5, lon: 127.0007))],
            query: Self.nearest)
        #expect(queries(out) == ["0: p0,p1", "2000: p0,p1"])
        #expect(selections(out) == ["0@300 p0", "1@1300 p1", "0@2300 p0"])
    }

    struct Unreachable: Error, CustomStringConvertible { var description: String { "server unreachable" } }

    @Test func aFailingQueryKeepsTheListAndRetriesNextTime() throws {
        var calls = 0
        let out = try simulate(
            [(0, .places(ten)), (1000, .location(lat: 37.5, lon: 127)), (2000, .location(lat: 37.5, lon: 127))],
            query: { _, _ in
                calls += 1
                throw Unreachable()
            })
        #expect(calls == 2)
        #expect(out.filter { if case .queryFailed = $0 { true } else { false } }.count == 2)
        #expect(out.last == .queryFailed(t: 2000, lat: 37.5, lon: 127, message: "server unreachable"))
        #expect(selections(out) == ["0@300 p0"])
    }
}
