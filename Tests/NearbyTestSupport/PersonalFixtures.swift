import Foundation
import NearbyCore
import NearbyStore

/// What every `PersonalStorage` must do, run the same way on the cache (`PersonalStoreTests`) and on
/// PostGIS (`PostGISPersonalTests`): each rule set returns the rules it found broken (empty: none), so a
/// test expects `[]` and a failure names what broke.
public enum PersonalFixtures {
    /// `data` as stored records (ratings written at 5, bookmarks and visits at their times).
    public static func records(_ data: PersonalData) -> [PersonalRecord] {
        var out: [PersonalRecord] = []
        for (id, item) in data.items {
            for b in item.bookmarks { out.append(.bookmark(place: id, list: b.list, added: b.added, updated: b.added)) }
            if let r = item.rating { out.append(.rating(place: id, stars: r, updated: 5)) }
            if let m = item.memo {
                out.append(.memo(place: id, text: m.text, created: m.created, updated: m.updated))
            }
            for v in item.visits { out.append(.visit(place: id, at: v, updated: v)) }
        }
        return out
    }

    /// The search history: newest first, a repeated keyword moved to the top (even in the same
    /// millisecond), the newest `cap` kept, cleared.
    public static func historyRules(_ store: any PersonalStorage) throws -> [String] {
        var broken: [String] = []
        for (i, k) in ["a", "b", "c", "a", "d"].enumerated() {
            try store.recordSearch(user: "me", keyword: k, at: Int64(100 + i), cap: 3)
        }
        if try store.searchHistory(user: "me").map(\.keyword) != ["d", "a", "c"] {
            broken.append("newest first, capped")
        }
        try store.recordSearch(user: "me", keyword: "c", at: 0, cap: 3)
        if try store.searchHistory(user: "me").map(\.keyword) != ["c", "d", "a"] {
            broken.append("a repeat moves to the top, in the order of the calls")
        }
        try store.clearHistory(user: "me")
        if try !store.searchHistory(user: "me").isEmpty { broken.append("cleared") }
        return broken
    }

    /// A restore: merged by `updated` (the newer wins, items only stored stay), twice the same as once;
    /// `replace` leaves exactly the file's items.
    public static func restoreRules(_ store: any PersonalStorage) throws -> [String] {
        var broken: [String] = []
        try store.setRating(user: "me", place: "1", stars: 2, at: 100)
        try store.setRating(user: "me", place: "2", stars: 3, at: 300)
        try store.setMemo(user: "me", place: "3", text: "kept", at: 100)
        let file: [PersonalRecord] = [
            .rating(place: "1", stars: 5, updated: 200), .rating(place: "2", stars: 1, updated: 200),
            .bookmark(place: "4", list: "x", added: 7, updated: 7),
        ]
        for run in 0..<2 {
            try store.restorePersonal(users: [], items: ["me": file], replace: false)
            let d = try store.personalData(user: "me")
            if !(d.items["1"]?.rating == 5 && d.items["2"]?.rating == 3 && d.items["3"]?.memo?.text == "kept") {
                broken.append("merge by updated, run \(run + 1)")
            }
            if d.items["4"]?.bookmarks != [.init(list: "x", added: 7)] { broken.append("merge adds, run \(run + 1)") }
        }
        try store.restorePersonal(users: [], items: ["me": file], replace: true)
        if Set(try store.personalRecords(user: "me")) != Set(file) { broken.append("replace") }
        return broken
    }

    /// Users and tokens: a name taken once, revocation stops the tokens and keeps the data, removal
    /// takes both; `tokenVersion` moves with users and tokens, `itemsVersion` with items, as
    /// `observer` (another connection to the same data) sees them.
    public static func userRules(_ store: any PersonalStorage, observer: any PersonalStorage) throws -> [String] {
        var broken: [String] = []
        var tokens = try observer.tokenVersion()
        var items = try observer.itemsVersion()
        func moved() throws -> (tokens: Bool, items: Bool) {
            let (t, i) = (try observer.tokenVersion(), try observer.itemsVersion())
            defer { (tokens, items) = (t, i) }
            return (t != tokens, i != items)
        }
        if try !store.addUser(name: "ana", tokenHash: "h1", at: 1) { broken.append("a new name is added") }
        if try !moved().tokens { broken.append("adding a user moves the token version") }
        if try store.addUser(name: "ana", tokenHash: "h2", at: 2) { broken.append("a name is taken once") }
        if try store.activeTokenHashes().map(\.user) != ["ana"] { broken.append("the active tokens") }
        try store.addBookmarks(user: "ana", places: ["1"], list: "default", at: 3)
        if try !moved().items { broken.append("an item moves the items version") }
        if try !store.revokeUser(name: "ana", at: 4) { broken.append("revoke finds the user") }
        if try !moved().tokens { broken.append("revoking moves the token version") }
        if try !store.activeTokenHashes().isEmpty { broken.append("a revoked user has no active token") }
        if try store.personalRecords(user: "ana").count != 1 { broken.append("revoking keeps the data") }
        if try !store.removeUser(name: "ana") { broken.append("remove finds the user") }
        if try !(store.personalRecords(user: "ana").isEmpty && store.users().isEmpty) {
            broken.append("removing takes the user and its data")
        }
        if try store.removeUser(name: "ana") { broken.append("a removed user is gone") }
        return broken
    }

    /// Runs `first` on this thread, and `second` on another one started where `first` calls its
    /// `pause` (a conditional write's clock, between its check and its write), which then waits up to
    /// `wait` seconds for `second` to end before `first` goes on. Returns both outcomes once both ended:
    /// with the check and the write in one transaction, `second` cannot write in that gap.
    public static func interleave<A, B>(
        wait: Double = 0.1, first: (_ pause: @escaping () -> Void) throws -> A,
        second: @escaping @Sendable () throws -> B
    ) -> (first: Result<A, any Error>, second: Result<B, any Error>) {
        let outcome = Outcome<B>()
        let pause = {
            guard !outcome.started else { return }
            outcome.started = true
            Thread.detachNewThread {
                outcome.result = Result { try second() }
                outcome.done.signal()
            }
            if outcome.done.wait(timeout: .now() + wait) == .success { outcome.done.signal() }
        }
        let a = Result { try first(pause) }
        if !outcome.started { outcome.result = Result { try second() } } else { outcome.done.wait() }
        return (a, outcome.result!)
    }
}

/// The second writer's outcome in `PersonalFixtures.interleave`, filled on its thread.
private final class Outcome<B>: @unchecked Sendable {
    var result: Result<B, any Error>?
    let done = DispatchSemaphore(value: 0)
    var started = false
}
