import ArgumentParser
import Foundation
import NearbyCarousel
import NearbyKit

struct CarouselCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "carousel",
        abstract: "Replay carousel and map interaction on a virtual clock: which marker gets selected, and when.",
        discussion: """
            A result list is shown as a paging carousel of cards and as map markers. Fully-visible-card \
            events go through debounce(--debounce ms) and distinct-until-changed (RxSwift semantics) before \
            they select a marker and centre the camera on it. A marker tap scrolls the carousel there over \
            --tap-duration ms, reporting every card it passes; the debounce keeps the camera from visiting \
            them (try --debounce 0 to see the problem). See docs/carousel.md.

            Events (--events): JSON lines, time t in ms (non-decreasing), one event each:
              {"t":0,"places":["id",{"id":"x","lat":37.5,"lon":127}]}  new list
              {"t":500,"visible":2}        card 2 fully visible (a swipe)
              {"t":600,"offset":620.5}     scroll offset in points
              {"t":900,"tapMarker":5}      marker 5 tapped: scroll to card 5
              {"t":2000,"location":{"lat":37.57,"lon":126.98}}  user moved
              {"t":3000,"complete":true}   end: a pending card is selected now
              {"t":3000,"error":"why"}     failure: a pending card is dropped

            Output (stdout, JSON lines; --format svg draws a timeline instead):
              {"t":..,"selected":i,"id":"..","camera":{"lat":..,"lon":..}}
              {"t":..,"query":{"lat":..,"lon":..},"results":["id",..]}
              {"t":..,"dropped":i,"reason":".."}   no card i when it came due

            The list starts as --places (at t=0) and changes with `places` events \
            and location re-queries: the nearby query (--radius, --limit, \
            --category, --sort) runs on the --db cache, else on the --places list, \
            when the user moved more than --distance-filter metres since the last.

            Examples:
              nearby carousel --events docs/examples/carousel-tap.jsonl \\
                --places docs/examples/carousel-places.jsonl
              nearby carousel --events tap.jsonl --places p.jsonl --debounce 0
              nearby carousel --events tap.jsonl --places p.jsonl --format svg >t.svg
              cat moves.jsonl | nearby carousel --events - --db places.sqlite
            """
    )

    @Option(help: ArgumentHelp("JSON lines events file, or - for stdin.", valueName: "file"))
    var events: String

    @Option(
        help: ArgumentHelp(
            "Places the carousel starts with: a JSON array or JSON lines of place objects ({id, lat, lon, title?, category?}) or ids (ids need --db).",
            valueName: "file"))
    var places: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Debounce due time in ms (0 selects every card passed).", valueName: "ms"))
    var debounce: Int64 = 300

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Duration of the scroll animation a marker tap starts, in ms.", valueName: "ms"))
    var tapDuration: Int64 = 300

    @Option(parsing: .unconditional, help: ArgumentHelp("Card width in points.", valueName: "pt"))
    var cardWidth: Double = 300

    @Option(parsing: .unconditional, help: ArgumentHelp("Gap between cards in points.", valueName: "pt"))
    var spacing: Double = 10

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Carousel (container) width in points; cards rest centred in it.", valueName: "pt"))
    var container: Double = 390

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Re-query only when the user moved more than this many metres from the last query.", valueName: "m"))
    var distanceFilter: Double = 50

    @Option(help: "Output: jsonl (one line per selection, query or drop) or svg (a timeline).")
    var format: Format = .jsonl

    @Option(
        help: ArgumentHelp(
            "SQLite place cache the location queries run on (and ids resolve against).", valueName: "path"))
    var db: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Query radius around the user in metres.", valueName: "m"))
    var radius: Double = 1000

    @Option(parsing: .unconditional, help: ArgumentHelp("Cards per query (0: every match).", valueName: "n"))
    var limit: Int = 20

    @Option(
        help: ArgumentHelp(
            "Keep only these content type ids, e.g. 12,39 (as in nearby query; repeatable).", valueName: "ids"))
    var category: [String] = []

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Order of the cards: keys like distance, title, -modified (default distance).", valueName: "keys"))
    var sort: String?

    enum Format: String, ExpressibleByArgument, CaseIterable { case jsonl, svg }

    func run() throws {
        let geometry = CarouselGeometry(cardWidth: cardWidth, spacing: spacing, container: container)
        if let problem = geometry.problem { throw UsageError(problem) }
        guard debounce >= 0, tapDuration >= 0, tapDuration <= 3_600_000 else {
            throw UsageError("--debounce must be ≥ 0 and --tap-duration in [0, 3600000] ms")
        }
        guard distanceFilter >= 0, distanceFilter.isFinite else {
            throw UsageError("--distance-filter must be a finite number of metres ≥ 0")
        }

        // The places the query runs over and ids resolve against.
        let stored: [Place]? = try db.map { path in
            do { return try PlaceCache(path: path, readOnly: true).allPlaces() } catch {
                throw UsageError("--db: \(error)")
            }
        }
        let template: PlaceQuery
        do {
            template = try CarouselReplay.template(radius: radius, limit: limit, categories: category, sort: sort)
        } catch { throw UsageError(error) }
        var replay = CarouselReplay(catalogue: stored ?? [])
        var initial: [Place] = []
        if let path = places {
            let text = try read(path)
            do {
                initial = try replay.startingList(text) { id in
                    "place id \"\(id)\" " + (db.map { "is not in \($0)" } ?? "needs --db to resolve")
                }
            } catch { throw UsageError("\(name(path)):\(error.line.map { "\($0):" } ?? "") \(error.reason)") }
        }
        if let over = stored ?? (places == nil ? nil : initial) {
            replay.query = CarouselReplay.query(over: over, template: template)
        }
        replay.parser.remember(initial)

        let timeline: [TimedInput]
        do { timeline = try replay.timeline(try read(events)) } catch let e as CarouselInputError {
            throw UsageError("\(name(events)):\(e.line.map { "\($0):" } ?? "") \(e.reason)")
        }

        let configuration = CarouselSimulator.Configuration(
            debounce: debounce, tapDuration: tapDuration, geometry: geometry, distanceFilter: distanceFilter,
            traceVisible: format == .svg)
        var out = StdoutBlocks()
        var all: [CarouselOutput] = []
        try replay.run(timeline, initial: places == nil ? nil : initial, configuration: configuration) { outputs in
            switch format {
            case .jsonl:
                for o in outputs { out.bytes.append(contentsOf: (o.jsonLine + "\n").utf8) }
                try out.flushIfFull()
            case .svg:
                all += outputs
            }
        }
        if format == .svg { out.bytes.append(contentsOf: TimelineSVG.render(all, debounce: debounce).utf8) }
        try out.flush()
    }

    /// How messages name an input: `file:line: reason`, with stdin as `<stdin>` (as `nearby import` does).
    func name(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    func read(_ path: String) throws -> String {
        if path == "-" { return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("\(path): cannot read the file")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
