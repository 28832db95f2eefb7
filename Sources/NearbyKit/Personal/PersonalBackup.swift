import Foundation
import NearbyCore
import NearbyStore

/// `nearby backup` and `nearby restore`: users and their personal items as one versioned JSON
/// document, one item a line, so a problem is named by its line:
///
/// ```
/// {"format":"nearby-personal","version":1,
/// "users":[
/// {"name":"ana","revoked":false,"created":1764310215000,"updated":1764310215000,"tokenHashes":["9f…"]}
/// ],
/// "items":[
/// {"user":"me","type":"bookmark","place":"126508","list":"default","added":1764310215000,"updated":1764310215000},
/// {"user":"me","type":"rating","place":"126508","stars":4.5,"updated":…},
/// {"user":"me","type":"memo","place":"126508","text":"…","created":…,"updated":…},
/// {"user":"me","type":"visit","place":"126508","at":…,"updated":…},
/// {"user":"me","type":"search","keyword":"궁","at":…,"updated":…}
/// ],
/// "places":[…]}
/// ```
/// Times are Unix milliseconds. `places` (with `--with-places`) holds the records of the places the
/// items name, for reference; a restore reads only users and items. A restore is one transaction:
/// every line is checked before anything is written.
public enum PersonalBackup {
    public static let format = "nearby-personal"
    public static let version = 1

    /// The document for `user` (every user with data or registered, when nil). `withTokens: false`
    /// leaves the users' token hashes out (the server's `GET /v1/me/backup`: tokens are the operator's).
    public static func write(store: any PersonalStorage, user: String?, withPlaces: Bool, withTokens: Bool = true)
        throws
        -> [UInt8]
    {
        let names =
            try user.map { [try PersonalLayer.user($0)] }
            ?? Set(try store.users().map(\.name) + store.usersWithData()).sorted()
        var out = Array("{\"format\":\"\(format)\",\"version\":\(version),\n\"users\":[".utf8)
        let registered = try store.users().filter { names.contains($0.name) }
        for (i, u) in registered.enumerated() {
            out += Array((i == 0 ? "\n" : ",\n").utf8)
            out += Array("{\"name\":".utf8)
            JSONWriter.appendString(u.name, to: &out)
            out += Array(
                ",\"revoked\":\(u.revoked),\"created\":\(u.created),\"updated\":\(u.updated),\"tokenHashes\":[".utf8)
            for (j, h) in (withTokens ? u.tokenHashes : []).enumerated() {
                if j > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(h, to: &out)
            }
            out += Array("]}".utf8)
        }
        out += Array("\n],\n\"items\":[".utf8)
        var first = true
        var places = Set<String>()
        for name in names {
            for r in try store.personalRecords(user: name) {
                out += Array((first ? "\n" : ",\n").utf8)
                first = false
                out += Array("{\"user\":".utf8)
                JSONWriter.appendString(name, to: &out)
                func text(_ key: String, _ value: String) {
                    out += Array(",\"\(key)\":".utf8)
                    JSONWriter.appendString(value, to: &out)
                }
                func int(_ key: String, _ value: Int64) { out += Array(",\"\(key)\":\(value)".utf8) }
                switch r {
                case .bookmark(let place, let list, let added, let updated):
                    text("type", "bookmark")
                    text("place", place)
                    text("list", list)
                    int("added", added)
                    int("updated", updated)
                    places.insert(place)
                case .rating(let place, let stars, let updated):
                    text("type", "rating")
                    text("place", place)
                    out += Array(",\"stars\":\(stars)".utf8)
                    int("updated", updated)
                    places.insert(place)
                case .memo(let place, let t, let created, let updated):
                    text("type", "memo")
                    text("place", place)
                    text("text", t)
                    int("created", created)
                    int("updated", updated)
                    places.insert(place)
                case .visit(let place, let at, let updated):
                    text("type", "visit")
                    text("place", place)
                    int("at", at)
                    int("updated", updated)
                    places.insert(place)
                case .search(let keyword, let at, let updated):
                    text("type", "search")
                    text("keyword", keyword)
                    int("at", at)
                    int("updated", updated)
                }
                out.append(UInt8(ascii: "}"))
            }
        }
        out += Array("\n]".utf8)
        if withPlaces {
            out += Array(",\n\"places\":[".utf8)
            var firstPlace = true
            for id in places.sorted() {
                guard let p = try store.place(id: id) else { continue }
                out += Array((firstPlace ? "\n" : ",\n").utf8)
                firstPlace = false
                PlaceJSON.append(p, fields: .all, to: &out)
            }
            out += Array("\n]".utf8)
        }
        out += Array("}\n".utf8)
        return out
    }

    /// What a restore read: users and items by user.
    public struct Contents {
        public var users: [UserRecord] = []
        public var items: [String: [PersonalRecord]] = [:]
        public var itemCount: Int { items.values.reduce(0) { $0 + $1.count } }
    }

    /// Reads and checks a document; a problem names `file:line` and the field (usage), a newer version
    /// is `unsupported`. With `onlyUser` (a restore over HTTP, by that user) an item or user of anyone
    /// else is refused, and the users' records (revocation, token hashes) are not read: only items.
    public static func read(_ bytes: [UInt8], file: String, onlyUser: String? = nil) throws -> Contents {
        func line(_ offset: Int) -> Int { 1 + bytes[..<min(offset, bytes.count)].reduce(0) { $0 + ($1 == 10 ? 1 : 0) } }
        let root: JSONValue
        do {
            root = try bytes.withUnsafeBytes { (b: UnsafeRawBufferPointer) throws(JSONError) -> JSONValue in
                try JSONValue.parse(b)
            }
        } catch let error as JSONError {
            throw UsageError("\(file):\(line(error.offset)): not JSON: \(error.reason)")
        }
        guard case .object(let top) = root else { throw UsageError("\(file):1: not a JSON object") }
        func bad(_ o: JSONObject, _ field: String, _ reason: String) -> UsageError {
            UsageError("\(file):\(line(o.offset)): \(field): \(reason)")
        }
        guard top["format"]?.text == format else {
            throw bad(top, "format", "is not \"\(format)\" (not a nearby backup)")
        }
        guard case .number(let v)? = top["version"], let version = Int(v), version >= 1 else {
            throw bad(top, "version", "missing or not a positive integer")
        }
        guard version <= Self.version else {
            throw BackupVersionError(
                description: "\(file): format version \(version) is newer than this nearby reads (\(Self.version))")
        }
        var c = Contents()
        if let users = top["users"] {
            guard case .array(let list) = users else { throw bad(top, "users", "not an array") }
            for (i, u) in list.enumerated() {
                guard case .object(let o) = u else { throw bad(top, "users[\(i)]", "not an object") }
                let name = try string(o, "name", "users[\(i)]", bad)
                guard PersonalFilter.isUserName(name) else { throw bad(o, "users[\(i)].name", "not a user name") }
                if let onlyUser, name != onlyUser {
                    throw bad(o, "users[\(i)].name", "not the user of the token: a restore holds that user's data only")
                }
                guard case .bool(let revoked)? = o["revoked"] else {
                    throw bad(o, "users[\(i)].revoked", "missing or not true/false")
                }
                var hashes: [String] = []
                if case .array(let hs)? = o["tokenHashes"] {
                    for h in hs {
                        guard case .string(let s) = h, s.count == 64,
                            s.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
                        else { throw bad(o, "users[\(i)].tokenHashes", "not SHA-256 hashes in lowercase hex") }
                        hashes.append(s)
                    }
                } else if o["tokenHashes"] != nil {
                    throw bad(o, "users[\(i)].tokenHashes", "not an array")
                }
                c.users.append(
                    UserRecord(
                        name: name, revoked: revoked, tokenHashes: hashes,
                        created: try time(o, "created", "users[\(i)]", bad),
                        updated: try time(o, "updated", "users[\(i)]", bad)))
            }
        }
        guard case .array(let items)? = top["items"] else { throw bad(top, "items", "missing or not an array") }
        for (i, item) in items.enumerated() {
            let at = "items[\(i)]"
            guard case .object(let o) = item else { throw bad(top, at, "not an object") }
            let user = try string(o, "user", at, bad)
            guard PersonalFilter.isUserName(user) else { throw bad(o, "\(at).user", "not a user name") }
            if let onlyUser, user != onlyUser {
                throw bad(o, "\(at).user", "not the user of the token: a restore holds that user's data only")
            }
            let updated = try time(o, "updated", at, bad)
            let record: PersonalRecord
            switch try string(o, "type", at, bad) {
            case "bookmark":
                let list = try string(o, "list", at, bad)
                guard PersonalFilter.isListName(list) else { throw bad(o, "\(at).list", "not a list name") }
                record = .bookmark(
                    place: try string(o, "place", at, bad), list: list, added: try time(o, "added", at, bad),
                    updated: updated)
            case "rating":
                guard case .number(let s)? = o["stars"], let stars = Double(s), (1...5).contains(stars),
                    (stars * 2).rounded() == stars * 2
                else { throw bad(o, "\(at).stars", "missing or not 1–5 in steps of 0.5") }
                record = .rating(place: try string(o, "place", at, bad), stars: stars, updated: updated)
            case "memo":
                record = .memo(
                    place: try string(o, "place", at, bad), text: TextNormalization.nfc(try string(o, "text", at, bad)),
                    created: try time(o, "created", at, bad), updated: updated)
            case "visit":
                record = .visit(
                    place: try string(o, "place", at, bad), at: try time(o, "at", at, bad), updated: updated)
            case "search":
                record = .search(
                    keyword: try string(o, "keyword", at, bad), at: try time(o, "at", at, bad), updated: updated)
            case let other:
                throw bad(
                    o, "\(at).type", "\(MessageText.quoted(other)) is not bookmark, rating, memo, visit or search")
            }
            c.items[user, default: []].append(record)
        }
        for u in c.users where c.items[u.name] == nil { c.items[u.name] = [] }
        if let onlyUser {
            c.users = []
            c.items[onlyUser] = c.items[onlyUser] ?? []
        }
        return c
    }

    private static func string(
        _ o: JSONObject, _ key: String, _ at: String, _ bad: (JSONObject, String, String) -> UsageError
    ) throws -> String {
        guard case .string(let s)? = o[key], !s.isEmpty else { throw bad(o, "\(at).\(key)", "missing or not text") }
        return s
    }

    private static func time(
        _ o: JSONObject, _ key: String, _ at: String, _ bad: (JSONObject, String, String) -> UsageError
    ) throws -> Int64 {
        guard case .number(let s)? = o[key], let v = Int64(s), v >= 0 else {
            throw bad(o, "\(at).\(key)", "missing or not Unix milliseconds (an integer ≥ 0)")
        }
        return v
    }

    /// Restores `bytes` into `store` (merge, or `replace` each named user's items); returns what it read.
    /// `onlyUser`: the document may name no one else, and only items are restored (`read`).
    @discardableResult
    public static func restore(
        _ bytes: [UInt8], file: String, into store: any PersonalStorage, replace: Bool, onlyUser: String? = nil
    ) throws -> Contents {
        let c = try read(bytes, file: file, onlyUser: onlyUser)
        try store.restorePersonal(users: c.users, items: c.items, replace: replace)
        return c
    }
}

/// A backup written by a newer nearby (exit 1).
public struct BackupVersionError: NearbyError {
    public var description: String
    public var kind: ErrorKind { .unsupported }
}
