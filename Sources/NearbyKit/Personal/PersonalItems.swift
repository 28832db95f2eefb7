import Crypto
import Foundation
import NearbyCore
import NearbyStore

/// One personal item (or list) as JSON, with its entity tag: what a read answers and a write returns.
/// The tag is taken from the JSON, which holds the item's `updated` time, so any change of the item
/// changes it, and two devices that read the same item hold the same tag.
public struct PersonalRepresentation: Sendable, Equatable {
    public var json: [UInt8]
    /// A strong entity tag, quoted: `"` and 16 hex digits of the JSON's SHA-256 `"`.
    public var etag: String

    public init(json: [UInt8]) {
        self.json = json
        etag = Self.etag(of: json)
    }

    public static func etag(of bytes: [UInt8]) -> String {
        let digest = SHA256.hash(data: bytes)
        var out = "\""
        for b in digest.prefix(8) {
            out.append(Self.hex[Int(b >> 4)])
            out.append(Self.hex[Int(b & 15)])
        }
        return out + "\""
    }

    private static let hex = Array("0123456789abcdef")
}

/// A write's precondition on the item's current entity tag (`If-Match`): any state (the header absent
/// or `*`), or one of the listed tags. Weak tags (`W/"…"`) never match: the comparison is strong.
public enum PersonalPrecondition: Sendable, Equatable {
    case any
    case oneOf([String])

    /// From an `If-Match` header value; nil or `*` is `any`.
    public init(ifMatch header: String?) {
        guard let header, TextNormalization.trimmingSpaces(header) != "*" else {
            self = .any
            return
        }
        self = .oneOf(
            header.split(separator: ",").map { TextNormalization.trimmingSpaces(String($0)) }.filter { !$0.isEmpty })
    }

    /// Whether a write may go ahead over the item whose tag is `current` (nil: there is none).
    public func admits(_ current: String?) -> Bool {
        switch self {
        case .any: true
        case .oneOf(let tags): current.map { tags.contains($0) } ?? false
        }
    }
}

/// A conditional write found the item changed since the tag it was given (HTTP 412): nothing was
/// written. `current` is the item's tag now (nil when it has none).
public struct PersonalPreconditionFailed: NearbyError {
    public var current: String?
    public var description: String {
        "the item changed since that entity tag (If-Match); read it again"
            + (current.map { ": it is now \($0)" } ?? ": it no longer exists")
    }
    public var kind: ErrorKind { .conflict }
}

/// The items one at a time, as JSON with an entity tag (`PersonalRepresentation`), and writes that
/// check a precondition on that tag first. The command line and the server share them: `nearby
/// bookmark list` and `GET /v1/me/bookmarks` write the same lines. A check and its write are one
/// transaction (`PersonalStorage.conditionalWrite`): of two writers holding the same tag, on any
/// connection, process or server, one writes and the other is refused.
extension PersonalLayer {
    // MARK: Bookmarks

    /// A bookmark as `{"id","list","added"}`, or nil.
    public func bookmark(user: String, place: String, list: String?) throws -> PersonalRepresentation? {
        let list = try Self.list(list)
        guard let r = try store.bookmarkRecord(user: try Self.user(user), place: place, list: list) else { return nil }
        var out: [UInt8] = []
        BookmarkLine(place: place, list: list, added: r.added, gone: false, title: nil).appendJSON(to: &out)
        return PersonalRepresentation(json: out)
    }

    /// Bookmarks `place` in `list` (a place cached) when `precondition` admits the bookmark as it is.
    public func putBookmark(user: String, place: String, list: String?, if precondition: PersonalPrecondition = .any)
        throws -> PersonalRepresentation
    {
        try store.conditionalWrite(user: user) {
            try check(precondition, try bookmark(user: user, place: place, list: list))
            try addBookmarks(user: user, places: [place], list: list)
            return try bookmark(user: user, place: place, list: list)!
        }
    }

    /// Removes the bookmark; false when there was none.
    public func deleteBookmark(user: String, place: String, list: String?, if precondition: PersonalPrecondition = .any)
        throws -> Bool
    {
        try store.conditionalWrite(user: user) {
            try check(precondition, try bookmark(user: user, place: place, list: list))
            return try removeBookmarks(user: user, places: [place], list: list) > 0
        }
    }

    /// `{"bookmarks":[…]}`: the user's bookmarks (in `list`, or all) as `nearby bookmark list` writes them.
    public func bookmarkList(user: String, list: String?) throws -> PersonalRepresentation {
        var out = Array("{\"bookmarks\":[".utf8)
        for (i, b) in try bookmarks(user: user, list: list).enumerated() {
            out += Array((i == 0 ? "\n" : ",\n").utf8)
            b.appendJSON(to: &out)
        }
        out += Array("\n]}\n".utf8)
        return PersonalRepresentation(json: out)
    }

    // MARK: Ratings

    /// A rating as `{"id","stars","updated"}`, or nil.
    public func rating(user: String, place: String) throws -> PersonalRepresentation? {
        guard let r = try store.ratingRecord(user: try Self.user(user), place: place) else { return nil }
        var out = Array("{\"id\":".utf8)
        JSONWriter.appendString(place, to: &out)
        out += Array(",\"stars\":\(r.stars),\"updated\":\"\(Self.isoTime(r.updated))\"}".utf8)
        return PersonalRepresentation(json: out)
    }

    /// Sets the rating (1–5 in steps of 0.5) when `precondition` admits the rating as it is.
    public func putRating(user: String, place: String, stars: Double, if precondition: PersonalPrecondition = .any)
        throws -> PersonalRepresentation
    {
        try store.conditionalWrite(user: user) {
            try check(precondition, try rating(user: user, place: place))
            try rate(user: user, place: place, stars: stars)
            return try rating(user: user, place: place)!
        }
    }

    /// Clears the rating; false when there was none.
    public func deleteRating(user: String, place: String, if precondition: PersonalPrecondition = .any) throws -> Bool {
        try store.conditionalWrite(user: user) {
            let current = try rating(user: user, place: place)
            try check(precondition, current)
            try rate(user: user, place: place, stars: nil)
            return current != nil
        }
    }

    // MARK: Memos

    /// A memo as `{"id","text","created","updated"}`, or nil.
    public func memo(user: String, place: String) throws -> PersonalRepresentation? {
        guard let m = try store.memoRecord(user: try Self.user(user), place: place) else { return nil }
        var out = Array("{\"id\":".utf8)
        JSONWriter.appendString(place, to: &out)
        out += Array(",\"text\":".utf8)
        JSONWriter.appendString(m.text, to: &out)
        out += Array(",\"created\":\"\(Self.isoTime(m.created))\",\"updated\":\"\(Self.isoTime(m.updated))\"}".utf8)
        return PersonalRepresentation(json: out)
    }

    /// Sets the memo when `precondition` admits the memo as it is: two devices editing one memo each
    /// send the tag they read, and the second to write is refused instead of overwriting the first.
    public func putMemo(user: String, place: String, text: String, if precondition: PersonalPrecondition = .any)
        throws -> PersonalRepresentation
    {
        try store.conditionalWrite(user: user) {
            try check(precondition, try memo(user: user, place: place))
            try memo(user: user, place: place, text: text)
            return try memo(user: user, place: place)!
        }
    }

    /// Clears the memo; false when there was none.
    public func deleteMemo(user: String, place: String, if precondition: PersonalPrecondition = .any) throws -> Bool {
        try store.conditionalWrite(user: user) {
            let current = try memo(user: user, place: place)
            try check(precondition, current)
            try memo(user: user, place: place, text: nil)
            return current != nil
        }
    }

    // MARK: Visits and history

    /// Records a visit (now, or `at`); returns `{"id","at"}`.
    public func recordVisit(user: String, place: String, at: Int64?) throws -> PersonalRepresentation {
        let time = at ?? clock()
        try visit(user: user, place: place, at: time)
        var out = Array("{\"id\":".utf8)
        JSONWriter.appendString(place, to: &out)
        out += Array(",\"at\":\"\(Self.isoTime(time))\"}".utf8)
        return PersonalRepresentation(json: out)
    }

    /// `{"keyword","at"}` of one search, as `nearby history` writes it.
    public static func appendHistoryLine(keyword: String, at: Int64, to out: inout [UInt8]) {
        out += Array("{\"keyword\":".utf8)
        JSONWriter.appendString(keyword, to: &out)
        out += Array(",\"at\":\"\(isoTime(at))\"}".utf8)
    }

    /// `{"history":[…]}`, newest first.
    public func historyList(user: String) throws -> PersonalRepresentation {
        var out = Array("{\"history\":[".utf8)
        for (i, h) in try history(user: user).enumerated() {
            out += Array((i == 0 ? "\n" : ",\n").utf8)
            Self.appendHistoryLine(keyword: h.keyword, at: h.at, to: &out)
        }
        out += Array("\n]}\n".utf8)
        return PersonalRepresentation(json: out)
    }

    private func check(_ precondition: PersonalPrecondition, _ current: PersonalRepresentation?) throws {
        guard precondition.admits(current?.etag) else { throw PersonalPreconditionFailed(current: current?.etag) }
    }
}

extension PersonalLayer.BookmarkLine {
    /// `{"id","list","added"}`, with `"title"` and `"gone":true` when known.
    public func appendJSON(to out: inout [UInt8]) {
        out += Array("{\"id\":".utf8)
        JSONWriter.appendString(place, to: &out)
        out += Array(",\"list\":".utf8)
        JSONWriter.appendString(list, to: &out)
        out += Array(",\"added\":\"\(PersonalLayer.isoTime(added))\"".utf8)
        if let title {
            out += Array(",\"title\":".utf8)
            JSONWriter.appendString(title, to: &out)
        }
        if gone { out += Array(",\"gone\":true".utf8) }
        out.append(UInt8(ascii: "}"))
    }
}
