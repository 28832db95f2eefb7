import Testing

@testable import NearbyCarousel

/// The end of a test timeline.
enum End {
    case none
    case complete(Int64)
    case error(Int64)
}

/// Drives `Debounce` as RxSwift's virtual-time scheduler would: inputs at an instant before the timer due
/// at that instant. Returns the emitted (time, value) pairs and the terminal event's time, if any.
func debounced(_ d: Int64, _ timeline: [(Int64, Int)], end: End = .none) -> (values: [Pair], end: Int64?) {
    var op = Debounce<Int>(dueTime: d)
    var out: [Pair] = []
    for (t, v) in timeline {
        if let (x, at) = op.fire(before: t) { out.append(Pair(at, x)) }
        op.next(v, at: t)
    }
    switch end {
    case .none:
        if let (x, at) = op.fire(through: .max) { out.append(Pair(at, x)) }
        return (out, nil)
    case .complete(let t):
        if let (x, at) = op.fire(before: t) { out.append(Pair(at, x)) }
        if let x = op.complete() { out.append(Pair(t, x)) }
        return (out, t)
    case .error(let t):
        if let (x, at) = op.fire(before: t) { out.append(Pair(at, x)) }
        op.fail()
        #expect(op.pending == nil)
        return (out, t)
    }
}

struct Pair: Equatable, CustomStringConvertible {
    var t: Int64, v: Int
    init(_ t: Int64, _ v: Int) {
        self.t = t
        self.v = v
    }
    var description: String { "\(v)@\(t)" }
}

@Suite struct DebounceTests {
    @Test func aLoneValueIsEmittedDueTimeLater() {
        #expect(debounced(300, [(0, 1)]).values == [Pair(300, 1)])
    }

    @Test func aBurstEmitsOnlyItsLastValueDueTimeAfterIt() {
        #expect(debounced(300, [(0, 1), (100, 2), (200, 3)]).values == [Pair(500, 3)])
    }

    /// RxSwift: the value at exactly t + d is delivered before the timer due then and cancels it.
    @Test func aValueExactlyDueTimeLaterSwallowsThePreviousOne() {
        #expect(debounced(300, [(0, 1), (300, 2)]).values == [Pair(600, 2)])
        #expect(debounced(300, [(0, 1), (299, 2)]).values == [Pair(599, 2)])
        #expect(debounced(300, [(0, 1), (301, 2)]).values == [Pair(300, 1), Pair(601, 2)])
    }

    /// RxJS's published marble for `debounceTime(20)`: `-a--bc--d---|` → `---a---c--d-|` (10 per frame).
    @Test func publishedMarbleDiagram() {
        let r = debounced(20, [(10, 0xa), (40, 0xb), (50, 0xc), (80, 0xd)], end: .complete(120))
        #expect(r.values == [Pair(30, 0xa), Pair(70, 0xc), Pair(100, 0xd)])
        #expect(r.end == 120)
    }

    @Test func completionFlushesAPendingValueAtOnce() {
        let r = debounced(300, [(0, 1), (50, 2)], end: .complete(100))
        #expect(r.values == [Pair(100, 2)])
        #expect(r.end == 100)
    }

    @Test func completionWithoutAPendingValueOnlyCompletes() {
        #expect(debounced(300, [(0, 1)], end: .complete(400)).values == [Pair(300, 1)])
        #expect(debounced(300, [], end: .complete(400)).values == [])
    }

    @Test func completionAtTheDeadlineStillEmitsTheValueOnce() {
        #expect(debounced(300, [(0, 1)], end: .complete(300)).values == [Pair(300, 1)])
    }

    @Test func anErrorDropsThePendingValue() {
        #expect(debounced(300, [(0, 1), (100, 2)], end: .error(200)).values == [])
        #expect(debounced(300, [(0, 1), (500, 2)], end: .error(600)).values == [Pair(300, 1)])
    }

    @Test func zeroDueTimeKeepsTheLastValueOfEachInstant() {
        #expect(debounced(0, [(0, 1), (0, 2), (5, 3)]).values == [Pair(0, 2), Pair(5, 3)])
    }

    @Test func repeatedEqualValuesAreNotFilteredByDebounce() {
        #expect(debounced(10, [(0, 1), (20, 1)]).values == [Pair(10, 1), Pair(30, 1)])
    }
}

@Suite struct DistinctUntilChangedTests {
    func distinct(_ xs: [Int]) -> [Int] {
        var op = DistinctUntilChanged<Int>()
        return xs.filter { op.admit($0) }
    }

    @Test func dropsOnlyContiguousRepeats() {
        #expect(distinct([1, 1, 2, 2, 1, 3, 3]) == [1, 2, 1, 3])
        #expect(distinct([]) == [])
        #expect(distinct([7]) == [7])
    }

    @Test func comparesWithTheLastValueThatPassed() {
        var op = DistinctUntilChanged<Int>()
        let passed = [1, 1, 2].map { op.admit($0) }
        #expect(passed == [true, false, true])
        #expect(op.last == 2)
    }
}

@Suite struct CarouselGeometryTests {
    let g = CarouselGeometry()  // 300 / 10 / 390: inset 45, pitch 310

    @Test func aCardIsFullyVisibleWithinTheInsetOfItsRestingOffset() {
        #expect(g.inset == 45 && g.pitch == 310)
        #expect(g.fullyVisibleCard(at: 0, count: 5) == 0)
        #expect(g.fullyVisibleCard(at: 45, count: 5) == 0)
        #expect(g.fullyVisibleCard(at: 45.01, count: 5) == nil)
        #expect(g.fullyVisibleCard(at: 264.99, count: 5) == nil)
        #expect(g.fullyVisibleCard(at: 265, count: 5) == 1)
        #expect(g.fullyVisibleCard(at: 355, count: 5) == 1)
        #expect(g.fullyVisibleCard(at: -45, count: 5) == 0)
        #expect(g.fullyVisibleCard(at: -46, count: 5) == nil)
    }

    @Test func noCardBeyondTheListOrInAnEmptyOne() {
        #expect(g.fullyVisibleCard(at: 4 * 310, count: 5) == 4)
        #expect(g.fullyVisibleCard(at: 5 * 310, count: 5) == nil)
        #expect(g.fullyVisibleCard(at: 0, count: 0) == nil)
        #expect(g.fullyVisibleCard(at: .nan, count: 5) == nil)
    }

    @Test func aWideContainerPicksTheCardNearestTheCentreAndTiesGoLow() {
        let wide = CarouselGeometry(cardWidth: 300, spacing: 10, container: 1000)  // inset 350
        #expect(wide.fullyVisibleCard(at: 155, count: 5) == 0)
        #expect(wide.fullyVisibleCard(at: 156, count: 5) == 1)
    }

    @Test func aContainerNarrowerThanACardIsRejected() {
        #expect(CarouselGeometry(cardWidth: 300, spacing: 10, container: 299).problem != nil)
        #expect(CarouselGeometry(cardWidth: 0).problem != nil)
        #expect(CarouselGeometry(spacing: -1).problem != nil)
        #expect(g.problem == nil)
    }
}
