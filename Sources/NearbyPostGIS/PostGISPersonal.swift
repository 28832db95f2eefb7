import NearbyCore
import NearbyStore

/// The personal tables in PostgreSQL (`008_personal.sql`), read and written with the SQLite cache's
/// rules (`PersonalStore.swift`): NearbyKit's `PersonalLayer`, `PersonalBackup` and `UserTokens` and the
/// server's `/v1/me/…` work on a `PostGISStore` as on a cache. Each write is one transaction; none
/// touches `places` or the generation. Rows come back in the cache's order (text compared as bytes:
/// the columns are `COLLATE "C"`), so a backup of either is the same document.
extension PostGISStore: PersonalStorage {
    /// `body` in one transaction: committed when it returns, rolled back when it throws; inside one
    /// already open (`conditionalWrite`), part of it. With `user`, it first takes that user's lock
    /// (`lock(user:)`), so that a conditional write's check and write see no other write of the user.
    private func transaction<T>(user: String? = nil, _ body: () throws -> T) throws -> T {
        try wrap {
            if connection.inTransaction {
                if let user { try lock(user: user) }
                return try body()
            }
            try connection.execute("BEGIN")
            do {
                if let user { try lock(user: user) }
                let result = try body()
                try connection.execute("COMMIT")
                return result
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// The upsert of one kind of item, the table's columns in order as parameters: a write's (its values
    /// win; a bookmark keeps when it was added, a memo when it was created) or a restore's (every value
    /// wins when its `updated` is newer). One statement text for both, so they cannot drift apart.
    private enum Upsert: String {
        case bookmark, rating, memo, visit, search

        var table: String {
            switch self {
            case .bookmark: "user_bookmarks"
            case .rating: "user_ratings"
            case .memo: "user_memos"
            case .visit: "user_visits"
            case .search: "user_history"
            }
        }

        /// The parameters as the table's columns, the key, the columns a write sets and those a restore sets.
        var shape: (values: String, key: String, written: [String], restored: [String]) {
            switch self {
            case .bookmark:
                ("$1, $2, $3, $4::bigint, $5::bigint", "user_name, place, list", ["updated"], ["added", "updated"])
            case .rating:
                ("$1, $2, $3::float8, $4::bigint", "user_name, place", ["stars", "updated"], ["stars", "updated"])
            case .memo:
                (
                    "$1, $2, $3, $4::bigint, $5::bigint", "user_name, place", ["text", "updated"],
                    ["text", "created", "updated"]
                )
            case .visit: ("$1, $2, $3::bigint, $4::bigint", "user_name, place, at", ["updated"], ["updated"])
            case .search:
                ("$1, $2, $3::bigint, $4::bigint", "user_name, keyword", ["at", "updated"], ["at", "updated"])
            }
        }

        func sql(restore: Bool) -> String {
            let s = shape
            let set = (restore ? s.restored : s.written).map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            return "INSERT INTO \(table) AS o VALUES (\(s.values)) ON CONFLICT (\(s.key)) DO UPDATE SET \(set)"
                + (restore ? " WHERE excluded.updated > o.updated" : "")
        }
    }

    private func upsert(_ kind: Upsert, _ parameters: [String], restore: Bool = false) throws {
        try run((restore ? "restore_" : "upsert_") + kind.rawValue, kind.sql(restore: restore), parameters)
    }

    /// One user's writes in turn, whichever connection or server makes them: a transaction lock on the
    /// user's name, held until the transaction ends (a second taker waits).
    private func lock(user: String) throws {
        try run("user_lock", "SELECT pg_advisory_xact_lock(hashtext('nearby_personal'), hashtext($1))", [user])
    }

    public func conditionalWrite<T>(user: String, _ body: () throws -> T) throws -> T {
        try transaction(user: user, body)
    }

    /// A prepared statement of the personal tables (named after `name`), its rows.
    @discardableResult
    private func run(_ name: String, _ sql: String, _ parameters: [String?]) throws -> PGResult {
        try connection.prepared("nearby_personal_" + name, sql, parameters)
    }

    private func read<T>(_ name: String, _ sql: String, _ parameters: [String?], _ row: (PGResult, Int) -> T) throws
        -> [T]
    {
        try wrap {
            let r = try run(name, sql, parameters)
            return (0..<r.count).map { row(r, $0) }
        }
    }

    // MARK: Reading

    public func personalRecords(user: String) throws -> [PersonalRecord] {
        // One statement, one snapshot: a write committing meanwhile is seen whole or not at all. The
        // cache's order: kind; bookmarks by place and list, ratings and memos by place, visits by place
        // and time, searches newest first.
        try read(
            "records",
            """
            SELECT k, key, list, t, updated, stars, text FROM (
              SELECT 0 k, place key, list, added t, updated, NULL::float8 stars, NULL text FROM user_bookmarks
                WHERE user_name = $1
              UNION ALL SELECT 1, place, NULL, NULL, updated, stars, NULL FROM user_ratings WHERE user_name = $1
              UNION ALL SELECT 2, place, NULL, created, updated, NULL, text FROM user_memos WHERE user_name = $1
              UNION ALL SELECT 3, place, NULL, at, updated, NULL, NULL FROM user_visits WHERE user_name = $1
              UNION ALL SELECT 4, keyword, NULL, at, updated, NULL, NULL FROM user_history WHERE user_name = $1
            ) r ORDER BY k, CASE WHEN k = 4 THEN -t END, key, list, t
            """, [user]
        ) { r, row -> PersonalRecord in
            let key = r.text(row, 1) ?? ""
            let time = r.int64(row, 3) ?? 0
            let updated = r.int64(row, 4) ?? 0
            switch r.int64(row, 0) ?? 0 {
            case 0: return .bookmark(place: key, list: r.text(row, 2) ?? "", added: time, updated: updated)
            case 1: return .rating(place: key, stars: r.double(row, 5) ?? 0, updated: updated)
            case 2: return .memo(place: key, text: r.text(row, 6) ?? "", created: time, updated: updated)
            case 3: return .visit(place: key, at: time, updated: updated)
            default: return .search(keyword: key, at: time, updated: updated)
            }
        }
    }

    public func bookmarkRecord(user: String, place: String, list: String) throws -> (added: Int64, updated: Int64)? {
        try read(
            "bookmark", "SELECT added, updated FROM user_bookmarks WHERE user_name = $1 AND place = $2 AND list = $3",
            [user, place, list]
        ) { r, row in (added: r.int64(row, 0) ?? 0, updated: r.int64(row, 1) ?? 0) }.first
    }

    public func ratingRecord(user: String, place: String) throws -> (stars: Double, updated: Int64)? {
        try read(
            "rating", "SELECT stars, updated FROM user_ratings WHERE user_name = $1 AND place = $2", [user, place]
        ) { r, row in (stars: r.double(row, 0) ?? 0, updated: r.int64(row, 1) ?? 0) }.first
    }

    public func memoRecord(user: String, place: String) throws -> (text: String, created: Int64, updated: Int64)? {
        try read(
            "memo", "SELECT text, created, updated FROM user_memos WHERE user_name = $1 AND place = $2", [user, place]
        ) { r, row in (text: r.text(row, 0) ?? "", created: r.int64(row, 1) ?? 0, updated: r.int64(row, 2) ?? 0) }
        .first
    }

    public func searchHistory(user: String) throws -> [(keyword: String, at: Int64)] {
        try read(
            "history", "SELECT keyword, at FROM user_history WHERE user_name = $1 ORDER BY at DESC, keyword", [user]
        ) { r, row in (keyword: r.text(row, 0) ?? "", at: r.int64(row, 1) ?? 0) }
    }

    public func users() throws -> [UserRecord] {
        try read(
            "users",
            """
            SELECT name, revoked::integer, created, updated,
              coalesce((SELECT string_agg(hash, ',' ORDER BY hash) FROM user_tokens t WHERE t.user_name = u.name), '')
            FROM users u ORDER BY name
            """, []
        ) { r, row in
            UserRecord(
                name: r.text(row, 0) ?? "", revoked: r.int64(row, 1) != 0,
                tokenHashes: (r.text(row, 4) ?? "").split(separator: ",").map(String.init),
                created: r.int64(row, 2) ?? 0, updated: r.int64(row, 3) ?? 0)
        }
    }

    public func usersWithData() throws -> [String] {
        try read(
            "with_data",
            """
            SELECT user_name FROM user_bookmarks UNION SELECT user_name FROM user_ratings
            UNION SELECT user_name FROM user_memos UNION SELECT user_name FROM user_visits
            UNION SELECT user_name FROM user_history ORDER BY 1
            """, []
        ) { r, row in r.text(row, 0) ?? "" }
    }

    public func activeTokenHashes() throws -> [(hash: String, user: String)] {
        try read(
            "tokens",
            "SELECT t.hash, t.user_name FROM user_tokens t JOIN users u ON u.name = t.user_name WHERE NOT u.revoked",
            []
        ) { r, row in (hash: r.text(row, 0) ?? "", user: r.text(row, 1) ?? "") }
    }

    /// `user_tokens_version`, which a trigger bumps with every change of users or tokens.
    public func tokenVersion() throws -> Int64 {
        try read("tokens_version", "SELECT version FROM user_tokens_version", []) { r, row in r.int64(row, 0) ?? 0 }
            .first ?? 0
    }

    /// `user_items_version`, which a trigger bumps with every statement that changes users' items.
    public func itemsVersion() throws -> Int64 {
        try read("items_version", "SELECT version FROM user_items_version", []) { r, row in r.int64(row, 0) ?? 0 }
            .first ?? 0
    }

    // MARK: Writing (each call one transaction; none touches places or the generation)

    public func addBookmarks(user: String, places: [String], list: String, at: Int64) throws {
        try transaction(user: user) {
            for place in places {
                try upsert(.bookmark, [user, place, list, String(at), String(at)])
            }
        }
    }

    @discardableResult
    public func removeBookmarks(user: String, places: [String], list: String) throws -> Int {
        try transaction(user: user) {
            try places.reduce(0) { n, place in
                n
                    + (try run(
                        "remove_bookmark",
                        "DELETE FROM user_bookmarks WHERE user_name = $1 AND place = $2 AND list = $3 RETURNING 1",
                        [user, place, list]
                    ).count)
            }
        }
    }

    public func setRating(user: String, place: String, stars: Double?, at: Int64) throws {
        try transaction(user: user) {
            guard let stars else {
                try run("clear_rating", "DELETE FROM user_ratings WHERE user_name = $1 AND place = $2", [user, place])
                return
            }
            try upsert(.rating, [user, place, "\(stars)", String(at)])
        }
    }

    public func setMemo(user: String, place: String, text: String?, at: Int64) throws {
        try transaction(user: user) {
            guard let text else {
                try run("clear_memo", "DELETE FROM user_memos WHERE user_name = $1 AND place = $2", [user, place])
                return
            }
            try upsert(.memo, [user, place, text, String(at), String(at)])
        }
    }

    public func addVisit(user: String, place: String, at: Int64, now: Int64) throws {
        try transaction(user: user) {
            try upsert(.visit, [user, place, String(at), String(now)])
        }
    }

    public func recordSearch(user: String, keyword: String, at: Int64, cap: Int) throws {
        // One user's searches in turn (the user's lock), so each gets a time after the last.
        try transaction(user: user) {
            try run(
                "record_search",
                """
                INSERT INTO user_history
                  SELECT $1, $2, t, t FROM (SELECT greatest($3::bigint, coalesce(max(at) + 1, $3::bigint)) t
                    FROM user_history WHERE user_name = $1) n
                ON CONFLICT (user_name, keyword) DO UPDATE SET at = excluded.at, updated = excluded.updated
                """, [user, keyword, String(at)])
            try run(
                "cap_history",
                """
                DELETE FROM user_history WHERE user_name = $1 AND keyword NOT IN
                  (SELECT keyword FROM user_history WHERE user_name = $1 ORDER BY at DESC, keyword LIMIT $2::bigint)
                """, [user, String(max(cap, 0))])
        }
    }

    public func clearHistory(user: String) throws {
        try transaction(user: user) {
            try run("clear_history", "DELETE FROM user_history WHERE user_name = $1", [user])
        }
    }

    public func addUser(name: String, tokenHash: String, at: Int64) throws -> Bool {
        try transaction {
            let added = try run(
                "add_user",
                "INSERT INTO users VALUES ($1, false, $2::bigint, $2::bigint) ON CONFLICT DO NOTHING RETURNING 1",
                [name, String(at)]
            ).count
            guard added == 1 else { return false }
            try run("add_token", "INSERT INTO user_tokens VALUES ($1, $2, $3::bigint)", [tokenHash, name, String(at)])
            return true
        }
    }

    public func revokeUser(name: String, at: Int64) throws -> Bool {
        try transaction {
            try run(
                "revoke_user", "UPDATE users SET revoked = true, updated = $2::bigint WHERE name = $1 RETURNING 1",
                [name, String(at)]
            ).count > 0
        }
    }

    public func removeUser(name: String) throws -> Bool {
        try transaction {
            var n = try run("remove_user", "DELETE FROM users WHERE name = $1 RETURNING 1", [name]).count
            for t in ["user_tokens"] + Self.personalTables {
                n += try run("remove_\(t)", "DELETE FROM \(t) WHERE user_name = $1 RETURNING 1", [name]).count
            }
            return n > 0
        }
    }

    /// The tables holding one user's items.
    static let personalTables = ["user_bookmarks", "user_ratings", "user_memos", "user_visits", "user_history"]

    public func restorePersonal(users: [UserRecord], items: [String: [PersonalRecord]], replace: Bool) throws {
        try transaction {
            for u in users {
                try run(
                    "restore_user",
                    """
                    INSERT INTO users VALUES ($1, $2::boolean, $3::bigint, $4::bigint) ON CONFLICT (name)
                    DO UPDATE SET revoked = excluded.revoked, updated = excluded.updated WHERE excluded.updated > users.updated
                    """, [u.name, u.revoked ? "true" : "false", String(u.created), String(u.updated)])
                for h in u.tokenHashes {
                    try run(
                        "restore_token", "INSERT INTO user_tokens VALUES ($1, $2, $3::bigint) ON CONFLICT DO NOTHING",
                        [h, u.name, String(u.created)])
                }
            }
            for (user, records) in items.sorted(by: { $0.key < $1.key }) {
                if replace {
                    for t in Self.personalTables {
                        try run("clear_\(t)", "DELETE FROM \(t) WHERE user_name = $1", [user])
                    }
                }
                for r in records {
                    switch r {
                    case .bookmark(let place, let list, let added, let updated):
                        try upsert(.bookmark, [user, place, list, String(added), String(updated)], restore: true)
                    case .rating(let place, let stars, let updated):
                        try upsert(.rating, [user, place, "\(stars)", String(updated)], restore: true)
                    case .memo(let place, let text, let created, let updated):
                        try upsert(.memo, [user, place, text, String(created), String(updated)], restore: true)
                    case .visit(let place, let at, let updated):
                        try upsert(.visit, [user, place, String(at), String(updated)], restore: true)
                    case .search(let keyword, let at, let updated):
                        try upsert(.search, [user, keyword, String(at), String(updated)], restore: true)
                    }
                }
            }
        }
    }
}
