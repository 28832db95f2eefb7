import NearbyCore

/// A deterministic simulator of a carousel of result cards linked to map markers.
///
/// **The app being modelled.** A query's results are shown twice: as a horizontally paging carousel of
/// cards and as map markers. The stream of "card `i` is fully visible" events from the carousel's layout
/// goes through `debounce(300 ms)` then `distinctUntilChanged()` and selects a marker: the marker is
/// highlighted and the camera centres on its place. Tapping a marker scrolls the carousel there with an
/// animation that reports every card it passes; the debounce keeps the camera from visiting them.
///
/// **Semantics** (RxSwift is the reference; see `Debounce` and `DistinctUntilChanged`):
/// - `debounce(d)`: each index (re)starts a timer; when `d` passes with no newer index, the latest is
///   emitted at that instant. An index arriving exactly `d` after the previous one cancels the timer due at
///   that instant (inputs at an instant come before timers due at it, as in RxSwift's virtual-time
///   scheduler). Completion emits a pending index immediately, then completes; an error drops it.
/// - `distinctUntilChanged`: keyed by *what* is selected, `(list generation, index)`. Every new list (a
///   `places` input or a re-query) is a new generation, so its first card is selected and the camera moves
///   even when index 0 was selected before. A re-query that returns the same ids is still a new list.
/// - The debounced index is looked up in the list current when it comes due; an index out of range then
///   (the list shrank or was emptied while it was pending) is dropped and reported, not selected.
///
/// **Inputs** (virtual time in ms, non-decreasing):
/// - `visible(i)` / `offset(x)`: the user swipes; an offset counts only when a card is fully visible
///   (`CarouselGeometry`). A user touch stops a running tap animation.
/// - `tapMarker(i)`: an animated scroll from the current card (the last fully visible one, or 0) to card
///   `i` over `tapDuration`: cards `from±1 … i` are reported at evenly spaced instants
///   `start + k·duration / n` (k = 1…n), the last at `start + duration`. A new tap or swipe stops it where it
///   is. Tapping an index with no card is dropped and reported at once.
/// - `location(lat, lon)`: runs the injected nearby query when it is the first location or the user moved
///   more than `distanceFilter` metres (haversine) from where the last query ran, as
///   `CLLocationManager.distanceFilter` does; its results become the new list. A failing query is
///   reported and the list is kept.
/// - `places(list)`: a new list; the carousel reloads resting on card 0, which reports card 0 visible (an
///   index event through the debounce like any other). An empty list reports nothing.
/// - `complete` / `error`: end of the index stream (see debounce above). Without either, `finish()` lets the
///   pending timer and animation run out.
///
/// **Ordering at one instant**: inputs (in file order), then animation frames, then the debounce timer.
///
/// **Outputs** (`output`, drained by the caller): `selected`, `dropped`, `query`, `queryFailed`,
/// `completed`, `failed`, and with `traceVisible` every raw `visible` index event.
///
/// Performance: an index event is a few comparisons and stores (no allocation, no closure call); an
/// output appends to `output`, which keeps its capacity when drained with `removeAll(keepingCapacity:)`.
public struct CarouselSimulator {
    public struct Configuration: Sendable, Equatable {
        /// Debounce due time (ms); 0 shows the problem: every card passed is selected.
        public var debounce: Int64
        /// Duration of the scroll animation a marker tap starts (ms).
        public var tapDuration: Int64
        public var geometry: CarouselGeometry
        /// Metres the user must move (strictly more) from the last query's location to query again.
        public var distanceFilter: Double
        /// Also report every raw visible-index event (for timelines).
        public var traceVisible: Bool

        public init(
            debounce: Int64 = 300, tapDuration: Int64 = 300, geometry: CarouselGeometry = CarouselGeometry(),
            distanceFilter: Double = 50, traceVisible: Bool = false
        ) {
            self.debounce = debounce
            self.tapDuration = tapDuration
            self.geometry = geometry
            self.distanceFilter = distanceFilter
            self.traceVisible = traceVisible
        }
    }

    /// The nearby query: results for the user at (lat, lon), in carousel order.
    public typealias Query = (_ lat: Double, _ lon: Double) throws -> [Place]

    /// What `distinctUntilChanged` compares: the list generation and the card index.
    struct SelectionKey: Equatable {
        var generation: Int
        var index: Int
    }

    /// A running tap animation: cards `from + step·k` at `start + duration·k / count`, k = `next` … `count`.
    struct TapAnimation {
        var from: Int
        var step: Int
        var count: Int
        var next: Int
        var start: Int64
        var duration: Int64
        var nextTime: Int64 { start + duration * Int64(next) / Int64(count) }
        var nextCard: Int { from + step * next }
    }

    public let configuration: Configuration
    let query: Query?
    public private(set) var places: [Place] = []
    /// Incremented by every new list.
    public private(set) var generation = 0
    /// The current time: the last input's time, or the end of the final drain.
    public private(set) var now = Int64.min
    /// The last fully visible card (where a tap animation starts).
    public private(set) var visible: Int?
    /// Set by `complete`, `error` and `finish()`; later inputs are refused.
    public private(set) var finished = false
    /// Outputs in time order; the caller drains it.
    public var output: [CarouselOutput] = []

    var debounce: Debounce<Int>
    var distinct = DistinctUntilChanged<SelectionKey>()
    var animation: TapAnimation?
    var lastQuery: (lat: Double, lon: Double)?

    public init(configuration: Configuration = Configuration(), query: Query? = nil) {
        precondition(configuration.debounce >= 0 && configuration.tapDuration >= 0)
        precondition(configuration.geometry.problem == nil, configuration.geometry.problem ?? "")
        self.configuration = configuration
        self.query = query
        self.debounce = Debounce(dueTime: configuration.debounce)
    }

    /// Applies one input at time `t` after running every animation frame and timer due before `t`.
    public mutating func feed(_ input: CarouselInput, at t: Int64) throws(CarouselSimulatorError) {
        guard !finished else { throw .afterEnd }
        guard t >= now else { throw .timeWentBack(t: t, now: now) }
        if case .location = input, query == nil { throw .noQuery }  // before anything changes
        run(before: t)
        now = t
        switch input {
        case .visible(let i):
            animation = nil
            see(i, at: t, origin: .user)
        case .offset(let x):
            animation = nil
            if let i = configuration.geometry.fullyVisibleCard(at: x, count: places.count) {
                see(i, at: t, origin: .user)
            }
        case .tapMarker(let i):
            tap(i, at: t)
        case .location(let lat, let lon):
            locate(lat: lat, lon: lon, at: t, query!)
        case .places(let list):
            replace(with: list, at: t)
        case .complete:
            animation = nil
            if let i = debounce.complete() { select(i, at: t) }
            output.append(.completed(t: t))
            finished = true
        case .error(let message):
            animation = nil
            debounce.fail()
            output.append(.failed(t: t, message: message))
            finished = true
        }
    }

    /// The end of input without completion: the animation and the pending timer run out.
    public mutating func finish() {
        guard !finished else { return }
        run(through: Int64.max)
        finished = true
    }

    /// A visible-index event entering the debounce.
    @inline(__always)
    mutating func see(_ i: Int, at t: Int64, origin: VisibleOrigin) {
        visible = i
        if configuration.traceVisible { output.append(.visible(t: t, index: i, origin: origin)) }
        debounce.next(i, at: t)
    }

    /// Runs animation frames and debounce timers due strictly before `limit`.
    @inline(__always)
    mutating func run(before limit: Int64) {
        if animation == nil {  // the common case: at most one timer
            if let (i, at) = debounce.fire(before: limit) { select(i, at: at) }
            return
        }
        runAll(until: limit, inclusive: false)
    }

    mutating func run(through limit: Int64) { runAll(until: limit, inclusive: true) }

    /// The general loop: the earlier of the next frame and the timer, a frame first at equal times.
    mutating func runAll(until limit: Int64, inclusive: Bool) {
        while true {
            let frame = animation?.nextTime
            let timer = debounce.pending != nil ? debounce.deadline : nil
            if let f = frame, timer.map({ f <= $0 }) ?? true {
                guard inclusive ? f <= limit : f < limit else { return }
                var a = animation!
                let card = a.nextCard
                a.next += 1
                animation = a.next <= a.count ? a : nil
                see(card, at: f, origin: .animation)
            } else if let d = timer, inclusive ? d <= limit : d < limit {
                let (i, at) = debounce.fire(through: d)!
                select(i, at: at)
            } else {
                return
            }
        }
    }

    /// A debounced index comes due: look it up in the current list, then distinct-until-changed.
    @inline(__always)
    mutating func select(_ i: Int, at t: Int64) {
        guard i >= 0, i < places.count else {
            output.append(
                .dropped(t: t, index: i, reason: "index \(i) out of range: the list has \(places.count) cards"))
            return
        }
        guard distinct.admit(SelectionKey(generation: generation, index: i)) else { return }
        // Field by field: copying the whole `Place` would retain every one of its strings.
        output.append(.selected(t: t, index: i, id: places[i].id, lat: places[i].lat, lon: places[i].lon))
    }

    mutating func tap(_ i: Int, at t: Int64) {
        guard i >= 0, i < places.count else {
            output.append(
                .dropped(t: t, index: i, reason: "tapMarker \(i) out of range: the list has \(places.count) cards"))
            return
        }
        let from = visible ?? 0
        animation =
            from == i
            ? nil
            : TapAnimation(
                from: from, step: i > from ? 1 : -1, count: abs(i - from), next: 1, start: t,
                duration: configuration.tapDuration)
    }

    mutating func locate(lat: Double, lon: Double, at t: Int64, _ query: Query) {
        let moved = lastQuery.map { Haversine.distance(lat1: $0.lat, lon1: $0.lon, lat2: lat, lon2: lon) }
        if let m = moved, !(m > configuration.distanceFilter) { return }
        do {
            let list = try query(lat, lon)
            lastQuery = (lat, lon)
            output.append(.query(t: t, lat: lat, lon: lon, moved: moved, results: list.map(\.id)))
            replace(with: list, at: t)
        } catch {
            output.append(.queryFailed(t: t, lat: lat, lon: lon, message: "\(error)"))
        }
    }

    mutating func replace(with list: [Place], at t: Int64) {
        places = list
        generation += 1
        animation = nil
        if list.isEmpty { visible = nil } else { see(0, at: t, origin: .reload) }
    }
}

public enum CarouselSimulatorError: NearbyError, Equatable {
    case timeWentBack(t: Int64, now: Int64)
    case afterEnd
    case noQuery

    public var description: String {
        switch self {
        case .timeWentBack(let t, let now): return "time \(t) is before the previous event's time \(now)"
        case .afterEnd: return "event after the end of the stream (complete or error)"
        case .noQuery: return "a location event needs a query: give --places or query options"
        }
    }

    /// The events or options the caller gave: `.usage`.
    public var kind: ErrorKind { .usage }
}
