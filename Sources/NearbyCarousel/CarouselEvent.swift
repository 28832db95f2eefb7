import NearbyCore

/// One input to the carousel simulator (see `CarouselSimulator` for what each does).
public enum CarouselInput: Equatable, Sendable {
    /// The layout callback reports card `i` fully visible (a user swipe, given as indices).
    case visible(Int)
    /// The user scrolled to this content offset (points); geometry decides which card, if any, is fully visible.
    case offset(Double)
    /// The user tapped marker `i`: an animated programmatic scroll to card `i`.
    case tapMarker(Int)
    /// A user location update (WGS84 degrees).
    case location(lat: Double, lon: Double)
    /// A new result list replaces the carousel's cards.
    case places([Place])
    /// End of the index stream (RxSwift `.completed`).
    case complete
    /// The index stream fails (RxSwift `.error`).
    case error(String)
}

/// An input at a virtual time in milliseconds.
public struct TimedInput: Equatable, Sendable {
    public var t: Int64
    public var input: CarouselInput
    public init(t: Int64, _ input: CarouselInput) {
        self.t = t
        self.input = input
    }
}

/// A bad event or place: the reason, without the line number (the caller knows it).
public struct CarouselInputError: NearbyError, Equatable {
    /// What is wrong, naming the field.
    public var reason: String
    /// The line of a JSON lines input it is on, when known (so a caller can write `FILE:LINE: reason`).
    public var line: Int?
    public init(_ reason: String, line: Int? = nil) {
        self.reason = reason
        self.line = line
    }
    public var description: String { line.map { "line \($0): \(reason)" } ?? reason }
    public var kind: ErrorKind { .usage }
}

/// Reads events written as JSON lines: `{"t": ms, KIND: ...}` with exactly one KIND of `visible`,
/// `offset`, `tapMarker`, `location`, `places`, `complete` or `error`.
///
/// Places in a `places` event are place objects (`{"id", "lat", "lon"}`, optional `title`, `category`) or
/// ids of places the parser already knows: the catalogue it was given (`--places`) plus every place object
/// seen in earlier events. Lines are read into NearbyCore's `JSONValue` tree (event files are small).
public struct CarouselEventParser {
    public private(set) var catalogue: [String: Place]

    public init(catalogue: [Place] = []) {
        self.catalogue = Dictionary(minimumCapacity: catalogue.count)
        remember(catalogue)
    }

    /// Makes these places nameable by id in later `places` events (a later place wins over an earlier one).
    public mutating func remember(_ places: [Place]) {
        for p in places { catalogue[p.id] = p }
    }

    public static let kinds = ["visible", "offset", "tapMarker", "location", "places", "complete", "error"]

    public mutating func parse(_ line: String) throws(CarouselInputError) -> TimedInput {
        guard case .object(let fields) = try JSONValue.parse(text: line) else {
            throw CarouselInputError("an event must be a JSON object")
        }
        if let twice = fields.repeatedKey { throw CarouselInputError("field \"\(twice)\" appears twice") }
        guard let tv = fields["t"] else { throw CarouselInputError("missing field \"t\" (time in ms)") }
        guard let t = tv.integer, t >= 0 else {
            throw CarouselInputError("field \"t\" must be a non-negative integer (ms)")
        }
        let others = fields.members.map(\.key).filter { $0 != "t" }.sorted()
        guard others.count == 1, let kind = others.first else {
            throw CarouselInputError(
                others.isEmpty
                    ? "no event: give one of \(Self.kinds.joined(separator: ", "))"
                    : "one event per line, found \(others.joined(separator: ", "))")
        }
        let v = fields[kind]!
        switch kind {
        case "visible": return TimedInput(t: t, .visible(try Self.index(v, kind)))
        case "tapMarker": return TimedInput(t: t, .tapMarker(try Self.index(v, kind)))
        case "offset":
            guard let x = v.number else { throw CarouselInputError("\"offset\" must be a number (points)") }
            return TimedInput(t: t, .offset(x))
        case "location":
            let (lat, lon) = try Self.coordinates(v, "location")
            return TimedInput(t: t, .location(lat: lat, lon: lon))
        case "places":
            guard case .array(let items) = v else {
                throw CarouselInputError("\"places\" must be an array of place objects or ids")
            }
            var list: [Place] = []
            for (i, item) in items.enumerated() {
                let p = try resolve(item, at: "places[\(i)]")
                list.append(p)
            }
            return TimedInput(t: t, .places(list))
        case "complete":
            guard case .bool(true) = v else { throw CarouselInputError("\"complete\" must be true") }
            return TimedInput(t: t, .complete)
        case "error":
            guard case .string(let s) = v else { throw CarouselInputError("\"error\" must be a string") }
            return TimedInput(t: t, .error(s))
        default:
            throw CarouselInputError("unknown event \"\(kind)\": use one of \(Self.kinds.joined(separator: ", "))")
        }
    }

    /// A place object (remembered in the catalogue) or the id of a known place.
    private mutating func resolve(_ v: JSONValue, at field: String) throws(CarouselInputError) -> Place {
        if let key = v.idText {
            guard let p = catalogue[key] else {
                throw CarouselInputError(
                    "\(field): unknown place id \"\(key)\" (give a place object, or list it in --places)")
            }
            return p
        }
        let p = try Self.place(v, at: field)
        catalogue[p.id] = p
        return p
    }

    /// A place object: `id` (string or integer), `lat`, `lon`, optional `title` and `category`.
    static func place(_ v: JSONValue, at field: String) throws(CarouselInputError) -> Place {
        guard case .object(let o) = v else {
            throw CarouselInputError("\(field): a place must be an object with id, lat, lon, or an id")
        }
        guard let id = o["id"]?.idText, !id.isEmpty else {
            throw CarouselInputError("\(field).id: missing or not a non-empty string or integer")
        }
        let (lat, lon) = try coordinates(v, field)
        var title = ""
        if let tv = o["title"] {
            guard case .string(let s) = tv else { throw CarouselInputError("\(field).title: must be a string") }
            title = TextNormalization.nfc(s)
        }
        var category = 0
        if let cv = o["category"] {
            guard let c = cv.integer, let ci = Int(exactly: c) else {
                throw CarouselInputError("\(field).category: must be an integer")
            }
            category = ci
        }
        return Place(id: id, title: title, lat: lat, lon: lon, category: category)
    }

    static func index(_ v: JSONValue, _ kind: String) throws(CarouselInputError) -> Int {
        guard let i = v.integer, let n = Int(exactly: i) else {
            throw CarouselInputError("\"\(kind)\" must be an integer card index")
        }
        return n
    }

    static func coordinates(_ v: JSONValue, _ field: String) throws(CarouselInputError) -> (Double, Double) {
        guard case .object(let o) = v else {
            throw CarouselInputError("\"\(field)\" must be an object with lat and lon")
        }
        guard let lat = o["lat"]?.number, (-90...90).contains(lat) else {
            throw CarouselInputError("\(field).lat: must be a number in [-90, 90]")
        }
        guard let lon = o["lon"]?.number, (-180...180).contains(lon) else {
            throw CarouselInputError("\(field).lon: must be a number in [-180, 180]")
        }
        return (lat, lon)
    }
}

/// A `--places` file: a JSON array, or JSON lines, of place objects or ids. Ids are returned as
/// `.id` for the caller to resolve (against a store); objects as `.place`.
public enum PlaceListEntry: Equatable, Sendable {
    case place(Place)
    case id(String)

    public static func parseList(_ text: String) throws(CarouselInputError) -> [PlaceListEntry] {
        let trimmed = text.drop { $0.isWhitespace }
        if trimmed.first == "[" {
            guard case .array(let items) = try JSONValue.parse(text: String(trimmed)) else {
                throw CarouselInputError("not a JSON array")
            }
            var out: [PlaceListEntry] = []
            for (i, item) in items.enumerated() { out.append(try entry(item, at: "place \(i + 1)")) }
            return out
        }
        var out: [PlaceListEntry] = []
        var n = 0
        for line in TextLines.of(text) {
            n += 1
            if line.allSatisfy({ $0.isWhitespace }) { continue }
            do { out.append(try entry(try JSONValue.parse(text: line), at: "place")) } catch {
                throw CarouselInputError("\(error)", line: n)
            }
        }
        return out
    }

    static func entry(_ v: JSONValue, at field: String) throws(CarouselInputError) -> PlaceListEntry {
        if let id = v.idText { return .id(id) }
        return .place(try CarouselEventParser.place(v, at: field))
    }
}

/// Reading events with NearbyCore's JSON tree (numbers keep their text until a field decides its type).
extension JSONValue {
    static func parse(text: String) throws(CarouselInputError) -> JSONValue {
        do { return try Array(text.utf8).withUnsafeBytes { try JSONValue.parse($0) } } catch {
            throw CarouselInputError("not valid JSON: \(error)")
        }
    }

    var number: Double? {
        if case .number(let s) = self, let d = Double(s), d.isFinite { return d }
        return nil
    }

    /// An integral number that a Double represents exactly (|n| ≤ 2⁵³).
    var integer: Int64? {
        guard let d = number, d == d.rounded(), abs(d) <= 9_007_199_254_740_992 else { return nil }
        return Int64(d)
    }

    /// An id: a non-empty string, or an integer written as its decimal text (the workload's ids).
    var idText: String? {
        switch self {
        case .string(let s): return s.isEmpty ? nil : s
        case .number: return integer.map { String($0) }
        default: return nil
        }
    }
}

extension JSONObject {
    /// The first key that appears more than once, if any.
    var repeatedKey: String? {
        var seen = Set<String>()
        return members.first { !seen.insert($0.key).inserted }?.key
    }
}
