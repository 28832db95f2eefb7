import NearbyCore

/// What a visible-index event came from (traced only when `Configuration.traceVisible` is set).
public enum VisibleOrigin: String, Sendable {
    /// The user's swipe (`visible` or `offset` input).
    case user
    /// A frame of the animated scroll started by a marker tap.
    case animation
    /// The carousel reloaded with a new list and rests on its first card.
    case reload
}

/// One thing the simulator reports, at its virtual time `t` (ms).
public enum CarouselOutput: Equatable, Sendable {
    /// A raw fully-visible-card event entering the debounce (trace only).
    case visible(t: Int64, index: Int, origin: VisibleOrigin)
    /// The selection changed: marker `index` (place `id`) is selected and the camera centres on it.
    case selected(t: Int64, index: Int, id: String, lat: Double, lon: Double)
    /// An index that could not be selected (out of range when it came due, or a tap on no card).
    case dropped(t: Int64, index: Int, reason: String)
    /// The nearby query ran for a location update; `moved` is the distance (m) from the previous query's
    /// location, nil for the first query.
    case query(t: Int64, lat: Double, lon: Double, moved: Double?, results: [String])
    /// The nearby query threw; the list stays as it was.
    case queryFailed(t: Int64, lat: Double, lon: Double, message: String)
    /// The index stream completed.
    case completed(t: Int64)
    /// The index stream failed.
    case failed(t: Int64, message: String)

    public var t: Int64 {
        switch self {
        case .visible(let t, _, _), .selected(let t, _, _, _, _), .dropped(let t, _, _), .query(let t, _, _, _, _),
            .queryFailed(let t, _, _, _), .completed(let t), .failed(let t, _):
            return t
        }
    }

    /// The output as one JSON line (no trailing newline).
    public var jsonLine: String {
        switch self {
        case .visible(let t, let i, let origin):
            return "{\"t\":\(t),\"visible\":\(i),\"origin\":\"\(origin.rawValue)\"}"
        case .selected(let t, let i, let id, let lat, let lon):
            return "{\"t\":\(t),\"selected\":\(i),\"id\":\(quoted(id)),\"camera\":{\"lat\":\(lat),\"lon\":\(lon)}}"
        case .dropped(let t, let i, let reason):
            return "{\"t\":\(t),\"dropped\":\(i),\"reason\":\(quoted(reason))}"
        case .query(let t, let lat, let lon, let moved, let results):
            let m = moved.map { ",\"moved\":\(($0 * 10).rounded() / 10)" } ?? ""
            let ids = results.map(quoted).joined(separator: ",")
            return "{\"t\":\(t),\"query\":{\"lat\":\(lat),\"lon\":\(lon)\(m)},\"results\":[\(ids)]}"
        case .queryFailed(let t, let lat, let lon, let message):
            return "{\"t\":\(t),\"query\":{\"lat\":\(lat),\"lon\":\(lon)},\"error\":\(quoted(message))}"
        case .completed(let t):
            return "{\"t\":\(t),\"complete\":true}"
        case .failed(let t, let message):
            return "{\"t\":\(t),\"error\":\(quoted(message))}"
        }
    }
}

/// A JSON string literal, escaped by the project's one escaper (`JSONWriter`).
private func quoted(_ s: String) -> String {
    var bytes: [UInt8] = []
    JSONWriter.appendString(s, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}
