import NearbyCore

/// A whole replay of a recorded interaction, as `nearby carousel` runs it: the starting list, the
/// event stream checked in full before anything is simulated (so bad input prints nothing but the
/// error), then the simulation, whose output is handed out as it is produced.
public struct CarouselReplay {
    /// What the events may ask for beyond the list they carry.
    public var parser: CarouselEventParser
    /// The nearby query a `location` event runs; nil when there is nothing to query.
    public var query: CarouselSimulator.Query?

    public init(catalogue: [Place] = [], query: CarouselSimulator.Query? = nil) {
        self.parser = CarouselEventParser(catalogue: catalogue)
        self.query = query
    }

    /// The query for a location: the memory engine over `places`, with `template`'s filters, sort and
    /// page; only the centre changes per location.
    public static func query(over places: [Place], template: PlaceQuery) -> CarouselSimulator.Query {
        let engine = MemoryEngine(places: places)
        return { lat, lon in
            var query = template
            query.center = Coordinate(lat: lat, lon: lon)
            return try engine.run(query).places
        }
    }

    /// The query options as the request parser sees them (the centre is a placeholder, set per
    /// location), so a bad option is refused even when there is nothing to query.
    public static func template(radius: Double, limit: Int, categories: [String], sort: String?) throws(RequestError)
        -> PlaceQuery
    {
        var pairs = [
            ("lat", "0"), ("lon", "0"), ("radius", "\(radius)"), ("limit", "\(limit)"), ("sort", sort ?? "distance"),
        ]
        for c in categories { pairs.append(("category", c)) }
        return try QueryParameters.parse(pairs)
    }

    /// The starting list of a `--places` text: place objects as given, ids found in the catalogue. An id
    /// the catalogue lacks is refused with `missing(id)` as the reason (the caller knows where the
    /// catalogue came from).
    public func startingList(_ text: String, missing: (String) -> String) throws(CarouselInputError) -> [Place] {
        var places: [Place] = []
        for entry in try PlaceListEntry.parseList(text) {
            switch entry {
            case .place(let p): places.append(p)
            case .id(let id):
                guard let p = parser.catalogue[id] else { throw CarouselInputError(missing(id)) }
                places.append(p)
            }
        }
        return places
    }

    /// Every event of a JSON-lines stream, checked: times non-decreasing, nothing after the end,
    /// location events only when there is a query. Blank lines are skipped; errors carry the line.
    public mutating func timeline(_ text: String) throws(CarouselInputError) -> [TimedInput] {
        var timeline: [TimedInput] = []
        var lineNo = 0
        var last: Int64 = 0
        var ended = false
        for text in TextLines.of(text) {
            lineNo += 1
            if text.allSatisfy(\.isWhitespace) { continue }
            func problem(_ reason: String) -> CarouselInputError { CarouselInputError(reason, line: lineNo) }
            let event: TimedInput
            do { event = try parser.parse(text) } catch { throw problem(error.reason) }
            if ended { throw problem("event after the end of the stream (complete or error)") }
            if event.t < last { throw problem("time \(event.t) is before the previous event's time \(last)") }
            if case .location = event.input, query == nil {
                throw problem("a location event needs a query: give --db or --places")
            }
            if case .complete = event.input { ended = true }
            if case .error = event.input { ended = true }
            last = event.t
            timeline.append(event)
        }
        return timeline
    }

    /// Runs the simulation: `initial` (if any) at t = 0, then `timeline`; `emit` gets the outputs
    /// after each event (and after the end), so a long replay streams instead of piling up.
    public func run(
        _ timeline: [TimedInput], initial: [Place]?, configuration: CarouselSimulator.Configuration,
        emit: ([CarouselOutput]) throws -> Void
    ) throws {
        var sim = CarouselSimulator(configuration: configuration, query: query)
        func drain() throws {
            try emit(sim.output)
            sim.output.removeAll(keepingCapacity: true)
        }
        if let initial { try sim.feed(.places(initial), at: 0) }
        for e in timeline {
            try sim.feed(e.input, at: e.t)
            try drain()
        }
        sim.finish()
        try drain()
    }
}
