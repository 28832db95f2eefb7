import Foundation
import NearbyCore
import NearbyStore

/// The personal layer's use-cases: one user's bookmarks (in named lists), rating, memo, visits and
/// search history, per place id, in a `PersonalStorage` (the cache's personal tables, or the same tables
/// in PostGIS); and what a query needs of them (`attach`, `recordSearch`). Shells (the CLI, the server) stay thin: they parse,
/// call these, and print.
public struct PersonalLayer {
    public let store: any PersonalStorage
    /// How many searches a user's history keeps (newest first).
    public var historyLength: Int
    /// Now, in Unix milliseconds (tests fix it).
    public var clock: () -> Int64

    public static let defaultHistoryLength = 100
    public static let defaultList = "default"

    public init(
        store: any PersonalStorage, historyLength: Int = PersonalLayer.defaultHistoryLength,
        clock: (() -> Int64)? = nil
    ) {
        self.store = store
        self.historyLength = historyLength
        self.clock = clock ?? { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
    }

    // MARK: Queries

    /// Attaches the user's data to `q` when it reads any, or `always` (output fields that show it).
    /// A public query is left as it is and pays nothing.
    public static func attach(_ q: inout PlaceQuery, from store: any PersonalStorage, always: Bool = false) throws {
        guard q.usesPersonalData || always else { return }
        q.personalData = PersonalDataRef(try store.personalData(user: q.personal.user))
    }

    /// Whether `q` is a search its user's history records: a keyword query that did not say
    /// `no-history`, on its first page (a later page, by `page` or a cursor, is the same search).
    public static func recordsSearch(_ q: PlaceQuery) -> Bool {
        q.filter.keyword != nil && q.personal.recordsHistory && q.cursor == nil && q.page <= 1
    }

    /// Records a keyword query's keyword (NFC) in its user's history when it is a search
    /// (`recordsSearch`): newest first, a repeated keyword moved to the top, `historyLength` kept.
    public func recordSearch(of q: PlaceQuery) throws {
        guard Self.recordsSearch(q), let keyword = q.filter.keyword else { return }
        try store.recordSearch(
            user: q.personal.user, keyword: TextNormalization.nfc(keyword), at: clock(), cap: historyLength)
    }

    // MARK: Items

    public func addBookmarks(user: String, places: [String], list: String?) throws {
        let list = try Self.list(list)
        try requirePlaces(places)
        try store.addBookmarks(user: try Self.user(user), places: places, list: list, at: clock())
    }

    /// Removes bookmarks from `list` (the default list when nil); returns how many there were.
    @discardableResult
    public func removeBookmarks(user: String, places: [String], list: String?) throws -> Int {
        try store.removeBookmarks(user: try Self.user(user), places: places, list: try Self.list(list))
    }

    /// One bookmark as `nearby bookmark list` writes it.
    public struct BookmarkLine: Sendable, Hashable {
        public var place: String
        public var list: String
        public var added: Int64
        /// The place is no longer in the cache (its data stays, and returns with it).
        public var gone: Bool
        public var title: String?
    }

    /// The user's bookmarks (in `list`, or every list), by list then time added then id.
    public func bookmarks(user: String, list: String?) throws -> [BookmarkLine] {
        let wanted = try list.map { try Self.list($0) }
        var out: [BookmarkLine] = []
        for r in try store.personalRecords(user: try Self.user(user)) {
            guard case .bookmark(let place, let l, let added, _) = r, wanted == nil || wanted == l else { continue }
            let p = try store.place(id: place)
            out.append(BookmarkLine(place: place, list: l, added: added, gone: p == nil, title: p?.title))
        }
        return out.sorted { ($0.list, $0.added, $0.place) < ($1.list, $1.added, $1.place) }
    }

    /// Sets the rating (1–5 in steps of 0.5), or clears it with nil.
    public func rate(user: String, place: String, stars: Double?) throws {
        if let stars {
            guard stars.isFinite, (1...5).contains(stars), (stars * 2).rounded() == stars * 2 else {
                throw UsageError("stars: \(stars) is not 1–5 in steps of 0.5")
            }
            try requirePlaces([place])
        }
        try store.setRating(user: try Self.user(user), place: place, stars: stars, at: clock())
    }

    /// Sets the memo (NFC-normalised; one per place), or clears it with nil.
    public func memo(user: String, place: String, text: String?) throws {
        if let text {
            guard !TextNormalization.trimmingSpaces(text).isEmpty else {
                throw UsageError("memo: empty text (--clear removes a memo)")
            }
            try requirePlaces([place])
        }
        try store.setMemo(user: try Self.user(user), place: place, text: text.map(TextNormalization.nfc), at: clock())
    }

    public func visit(user: String, place: String, at: Int64?) throws {
        try requirePlaces([place])
        let now = clock()
        try store.addVisit(user: try Self.user(user), place: place, at: at ?? now, now: now)
    }

    public func history(user: String) throws -> [(keyword: String, at: Int64)] {
        try store.searchHistory(user: try Self.user(user))
    }

    public func clearHistory(user: String) throws { try store.clearHistory(user: try Self.user(user)) }

    // MARK: Checks

    static func user(_ name: String) throws -> String {
        guard PersonalFilter.isUserName(name) else {
            throw UsageError(
                "--user: \(MessageText.quoted(name)) is not a user name (1–64 ASCII letters, digits, '.', '_' or '-')")
        }
        return name
    }

    static func list(_ name: String?) throws -> String {
        guard let name else { return defaultList }
        guard PersonalFilter.isListName(name) else {
            throw UsageError("--list: \(MessageText.quoted(name)) is not a list name (1–64 characters, no commas)")
        }
        return name
    }

    /// Items are made for cached places only (they stay when a place later disappears).
    private func requirePlaces(_ ids: [String]) throws {
        for id in ids where try store.place(id: id) == nil {
            throw PersonalNotFound("no cached place with id \(MessageText.quoted(id))")
        }
    }

    /// Unix milliseconds as ISO 8601 UTC with milliseconds (`2026-11-28T06:10:15.123Z`).
    public static func isoTime(_ ms: Int64) -> String { PersonalJSON.time(ms) }

    /// ISO 8601 (with or without fractional seconds, `Z` or an offset), a `yyyy-MM-dd` day, or Unix
    /// milliseconds; nil otherwise.
    public static func parseTime(_ text: String) -> Int64? {
        if let ms = Int64(text), ms >= 0 { return ms }
        let f = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate],
        ] {
            f.formatOptions = options
            if let d = f.date(from: text) { return Int64((d.timeIntervalSince1970 * 1000).rounded()) }
        }
        return nil
    }
}

/// A personal command named a place that is not cached (exit 1, HTTP 404).
public struct PersonalNotFound: NearbyError {
    public var description: String
    public init(_ description: String) { self.description = description }
    public var kind: ErrorKind { .notFound }
}
