import CSQLite
import Foundation
import NearbyCore

/// One item of a user's personal data as stored: every kind carries `updated` (Unix milliseconds), the
/// time a restore's merge compares (the newer wins). Keys: a bookmark is (place, list), a rating and a
/// memo are per place, a visit is (place, at), a search (keyword).
public enum PersonalRecord: Sendable, Hashable {
    case bookmark(place: String, list: String, added: Int64, updated: Int64)
    case rating(place: String, stars: Double, updated: Int64)
    case memo(place: String, text: String, created: Int64, updated: Int64)
    case visit(place: String, at: Int64, updated: Int64)
    case search(keyword: String, at: Int64, updated: Int64)
}

/// A user as the `users` table holds one: tokens only as SHA-256 hashes (lowercase hex).
public struct UserRecord: Sendable, Hashable {
    public var name: String
    public var revoked: Bool
    public var tokenHashes: [String]
    public var created: Int64
    public var updated: Int64
    public init(name: String, revoked: Bool, tokenHashes: [String], created: Int64, updated: Int64) {
        self.name = name
        self.revoked = revoked
        self.tokenHashes = tokenHashes
        self.created = created
        self.updated = updated
    }
}

/// The personal tables (schema version 5) and their reads and writes. Imports never touch them and they
/// name places by id only, so re-importing keeps every user's data, and a place that disappears keeps
/// its items (they come back with it). No write here bumps the cache's `generation`: the index
/// snapshot and the cursors stay valid, and the next query reads the new data (`PersonalData`).
extension PlaceCache {
    static let personalSQL = """
        CREATE TABLE IF NOT EXISTS users(name TEXT PRIMARY KEY, revoked INTEGER NOT NULL DEFAULT 0, created INTEGER NOT NULL,
            updated INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS user_tokens(hash TEXT PRIMARY KEY, user TEXT NOT NULL, created INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS user_bookmarks(user TEXT NOT NULL, place TEXT NOT NULL, list TEXT NOT NULL,
            added INTEGER NOT NULL, updated INTEGER NOT NULL, PRIMARY KEY(user, place, list)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS user_ratings(user TEXT NOT NULL, place TEXT NOT NULL, stars REAL NOT NULL,
            updated INTEGER NOT NULL, PRIMARY KEY(user, place)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS user_memos(user TEXT NOT NULL, place TEXT NOT NULL, text TEXT NOT NULL, created INTEGER NOT NULL,
            updated INTEGER NOT NULL, PRIMARY KEY(user, place)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS user_visits(user TEXT NOT NULL, place TEXT NOT NULL, at INTEGER NOT NULL,
            updated INTEGER NOT NULL, PRIMARY KEY(user, place, at)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS user_history(user TEXT NOT NULL, keyword TEXT NOT NULL, at INTEGER NOT NULL,
            updated INTEGER NOT NULL, PRIMARY KEY(user, keyword)) WITHOUT ROWID
        """

    /// The tables holding one user's items (each has a `user` column).
    static let personalTables = ["user_bookmarks", "user_ratings", "user_memos", "user_visits", "user_history"]

    private func run(_ sql: String, _ bind: (SQLiteStatement) throws -> Void) throws {
        let s = try connection.prepare(sql)
        try bind(s)
        try s.step()
    }

    private func rows(_ sql: String, _ bind: (SQLiteStatement) throws -> Void, _ row: (SQLiteStatement) throws -> Void)
        throws
    {
        let s = try connection.prepare(sql)
        try bind(s)
        while try s.step() { try row(s) }
    }

    private func wrap<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as SQLiteError { throw PlaceCacheError(e, path: path) }
    }

    // MARK: Reading

    /// Every item of `user`, in a fixed order (kind, then key): what a backup writes.
    public func personalRecords(user: String) throws -> [PersonalRecord] {
        try wrap {
            var out: [PersonalRecord] = []
            let u: (SQLiteStatement) throws -> Void = { try $0.bind(1, user) }
            try rows("SELECT place, list, added, updated FROM user_bookmarks WHERE user = ?1 ORDER BY place, list", u) {
                out.append(.bookmark(place: $0.text(0)!, list: $0.text(1)!, added: $0.int64(2), updated: $0.int64(3)))
            }
            try rows("SELECT place, stars, updated FROM user_ratings WHERE user = ?1 ORDER BY place", u) {
                out.append(.rating(place: $0.text(0)!, stars: $0.double(1), updated: $0.int64(2)))
            }
            try rows("SELECT place, text, created, updated FROM user_memos WHERE user = ?1 ORDER BY place", u) {
                out.append(.memo(place: $0.text(0)!, text: $0.text(1)!, created: $0.int64(2), updated: $0.int64(3)))
            }
            try rows("SELECT place, at, updated FROM user_visits WHERE user = ?1 ORDER BY place, at", u) {
                out.append(.visit(place: $0.text(0)!, at: $0.int64(1), updated: $0.int64(2)))
            }
            try rows("SELECT keyword, at, updated FROM user_history WHERE user = ?1 ORDER BY at DESC, keyword", u) {
                out.append(.search(keyword: $0.text(0)!, at: $0.int64(1), updated: $0.int64(2)))
            }
            return out
        }
    }

    /// One bookmark of `user`: when it was added and last written, or nil.
    public func bookmarkRecord(user: String, place: String, list: String) throws -> (added: Int64, updated: Int64)? {
        try wrap {
            var found: (Int64, Int64)?
            try rows(
                "SELECT added, updated FROM user_bookmarks WHERE user = ?1 AND place = ?2 AND list = ?3",
                {
                    try $0.bind(1, user)
                    try $0.bind(2, place)
                    try $0.bind(3, list)
                }
            ) { found = ($0.int64(0), $0.int64(1)) }
            return found
        }
    }

    /// `user`'s rating of `place` and when it was written, or nil.
    public func ratingRecord(user: String, place: String) throws -> (stars: Double, updated: Int64)? {
        try wrap {
            var found: (Double, Int64)?
            try rows(
                "SELECT stars, updated FROM user_ratings WHERE user = ?1 AND place = ?2",
                {
                    try $0.bind(1, user)
                    try $0.bind(2, place)
                }
            ) { found = ($0.double(0), $0.int64(1)) }
            return found
        }
    }

    /// `user`'s memo on `place`, or nil.
    public func memoRecord(user: String, place: String) throws -> (text: String, created: Int64, updated: Int64)? {
        try wrap {
            var found: (String, Int64, Int64)?
            try rows(
                "SELECT text, created, updated FROM user_memos WHERE user = ?1 AND place = ?2",
                {
                    try $0.bind(1, user)
                    try $0.bind(2, place)
                }
            ) { found = ($0.text(0)!, $0.int64(1), $0.int64(2)) }
            return found
        }
    }

    /// SQLite's `data_version` of this connection: it changes when another connection (of this
    /// process or another) commits, so a reader can tell cheaply whether what it read is still current.
    public func dataVersion() throws -> Int64 {
        try wrap { try connection.integer("PRAGMA data_version") }
    }

    /// The user's searches, newest first.
    public func searchHistory(user: String) throws -> [(keyword: String, at: Int64)] {
        try wrap {
            var out: [(String, Int64)] = []
            try rows(
                "SELECT keyword, at FROM user_history WHERE user = ?1 ORDER BY at DESC, keyword",
                { try $0.bind(1, user) }
            ) { out.append(($0.text(0)!, $0.int64(1))) }
            return out
        }
    }

    /// Every user of the `users` table, by name.
    public func users() throws -> [UserRecord] {
        try wrap {
            var out: [UserRecord] = []
            try rows("SELECT name, revoked, created, updated FROM users ORDER BY name", { _ in }) {
                out.append(
                    UserRecord(
                        name: $0.text(0)!, revoked: $0.int64(1) != 0, tokenHashes: [], created: $0.int64(2),
                        updated: $0.int64(3)))
            }
            for i in out.indices {
                try rows("SELECT hash FROM user_tokens WHERE user = ?1 ORDER BY hash", { try $0.bind(1, out[i].name) })
                {
                    out[i].tokenHashes.append($0.text(0)!)
                }
            }
            return out
        }
    }

    /// The names of users that have items (registered or not), sorted.
    public func usersWithData() throws -> [String] {
        try wrap {
            var names = Set<String>()
            for t in Self.personalTables {
                try rows("SELECT DISTINCT user FROM \(t)", { _ in }) { names.insert($0.text(0)!) }
            }
            return names.sorted()
        }
    }

    /// Token hashes of users not revoked: (hash, user).
    public func activeTokenHashes() throws -> [(hash: String, user: String)] {
        try wrap {
            var out: [(String, String)] = []
            try rows(
                "SELECT t.hash, t.user FROM user_tokens t JOIN users u ON u.name = t.user WHERE u.revoked = 0", { _ in }
            ) { out.append(($0.text(0)!, $0.text(1)!)) }
            return out
        }
    }

    // MARK: Writing (each call one transaction; none bumps the generation)

    /// `body` in one write transaction (`BEGIN IMMEDIATE`: the database's one writer from the start,
    /// so what it reads stays as read until it commits), or in the one `conditionalWrite` opened.
    private func personalWrite<T>(_ body: () throws -> T) throws -> T {
        if sqlite3_get_autocommit(connection.handle) == 0 { return try wrap(body) }
        return try transaction(body)
    }

    public func conditionalWrite<T>(user: String, _ body: () throws -> T) throws -> T { try personalWrite(body) }

    public func addBookmarks(user: String, places: [String], list: String, at: Int64) throws {
        try personalWrite {
            for place in places {
                try run(
                    "INSERT INTO user_bookmarks VALUES(?1, ?2, ?3, ?4, ?4) ON CONFLICT DO UPDATE SET updated = ?4"
                ) {
                    try $0.bind(1, user)
                    try $0.bind(2, place)
                    try $0.bind(3, list)
                    try $0.bind(4, at)
                }
            }
        }
    }

    /// Removes the bookmarks; returns how many there were.
    @discardableResult
    public func removeBookmarks(user: String, places: [String], list: String) throws -> Int {
        try personalWrite {
            var n = 0
            for place in places {
                try run("DELETE FROM user_bookmarks WHERE user = ?1 AND place = ?2 AND list = ?3") {
                    try $0.bind(1, user)
                    try $0.bind(2, place)
                    try $0.bind(3, list)
                }
                n += Int(sqlite3_changes(connection.handle))
            }
            return n
        }
    }

    /// Sets (or with nil clears) the rating.
    public func setRating(user: String, place: String, stars: Double?, at: Int64) throws {
        try personalWrite {
            guard let stars else {
                return try run("DELETE FROM user_ratings WHERE user = ?1 AND place = ?2") {
                    try $0.bind(1, user)
                    try $0.bind(2, place)
                }
            }
            try run(
                "INSERT INTO user_ratings VALUES(?1, ?2, ?3, ?4) ON CONFLICT DO UPDATE SET stars = ?3, updated = ?4"
            ) {
                try $0.bind(1, user)
                try $0.bind(2, place)
                try $0.bind(3, stars)
                try $0.bind(4, at)
            }
        }
    }

    /// Sets (or with nil clears) the memo; its created time stays that of the first.
    public func setMemo(user: String, place: String, text: String?, at: Int64) throws {
        try personalWrite {
            guard let text else {
                return try run("DELETE FROM user_memos WHERE user = ?1 AND place = ?2") {
                    try $0.bind(1, user)
                    try $0.bind(2, place)
                }
            }
            try run(
                "INSERT INTO user_memos VALUES(?1, ?2, ?3, ?4, ?4) ON CONFLICT DO UPDATE SET text = ?3, updated = ?4"
            ) {
                try $0.bind(1, user)
                try $0.bind(2, place)
                try $0.bind(3, text)
                try $0.bind(4, at)
            }
        }
    }

    public func addVisit(user: String, place: String, at: Int64, now: Int64) throws {
        try personalWrite {
            try run("INSERT INTO user_visits VALUES(?1, ?2, ?3, ?4) ON CONFLICT DO UPDATE SET updated = ?4") {
                try $0.bind(1, user)
                try $0.bind(2, place)
                try $0.bind(3, at)
                try $0.bind(4, now)
            }
        }
    }

    /// Records a search: the keyword goes to the top of the history (a repeated one moves there), and
    /// only the newest `cap` stay. Times strictly increase per user, so the order is the order of calls.
    public func recordSearch(user: String, keyword: String, at: Int64, cap: Int) throws {
        try personalWrite {
            let s = try connection.prepare("SELECT max(at) FROM user_history WHERE user = ?1")
            try s.bind(1, user)
            try s.step()
            let time = s.isNull(0) ? at : max(at, s.int64(0) + 1)
            try run(
                "INSERT INTO user_history VALUES(?1, ?2, ?3, ?3) ON CONFLICT DO UPDATE SET at = ?3, updated = ?3"
            ) {
                try $0.bind(1, user)
                try $0.bind(2, keyword)
                try $0.bind(3, time)
            }
            try run(
                """
                DELETE FROM user_history WHERE user = ?1 AND keyword NOT IN
                    (SELECT keyword FROM user_history WHERE user = ?1 ORDER BY at DESC, keyword LIMIT ?2)
                """
            ) {
                try $0.bind(1, user)
                try $0.bind(2, Int64(max(cap, 0)))
            }
        }
    }

    public func clearHistory(user: String) throws {
        try personalWrite { try run("DELETE FROM user_history WHERE user = ?1") { try $0.bind(1, user) } }
    }

    /// Registers `name` with one token hash; false when the name is taken.
    public func addUser(name: String, tokenHash: String, at: Int64) throws -> Bool {
        try personalWrite {
            let s = try connection.prepare("SELECT count(*) FROM users WHERE name = ?1")
            try s.bind(1, name)
            try s.step()
            guard s.int64(0) == 0 else { return false }
            try run("INSERT INTO users VALUES(?1, 0, ?2, ?2)") {
                try $0.bind(1, name)
                try $0.bind(2, at)
            }
            try run("INSERT INTO user_tokens VALUES(?1, ?2, ?3)") {
                try $0.bind(1, tokenHash)
                try $0.bind(2, name)
                try $0.bind(3, at)
            }
            return true
        }
    }

    /// Revokes `name`'s tokens (its data stays); false when there is no such user.
    public func revokeUser(name: String, at: Int64) throws -> Bool {
        try personalWrite {
            try run("UPDATE users SET revoked = 1, updated = ?2 WHERE name = ?1") {
                try $0.bind(1, name)
                try $0.bind(2, at)
            }
            return sqlite3_changes(connection.handle) > 0
        }
    }

    /// Removes `name`, its tokens and all its data; false when there was neither user nor data.
    public func removeUser(name: String) throws -> Bool {
        try personalWrite {
            var n: Int32 = 0
            for t in ["users"] + ["user_tokens"] + Self.personalTables {
                try run("DELETE FROM \(t) WHERE \(t == "users" ? "name" : "user") = ?1") { try $0.bind(1, name) }
                n += sqlite3_changes(connection.handle)
            }
            return n > 0
        }
    }

    /// Restores users and their items in one transaction. Merge (the default): an item the file holds
    /// replaces the stored one with the same key when its `updated` is newer; items only stored stay.
    /// `replace`: each named user's items become exactly the file's. Users (names, revoked, token hashes)
    /// merge by `updated` too. Running it twice changes nothing the second time.
    public func restorePersonal(users: [UserRecord], items: [String: [PersonalRecord]], replace: Bool) throws {
        try personalWrite {
            for u in users {
                try run(
                    """
                    INSERT INTO users VALUES(?1, ?2, ?3, ?4) ON CONFLICT DO UPDATE SET revoked = ?2, updated = ?4
                    WHERE excluded.updated > users.updated
                    """
                ) {
                    try $0.bind(1, u.name)
                    try $0.bind(2, u.revoked ? 1 : 0)
                    try $0.bind(3, u.created)
                    try $0.bind(4, u.updated)
                }
                for h in u.tokenHashes {
                    try run("INSERT OR IGNORE INTO user_tokens VALUES(?1, ?2, ?3)") {
                        try $0.bind(1, h)
                        try $0.bind(2, u.name)
                        try $0.bind(3, u.created)
                    }
                }
            }
            for (user, records) in items.sorted(by: { $0.key < $1.key }) {
                if replace {
                    for t in Self.personalTables {
                        try run("DELETE FROM \(t) WHERE user = ?1") { try $0.bind(1, user) }
                    }
                }
                let newer = "WHERE excluded.updated > updated"
                let bookmark = try connection.prepare(
                    "INSERT INTO user_bookmarks VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT DO UPDATE SET added = ?4, updated = ?5 \(newer)"
                )
                let rating = try connection.prepare(
                    "INSERT INTO user_ratings VALUES(?1, ?2, ?3, ?4) ON CONFLICT DO UPDATE SET stars = ?3, updated = ?4 \(newer)"
                )
                let memo = try connection.prepare(
                    "INSERT INTO user_memos VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT DO UPDATE SET text = ?3, created = ?4, updated = ?5 \(newer)"
                )
                let visit = try connection.prepare(
                    "INSERT INTO user_visits VALUES(?1, ?2, ?3, ?4) ON CONFLICT DO UPDATE SET updated = ?4 \(newer)")
                let search = try connection.prepare(
                    "INSERT INTO user_history VALUES(?1, ?2, ?3, ?4) ON CONFLICT DO UPDATE SET at = ?3, updated = ?4 \(newer)"
                )
                for r in records {
                    let s: SQLiteStatement
                    switch r {
                    case .bookmark(let place, let list, let added, let updated):
                        s = bookmark
                        try s.bind(2, place)
                        try s.bind(3, list)
                        try s.bind(4, added)
                        try s.bind(5, updated)
                    case .rating(let place, let stars, let updated):
                        s = rating
                        try s.bind(2, place)
                        try s.bind(3, stars)
                        try s.bind(4, updated)
                    case .memo(let place, let text, let created, let updated):
                        s = memo
                        try s.bind(2, place)
                        try s.bind(3, text)
                        try s.bind(4, created)
                        try s.bind(5, updated)
                    case .visit(let place, let at, let updated):
                        s = visit
                        try s.bind(2, place)
                        try s.bind(3, at)
                        try s.bind(4, updated)
                    case .search(let keyword, let at, let updated):
                        s = search
                        try s.bind(2, keyword)
                        try s.bind(3, at)
                        try s.bind(4, updated)
                    }
                    try s.bind(1, user)
                    try s.step()
                    s.reset()
                }
            }
        }
    }
}
