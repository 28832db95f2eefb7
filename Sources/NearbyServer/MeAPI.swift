import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import NearbyKit

/// `/v1/me/…`: the personal data of the user a bearer token names — bookmarks, ratings, memos, visits,
/// search history, backup and restore — through Kit's `PersonalLayer` and `PersonalBackup`, the code
/// the `nearby bookmark`/`rate`/`memo`/`visit`/`history`/`backup`/`restore` commands run. Reads answer
/// with an `ETag`; writes take `If-Match` and answer 412 when the item changed since (`*` or no header:
/// unconditional). Writes go through the one `PersonalWriter`; reads never wait for it.
struct MeAPI: Sendable {
    let access: PersonalAccess

    static let prefix = "/v1/me"

    /// Each path with the methods it answers (`NearbyHTTPServer.paths` and the 405's `Allow`).
    static let routes: [(path: String, methods: [HTTPRequest.Method])] = [
        ("/v1/me/bookmarks", [.get]),
        ("/v1/me/bookmarks/{id}", [.put, .delete]),
        ("/v1/me/ratings/{id}", [.get, .put, .delete]),
        ("/v1/me/memos/{id}", [.get, .put, .delete]),
        ("/v1/me/visits/{id}", [.post]),
        ("/v1/me/history", [.get, .delete]),
        ("/v1/me/backup", [.get]),
        ("/v1/me/restore", [.post]),
    ]

    /// Bodies of item writes are small; a restore's document may hold a user's every item.
    static let maxItemBody = 64 << 10
    static let maxRestoreBody = 64 << 20

    func register(on router: Router<NearbyRequestContext>) {
        let me = router.group(RouterPath(Self.prefix))
            .add(middleware: BearerAuthenticator(access: access))
            .add(middleware: RequireUser())
        me.get("bookmarks") { request, context in
            let user = context.user
            let list = try Self.parameters(request, ["list"])["list"]
            return try read(request) { try $0.bookmarkList(user: user, list: list) }
        }
        me.put("bookmarks/:id") { request, context in
            let user = context.user
            let (id, list, condition) = try (
                Self.id(context), Self.parameters(request, ["list"])["list"], Self.condition(request)
            )
            return try await write(request) {
                try $0.putBookmark(user: user, place: id, list: list, if: condition)
            }
        }
        me.delete("bookmarks/:id") { request, context in
            let user = context.user
            let (id, list, condition) = try (
                Self.id(context), Self.parameters(request, ["list"])["list"], Self.condition(request)
            )
            return try await delete(request, "bookmark") {
                try $0.deleteBookmark(user: user, place: id, list: list, if: condition)
            }
        }
        me.get("ratings/:id") { request, context in
            let user = context.user
            let id = try Self.id(context, request)
            return try read(request, missing: "rating") { try $0.rating(user: user, place: id) }
        }
        me.put("ratings/:id") { request, context in
            let user = context.user
            let (id, condition) = try (Self.id(context, request), Self.condition(request))
            let stars = try Self.stars(try await Self.body(request))
            return try await write(request) { try $0.putRating(user: user, place: id, stars: stars, if: condition) }
        }
        me.delete("ratings/:id") { request, context in
            let user = context.user
            let (id, condition) = try (Self.id(context, request), Self.condition(request))
            return try await delete(request, "rating") { try $0.deleteRating(user: user, place: id, if: condition) }
        }
        me.get("memos/:id") { request, context in
            let user = context.user
            let id = try Self.id(context, request)
            return try read(request, missing: "memo") { try $0.memo(user: user, place: id) }
        }
        me.put("memos/:id") { request, context in
            let user = context.user
            let (id, condition) = try (Self.id(context, request), Self.condition(request))
            let text = try Self.text(try await Self.body(request))
            return try await write(request) { try $0.putMemo(user: user, place: id, text: text, if: condition) }
        }
        me.delete("memos/:id") { request, context in
            let user = context.user
            let (id, condition) = try (Self.id(context, request), Self.condition(request))
            return try await delete(request, "memo") { try $0.deleteMemo(user: user, place: id, if: condition) }
        }
        me.post("visits/:id") { request, context in
            let user = context.user
            let id = try Self.id(context, request)
            let at = try Self.visitTime(try await Self.body(request, optional: true))
            let r = try await access.writer.write { try $0.recordVisit(user: user, place: id, at: at) }
            return Self.answer(r, status: .created)
        }
        me.get("history") { request, context in
            let user = context.user
            _ = try Self.parameters(request, [])
            return try read(request) { try $0.historyList(user: user) }
        }
        me.delete("history") { request, context in
            let user = context.user
            _ = try Self.parameters(request, [])
            try await access.writer.write { try $0.clearHistory(user: user) }
            return Response(status: .noContent)
        }
        me.get("backup") { request, context in
            let user = context.user
            let withPlaces = try Self.flag(Self.parameters(request, ["with-places"]), "with-places")
            return try read(request) { layer in
                PersonalRepresentation(
                    json: try PersonalBackup.write(
                        store: layer.store, user: user, withPlaces: withPlaces, withTokens: false))
            }
        }
        me.post("restore") { request, context in
            let user = context.user
            let replace = try Self.flag(Self.parameters(request, ["replace"]), "replace")
            let bytes = try await Self.body(request, limit: Self.maxRestoreBody)
            // Checked whole before anything is written (a malformed document names its line and field),
            // then written in one transaction.
            let contents: PersonalBackup.Contents
            do { contents = try PersonalBackup.read(bytes, file: "body", onlyUser: user) } catch let e
                as BackupVersionError
            {
                throw APIError(.badRequest, parameter: "version", e.description)
            }
            let (users, items) = (contents.users, contents.items)
            try await access.writer.write { layer in
                try layer.store.restorePersonal(users: users, items: items, replace: replace)
            }
            let n = contents.items[user]?.count ?? 0
            return PlacesAPI.json(Array("{\"user\":\"\(user)\",\"items\":\(n),\"replaced\":\(replace)}\n".utf8))
        }
    }

    // MARK: Answers

    /// A read through a pooled connection: 200 with the JSON and its `ETag`, 304 when `If-None-Match`
    /// names that tag, 404 when there is no such item (`missing` names the kind).
    private func read(
        _ request: Request, missing: String = "item", _ body: (PersonalLayer) throws -> PersonalRepresentation?
    ) throws -> Response {
        guard let r = try Self.mapped({ try access.readers.with { try body(PersonalLayer(store: $0)) } }) else {
            throw APIError(.notFound, "no \(missing) for this place")
        }
        if let tags = request.headers[.ifNoneMatch], PersonalPrecondition(ifMatch: tags).admits(r.etag) {
            return Response(status: .notModified, headers: [.eTag: r.etag])
        }
        return Self.answer(r)
    }

    private func write(
        _ request: Request, _ body: @escaping @Sendable (PersonalLayer) throws -> PersonalRepresentation
    ) async throws -> Response {
        Self.answer(try await Self.mappedAsync { try await access.writer.write(body) })
    }

    /// 204 when the item was removed, 404 when there was none.
    private func delete(
        _ request: Request, _ kind: String, _ body: @escaping @Sendable (PersonalLayer) throws -> Bool
    ) async throws -> Response {
        guard try await Self.mappedAsync({ try await access.writer.write(body) }) else {
            throw APIError(.notFound, "no \(kind) for this place")
        }
        return Response(status: .noContent)
    }

    static func answer(_ r: PersonalRepresentation, status: HTTPResponse.Status = .ok) -> Response {
        var bytes = r.json
        if bytes.last != 0x0A { bytes.append(0x0A) }
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .eTag: r.etag],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A failed `If-Match` as 412 with the item's current tag; a place not cached as 404.
    private static func mapped<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as PersonalPreconditionFailed { throw preconditionFailed(e) }
    }

    private static func mappedAsync<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let e as PersonalPreconditionFailed { throw preconditionFailed(e) }
    }

    private static func preconditionFailed(_ e: PersonalPreconditionFailed) -> APIError {
        var error = APIError(.preconditionFailed, parameter: "If-Match", e.description)
        if let current = e.current { error.headers[.eTag] = current }
        return error
    }

    // MARK: Request parts

    /// The `{id}` segment, %-decoded; with `request`, refusing any query parameter.
    private static func id(_ context: NearbyRequestContext, _ request: Request? = nil) throws -> String {
        if let request { _ = try parameters(request, []) }
        return try PlacesAPI.pathSegment(context.parameters.get("id") ?? "", parameter: "id")
    }

    /// The query's parameters, each known and given once.
    private static func parameters(_ request: Request, _ known: [String]) throws -> [String: String] {
        var out: [String: String] = [:]
        for (name, value) in try PlacesAPI.pairs(request) {
            guard known.contains(name) else {
                if name == "user" { try PlacesAPI.refuseUserParameter([(name, value)]) }
                let list = known.isEmpty ? "none" : known.joined(separator: ", ")
                throw APIError(.badRequest, parameter: name, "unknown parameter (known: \(list))")
            }
            guard out.updateValue(value, forKey: name) == nil else {
                throw APIError(.badRequest, parameter: name, "given twice")
            }
        }
        return out
    }

    private static func flag(_ values: [String: String], _ name: String) throws -> Bool {
        switch values[name] {
        case nil, "false", "0": return false
        case "true", "1", "": return true
        case let other?:
            throw APIError(.badRequest, parameter: name, "\(RequestError.quoted(other)) is not true or false")
        }
    }

    private static func condition(_ request: Request) -> PersonalPrecondition {
        PersonalPrecondition(ifMatch: request.headers[.ifMatch])
    }

    /// The request body (at most `limit` bytes, else 413); `optional` allows an empty one.
    private static func body(_ request: Request, limit: Int = maxItemBody, optional: Bool = false) async throws
        -> [UInt8]
    {
        let buffer = try await request.body.collect(upTo: limit)
        let bytes = Array(buffer.readableBytesView)
        if bytes.isEmpty && !optional { throw APIError(.badRequest, parameter: "body", "missing: send a JSON object") }
        return bytes
    }

    /// The body as a JSON object whose members are all in `known` (nil for an empty optional body).
    private static func object(_ bytes: [UInt8], _ known: [String]) throws -> JSONObject? {
        guard !bytes.allSatisfy({ [0x20, 0x0A, 0x0D, 0x09].contains($0) }) else { return nil }
        let value: JSONValue
        do {
            value = try bytes.withUnsafeBytes { (b: UnsafeRawBufferPointer) throws(JSONError) -> JSONValue in
                try JSONValue.parse(b)
            }
        } catch let error as JSONError {
            throw APIError(.badRequest, parameter: "body", "not JSON: \(error.reason)")
        }
        guard case .object(let o) = value else { throw APIError(.badRequest, parameter: "body", "not a JSON object") }
        for m in o.members where !known.contains(m.key) {
            throw APIError(
                .badRequest, parameter: m.key, "unknown field (known: \(known.joined(separator: ", ")))")
        }
        return o
    }

    /// `{"stars":4.5}`: 1–5 in steps of 0.5.
    static func stars(_ bytes: [UInt8]) throws -> Double {
        guard case .number(let text)? = try object(bytes, ["stars"])?["stars"], let stars = Double(text),
            (1...5).contains(stars), (stars * 2).rounded() == stars * 2
        else { throw APIError(.badRequest, parameter: "stars", "missing or not a number 1–5 in steps of 0.5") }
        return stars
    }

    /// `{"text":"…"}`: not blank.
    static func text(_ bytes: [UInt8]) throws -> String {
        guard case .string(let text)? = try object(bytes, ["text"])?["text"],
            !TextNormalization.trimmingSpaces(text).isEmpty
        else { throw APIError(.badRequest, parameter: "text", "missing or blank (DELETE removes a memo)") }
        return text
    }

    /// `{"at":…}` (ISO 8601, a day, or Unix milliseconds), or nil for now.
    static func visitTime(_ bytes: [UInt8]) throws -> Int64? {
        guard let o = try object(bytes, ["at"]), let at = o["at"] else { return nil }
        guard let text = at.text, let ms = PersonalLayer.parseTime(text) else {
            throw APIError(
                .badRequest, parameter: "at", "not a time (ISO 8601, yyyy-MM-dd or Unix milliseconds)")
        }
        return ms
    }
}

extension NearbyRequestContext {
    /// The authenticated user's name (`RequireUser` has checked there is one).
    fileprivate var user: String { identity?.name ?? "" }
}

extension MeAPI {
    /// `/v1/me/…` in the OpenAPI document (`OpenAPIDocument`): every operation needs the bearer token.
    static var openAPIPaths: [String: Any] {
        func json(_ description: String, etag: Bool = true) -> [String: Any] {
            var r: [String: Any] = [
                "description": description, "content": ["application/json": ["schema": ["type": "object"]]],
            ]
            if etag { r["headers"] = ["ETag": ["description": "The item's entity tag", "schema": ["type": "string"]]] }
            return r
        }
        func parameter(_ name: String, _ description: String, in location: String = "query", required: Bool = false)
            -> [String: Any]
        {
            [
                "name": name, "in": location, "required": required, "description": description,
                "schema": ["type": "string"],
            ]
        }
        let id = parameter("id", "The place's id (a cached place for a write).", in: "path", required: true)
        let list = parameter("list", "The bookmark list (default: default).")
        let ifMatch = parameter(
            "If-Match", "The entity tag the write expects (from a read or an earlier write); * or absent: any.",
            in: "header")
        let errors: [String: Any] = [
            "400": json("Bad input: {status, parameter, error} naming the parameter or field", etag: false),
            "401": json(
                "No valid Authorization: Bearer TOKEN (missing, unknown or revoked: one answer); WWW-Authenticate: Bearer",
                etag: false),
            "429": json("Too many failed tokens from this address; Retry-After", etag: false),
        ]
        let notFound = json("No such item, or (a write) no cached place with the id", etag: false)
        let changed = json("If-Match names another tag: the item changed since; ETag is its tag now", etag: false)
        let noContent: [String: Any] = ["description": "Done"]
        func op(
            _ summary: String, _ parameters: [[String: Any]], _ responses: [String: Any], body: [String: Any]? = nil,
            bodyRequired: Bool = true
        ) -> [String: Any] {
            var o: [String: Any] = [
                "summary": summary, "parameters": parameters, "security": [["bearer": [String]()]],
                "responses": errors.merging(responses) { _, b in b },
            ]
            if let body {
                o["requestBody"] = [
                    "required": bodyRequired,
                    "content": ["application/json": ["schema": ["type": "object", "properties": body]]],
                ]
            }
            return o
        }
        let stars: [String: Any] = ["stars": ["type": "number", "minimum": 1, "maximum": 5, "multipleOf": 0.5]]
        let text: [String: Any] = ["text": ["type": "string"]]
        return [
            "/v1/me/bookmarks": [
                "get": op(
                    "The user's bookmarks: {bookmarks:[{id, list, added, title | gone}]}.", [list],
                    ["200": json("The bookmarks, by list then time added")])
            ],
            "/v1/me/bookmarks/{id}": [
                "put": op(
                    "Bookmark a place in a list: {id, list, added}.", [id, list, ifMatch],
                    ["200": json("The bookmark"), "404": notFound, "412": changed]),
                "delete": op(
                    "Remove a bookmark from a list.", [id, list, ifMatch],
                    ["204": noContent, "404": notFound, "412": changed]),
            ],
            "/v1/me/ratings/{id}": [
                "get": op("The rating: {id, stars, updated}.", [id], ["200": json("The rating"), "404": notFound]),
                "put": op(
                    "Rate a place, 1–5 in steps of 0.5.", [id, ifMatch],
                    ["200": json("The rating"), "404": notFound, "412": changed], body: stars),
                "delete": op("Clear the rating.", [id, ifMatch], ["204": noContent, "404": notFound, "412": changed]),
            ],
            "/v1/me/memos/{id}": [
                "get": op(
                    "The memo: {id, text, created, updated}.", [id], ["200": json("The memo"), "404": notFound]),
                "put": op(
                    "Write the place's memo (NFC).", [id, ifMatch],
                    ["200": json("The memo"), "404": notFound, "412": changed], body: text),
                "delete": op("Remove the memo.", [id, ifMatch], ["204": noContent, "404": notFound, "412": changed]),
            ],
            "/v1/me/visits/{id}": [
                "post": op(
                    "Record a visit, now or at {at} (ISO 8601, yyyy-MM-dd or Unix milliseconds): {id, at}.", [id],
                    ["201": json("The visit"), "404": notFound], body: ["at": ["type": "string"]],
                    bodyRequired: false)
            ],
            "/v1/me/history": [
                "get": op(
                    "The search history, newest first: {history:[{keyword, at}]}.", [],
                    ["200": json("The history")]),
                "delete": op("Forget every search.", [], ["204": noContent]),
            ],
            "/v1/me/backup": [
                "get": op(
                    "The user's items as nearby backup writes them (format nearby-personal; no token hashes).",
                    [parameter("with-places", "true: add the records of the places the items name.")],
                    ["200": json("The backup document")])
            ],
            "/v1/me/restore": [
                "post": op(
                    "Restore a backup of this user in one transaction: merge (newer updated wins) or replace=true.",
                    [parameter("replace", "true: the user's items become exactly the document's.")],
                    [
                        "200": json("{user, items, replaced}", etag: false),
                        "400": json("Malformed: the line and field (body:LINE: items[i].field: …); nothing changed"),
                    ])
            ],
        ]
    }
}
