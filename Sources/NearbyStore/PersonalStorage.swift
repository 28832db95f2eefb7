import NearbyCore

/// Where a user's personal data is kept: the cache's personal tables (`PlaceCache`, `PersonalStore.swift`)
/// or the same tables in a PostgreSQL/PostGIS database (NearbyPostGIS's `PostGISStore`). NearbyKit's
/// `PersonalLayer`, `PersonalBackup` and `UserTokens` and the server's `/v1/me/…` work on either through
/// this protocol: the rules (names, stars, NFC, the history's cap) are theirs, a store only reads and
/// writes. Every write is one transaction and changes no place, so it never moves a store's `generation`
/// (cursors and the place index stay valid). One store is one connection: use it from one thread at a time.
public protocol PersonalStorage: AnyObject {
    /// The place with `id`, or nil (items are made for stored places only).
    func place(id: String) throws -> Place?

    /// Every item of `user`, in a fixed order (kind, then key): what a backup writes.
    func personalRecords(user: String) throws -> [PersonalRecord]
    func bookmarkRecord(user: String, place: String, list: String) throws -> (added: Int64, updated: Int64)?
    func ratingRecord(user: String, place: String) throws -> (stars: Double, updated: Int64)?
    func memoRecord(user: String, place: String) throws -> (text: String, created: Int64, updated: Int64)?
    /// The user's searches, newest first.
    func searchHistory(user: String) throws -> [(keyword: String, at: Int64)]
    /// Every registered user, by name, with its token hashes.
    func users() throws -> [UserRecord]
    /// The names of users that have items (registered or not), sorted.
    func usersWithData() throws -> [String]
    /// Token hashes of users not revoked: (hash, user).
    func activeTokenHashes() throws -> [(hash: String, user: String)]
    /// A number that changes whenever the users or their tokens may have changed (it may change more
    /// often): a server rereads `activeTokenHashes` only when it moved.
    func tokenVersion() throws -> Int64
    /// A number that changes whenever any user's items (bookmarks, ratings, memos, visits) may have
    /// changed (it may change more often): a server keeps users' data between queries while it holds.
    func itemsVersion() throws -> Int64

    /// `body` as one write transaction over `user`'s items: no other write of the user, from this
    /// connection's process or any other, lands between what `body` reads and what it writes (a
    /// conditional write's check of an entity tag and the write). The store's writes inside join it;
    /// it commits when `body` returns and rolls back when it throws.
    func conditionalWrite<T>(user: String, _ body: () throws -> T) throws -> T

    func addBookmarks(user: String, places: [String], list: String, at: Int64) throws
    /// Removes the bookmarks; returns how many there were.
    @discardableResult func removeBookmarks(user: String, places: [String], list: String) throws -> Int
    /// Sets (or with nil clears) the rating.
    func setRating(user: String, place: String, stars: Double?, at: Int64) throws
    /// Sets (or with nil clears) the memo; its created time stays that of the first.
    func setMemo(user: String, place: String, text: String?, at: Int64) throws
    func addVisit(user: String, place: String, at: Int64, now: Int64) throws
    /// Records a search: the keyword goes to the top of the history (a repeated one moves there), and
    /// only the newest `cap` stay. Times strictly increase per user, so the order is the order of calls.
    func recordSearch(user: String, keyword: String, at: Int64, cap: Int) throws
    func clearHistory(user: String) throws
    /// Registers `name` with one token hash; false when the name is taken.
    func addUser(name: String, tokenHash: String, at: Int64) throws -> Bool
    /// Revokes `name`'s tokens (its data stays); false when there is no such user.
    func revokeUser(name: String, at: Int64) throws -> Bool
    /// Removes `name`, its tokens and all its data; false when there was neither user nor data.
    func removeUser(name: String) throws -> Bool
    /// Restores users and their items in one transaction. Merge (the default): an item the file holds
    /// replaces the stored one with the same key when its `updated` is newer; items only stored stay.
    /// `replace`: each named user's items become exactly the file's. Users (names, revoked, token hashes)
    /// merge by `updated` too. Running it twice changes nothing the second time.
    func restorePersonal(users: [UserRecord], items: [String: [PersonalRecord]], replace: Bool) throws
}

extension PersonalStorage {
    /// `user`'s data by place, for a query (`PlaceQuery.personalData`).
    public func personalData(user: String) throws -> PersonalData {
        PersonalData(user: user, records: try personalRecords(user: user))
    }
}

extension PersonalData {
    /// The items of `records` by place (searches aside).
    public convenience init(user: String, records: [PersonalRecord]) {
        var items: [String: PersonalData.Item] = [:]
        for r in records {
            switch r {
            case .bookmark(let place, let list, let added, _):
                items[place, default: .init()].bookmarks.append(.init(list: list, added: added))
            case .rating(let place, let stars, _): items[place, default: .init()].rating = stars
            case .memo(let place, let text, let created, let updated):
                items[place, default: .init()].memo = .init(text: text, created: created, updated: updated)
            case .visit(let place, let at, _): items[place, default: .init()].visits.append(at)
            case .search: break
            }
        }
        self.init(user: user, items: items)
    }
}

extension PlaceCache: PersonalStorage {
    /// SQLite's `data_version`: it moves with every commit of another connection.
    public func tokenVersion() throws -> Int64 { try dataVersion() }
    /// SQLite's `data_version` too: any commit of another connection moves it.
    public func itemsVersion() throws -> Int64 { try dataVersion() }
}
