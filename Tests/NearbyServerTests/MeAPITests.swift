import Foundation
import Logging
import NearbyKit
import NearbyPostGIS
import NearbyServer
import NearbyTestSupport
import Testing

extension RealServer {
    /// `/v1/me/…` on the real server: every endpoint and every personal query parameter refuses a
    /// missing or revoked token with the one 401; one user can neither read nor change another's data;
    /// `If-Match` stops a second device overwriting; concurrent writes all land and the next query sees
    /// them; a malformed restore changes nothing; no token reaches the logs or `/metrics`.
    @Suite struct MeAPITests {
        /// A cache (or with `postgis` a PostgreSQL/PostGIS database) of 300 places with users ana, bo and
        /// the revoked old, and a server over it.
        final class Served: @unchecked Sendable {
            let folder: TempFolder
            let cache: any PersonalStorage
            let ana: String
            let bo: String
            let old: String
            let server: RunningServer

            init(postgis: Bool = false, logger: Logger? = nil, _ edit: (inout ServerOptions) -> Void = { _ in }) throws
            {
                folder = try TempFolder()
                let path = folder.file("places.sqlite")
                var url: String?
                if postgis {
                    url = try PostgresCluster.shared().makeDatabase()
                    let store = try PostGISStore(url: url!, readOnly: false)
                    _ = try store.write { w in for p in Fixture.places(300) { try w.upsert(p) } }
                    cache = store
                } else {
                    _ = try Importer().importPlaces(Fixture.places(300), into: PlaceCache(path: path))
                    cache = try PlaceCache(path: path)
                }
                ana = try UserTokens.addUser("ana", store: cache, now: 1)
                bo = try UserTokens.addUser("bo", store: cache, now: 1)
                old = try UserTokens.addUser("old", store: cache, now: 1)
                let layer = PersonalLayer(store: cache)
                try layer.addBookmarks(user: "ana", places: ["5"], list: nil)
                try layer.rate(user: "ana", place: "7", stars: 4.5)
                try layer.memo(user: "ana", place: "9", text: "ana's memo")
                try layer.visit(user: "ana", place: "11", at: 1_700_000_000_000)
                try cache.recordSearch(user: "ana", keyword: "궁", at: 1_700_000_000_000, cap: 100)
                try layer.addBookmarks(user: "old", places: ["13"], list: nil)
                _ = try cache.revokeUser(name: "old", at: 2)
                var options = RunningServer.options { $0.authFailureLimit = 10_000 }
                edit(&options)
                server =
                    try url.map { try RunningServer(postgis: $0, options: options, logger: logger) }
                    ?? RunningServer(path: path, options: options, logger: logger)
            }

            deinit { server.stop() }

            func send(
                _ method: String, _ target: String, token: String?, body: String? = nil, headers: [String: String] = [:]
            ) throws -> LoopbackHTTP.Response {
                var h = headers
                if let token { h["Authorization"] = "Bearer \(token)" }
                return try server.http.send(
                    method: method, target: target, headers: h, body: body.map { Array($0.utf8) })
            }

            /// Everything stored for `user`.
            func records(_ user: String) throws -> [PersonalRecord] { try cache.personalRecords(user: user) }
        }

        static let restoreBody = """
            {"format":"nearby-personal","version":1,
            "items":[
            {"user":"USER","type":"bookmark","place":"21","list":"default","added":5,"updated":5}
            ]}
            """

        /// Every `/v1/me` operation: (method, target, body).
        static let endpoints: [(String, String, String?)] = [
            ("GET", "/v1/me/bookmarks", nil), ("GET", "/v1/me/bookmarks?list=default", nil),
            ("PUT", "/v1/me/bookmarks/5", nil), ("PUT", "/v1/me/bookmarks/5?list=trip", nil),
            ("DELETE", "/v1/me/bookmarks/5", nil), ("GET", "/v1/me/ratings/7", nil),
            ("PUT", "/v1/me/ratings/7", #"{"stars":2}"#), ("DELETE", "/v1/me/ratings/7", nil),
            ("GET", "/v1/me/memos/9", nil), ("PUT", "/v1/me/memos/9", #"{"text":"mine"}"#),
            ("DELETE", "/v1/me/memos/9", nil), ("POST", "/v1/me/visits/11", nil), ("GET", "/v1/me/history", nil),
            ("DELETE", "/v1/me/history", nil), ("GET", "/v1/me/backup", nil),
            ("POST", "/v1/me/restore?replace=true", restoreBody.replacingOccurrences(of: "USER", with: "ana")),
        ]

        /// Every personal parameter and sort key of `/v1/places` (and `/v1/clusters`); the keyword query
        /// records no search history, so the users' data stays as it was (`SearchHistoryTests`).
        static let personalQueries = [
            "bookmarked=true", "bookmarked-in=default", "min-rating=3", "has-memo=true", "visited=true",
            "not-visited=true", "keyword=memo&keyword-in=memo&no-history=true",
            "sort=rating", "sort=-bookmarked", "sort=memo",
            "sort=visited",
        ]

        /// On a cache, and on PostGIS (the same tables, `008_personal.sql`).
        @Test(arguments: [false, true]) func everyEndpointAndPersonalParameterRefusesAMissingOrRevokedToken(
            postgis: Bool
        ) throws {
            let s = try Served(postgis: postgis)
            let before = try ["ana", "bo", "old"].map { try s.records($0) }
            var bodies = Set<String>()
            var targets = Self.endpoints
            for q in Self.personalQueries {
                targets.append(("GET", "/v1/places?\(q)", nil))
                if !q.hasPrefix("sort=") { targets.append(("GET", "/v1/clusters?zoom=0&format=jsonl&\(q)", nil)) }
            }
            for (method, target, body) in targets {
                for token in [nil, s.old, "nby_unknown", s.ana + "x"] {
                    let r = try s.send(method, target, token: token, body: body)
                    #expect(r.status == 401, "\(method) \(target) \(token == nil ? "without a token" : ""): \(r.text)")
                    #expect(r.headers["www-authenticate"]?.hasPrefix("Bearer") == true, "\(method) \(target)")
                    #expect(!r.text.contains("old") && !r.text.contains("ana"))
                    if let token { #expect(!r.text.contains(token)) }
                    bodies.insert(r.text)
                }
                // Another scheme is no token either.
                let basic = try s.send(
                    method, target, token: nil, body: body, headers: ["Authorization": "Basic \(s.ana)"])
                #expect(basic.status == 401)
                bodies.insert(basic.text)
            }
            #expect(bodies.count == 1, "\(bodies)")
            // Nothing was written for anyone.
            #expect(try ["ana", "bo", "old"].map { try s.records($0) } == before)
            // With a valid token every endpoint answers (the user's own data).
            for (method, target, body) in Self.endpoints {
                let r = try s.send(method, target, token: s.ana, body: body)
                #expect((200..<300).contains(r.status), "\(method) \(target): \(r.status) \(r.text)")
            }
            for q in Self.personalQueries {
                #expect(try s.send("GET", "/v1/places?\(q)", token: s.ana).status == 200, "\(q)")
            }
            // user= is refused: the token names the user.
            #expect(try s.send("GET", "/v1/me/bookmarks?user=bo", token: s.ana).status == 400)
        }

        /// On a cache, and on PostGIS (the same tables, `008_personal.sql`).
        @Test(arguments: [false, true]) func oneUserCanNeitherReadNorChangeAnothersData(postgis: Bool) throws {
            let s = try Served(postgis: postgis)
            let before = try s.records("ana")
            let memo = try s.send("GET", "/v1/me/memos/9", token: s.ana)
            #expect(memo.status == 200 && memo.text.contains("ana's memo"), "\(memo.text)")
            let anaTag = try #require(memo.headers["etag"])
            // bo reads nothing of ana's.
            let list = try s.send("GET", "/v1/me/bookmarks", token: s.bo)
            #expect(list.status == 200 && !list.text.contains("\"5\""), "\(list.text)")
            #expect(try s.send("GET", "/v1/me/ratings/7", token: s.bo).status == 404)
            #expect(try s.send("GET", "/v1/me/memos/9", token: s.bo).status == 404)
            let history = try s.send("GET", "/v1/me/history", token: s.bo)
            #expect(history.status == 200 && !history.text.contains("궁"), "\(history.text)")
            let backup = try s.send("GET", "/v1/me/backup", token: s.bo)
            #expect(backup.status == 200 && !backup.text.contains("ana") && !backup.text.contains("tokenHashes\":[\""))
            let places = try s.send("GET", "/v1/places?bookmarked=true", token: s.bo)
            #expect(places.status == 200 && places.json["total"] as? Int == 0, "\(places.text)")
            // Nor through any personal parameter of /v1/places or /v1/clusters, asked right after ana
            // asked the same (nothing kept for one user answers another).
            for q in Self.personalQueries {
                let target = "/v1/places?\(q)&limit=300&fields=id"
                let mine = try s.send("GET", target, token: s.ana)
                #expect(mine.status == 200, "\(q): \(mine.text.prefix(300))")
                let theirs = try s.send("GET", target, token: s.bo)
                #expect(theirs.status == 200, "\(q): \(theirs.text.prefix(300))")
                for secret in ["\"rating\":4.5", "ana's memo", "2023-11-14", "\"bookmarks\":[{"] {
                    #expect(!theirs.text.contains(secret), "\(q): \(secret)")
                }
                if q.hasPrefix("sort=") || q.hasPrefix("not-visited") { continue }
                #expect(theirs.json["total"] as? Int == 0, "\(q): \(theirs.text.prefix(300))")
                let clusters = "/v1/clusters?zoom=0&format=jsonl&\(q)"
                #expect(try s.send("GET", clusters, token: s.ana).text.contains("\"id\""), "\(q)")
                #expect(try s.send("GET", clusters, token: s.bo).text.isEmpty, "\(q)")
            }
            // bo changes nothing of ana's.
            #expect(try s.send("DELETE", "/v1/me/bookmarks/5", token: s.bo).status == 404)
            #expect(try s.send("DELETE", "/v1/me/ratings/7", token: s.bo).status == 404)
            #expect(try s.send("DELETE", "/v1/me/memos/9", token: s.bo).status == 404)
            let overwrite = try s.send(
                "PUT", "/v1/me/memos/9", token: s.bo, body: #"{"text":"bo's"}"#, headers: ["If-Match": anaTag])
            #expect(overwrite.status == 412, "\(overwrite.text)")
            for body in [
                Self.restoreBody.replacingOccurrences(of: "USER", with: "ana"),
                #"{"format":"nearby-personal","version":1,"users":[{"name":"ana","revoked":true,"created":1,"updated":9}],"items":[]}"#,
            ] {
                let r = try s.send("POST", "/v1/me/restore?replace=true", token: s.bo, body: body)
                #expect(r.status == 400 && r.text.contains("not the user of the token"), "\(r.text)")
            }
            // bo's own writes land as bo's.
            #expect(try s.send("PUT", "/v1/me/memos/9", token: s.bo, body: #"{"text":"bo's"}"#).status == 200)
            #expect(try s.send("PUT", "/v1/me/bookmarks/9", token: s.bo).status == 200)
            #expect(try s.records("ana") == before)
            #expect(try s.send("GET", "/v1/me/memos/9", token: s.ana).text.contains("ana's memo"))
            #expect(try s.records("bo").count == 2)
            #expect(try s.cache.users().first { $0.name == "ana" }?.revoked == false)
            #expect(try s.send("GET", "/v1/places?bookmarked=true", token: s.ana).json["total"] as? Int == 1)
        }

        /// On a cache, and on PostGIS (the same tables, `008_personal.sql`).
        @Test(arguments: [false, true]) func entityTagsStopASecondDeviceOverwriting(postgis: Bool) throws {
            let s = try Served(postgis: postgis)
            let first = try s.send("PUT", "/v1/me/memos/21", token: s.ana, body: #"{"text":"봄에 다시"}"#)
            #expect(first.status == 200, "\(first.text)")
            let tag = try #require(first.headers["etag"])
            let read = try s.send("GET", "/v1/me/memos/21", token: s.ana)
            #expect(read.headers["etag"] == tag && read.text.contains("봄에 다시"))
            #expect(try s.send("GET", "/v1/me/memos/21", token: s.ana, headers: ["If-None-Match": tag]).status == 304)
            // Two devices read the same tag; the first write wins, the second is refused.
            Thread.sleep(forTimeInterval: 0.002)
            let phone = try s.send(
                "PUT", "/v1/me/memos/21", token: s.ana, body: #"{"text":"phone"}"#, headers: ["If-Match": tag])
            #expect(phone.status == 200)
            let newTag = try #require(phone.headers["etag"])
            #expect(newTag != tag)
            let laptop = try s.send(
                "PUT", "/v1/me/memos/21", token: s.ana, body: #"{"text":"laptop"}"#, headers: ["If-Match": tag])
            #expect(laptop.status == 412 && laptop.headers["etag"] == newTag, "\(laptop.text)")
            #expect(try s.send("GET", "/v1/me/memos/21", token: s.ana).text.contains("phone"))
            #expect(try s.send("DELETE", "/v1/me/memos/21", token: s.ana, headers: ["If-Match": tag]).status == 412)
            // `*` or no header: unconditional.
            let star = try s.send(
                "PUT", "/v1/me/memos/21", token: s.ana, body: #"{"text":"star"}"#, headers: ["If-Match": "*"])
            #expect(star.status == 200)
            let current = try #require(star.headers["etag"])
            #expect(try s.send("DELETE", "/v1/me/memos/21", token: s.ana, headers: ["If-Match": current]).status == 204)
            #expect(try s.send("GET", "/v1/me/memos/21", token: s.ana).status == 404)
            // Ratings and bookmarks alike.
            let rated = try s.send("PUT", "/v1/me/ratings/21", token: s.ana, body: #"{"stars":3.5}"#)
            #expect(rated.status == 200 && rated.text.contains("\"stars\":3.5"), "\(rated.text)")
            #expect(
                try s.send(
                    "PUT", "/v1/me/ratings/21", token: s.ana, body: #"{"stars":4}"#, headers: ["If-Match": "\"0\""]
                ).status == 412)
            let marked = try s.send("PUT", "/v1/me/bookmarks/21?list=trip", token: s.ana)
            #expect(marked.status == 200 && marked.text.contains("\"list\":\"trip\""))
            #expect(
                try s.send("DELETE", "/v1/me/bookmarks/21?list=trip", token: s.ana, headers: ["If-Match": "\"0\""])
                    .status == 412)
            let markedTag = try #require(marked.headers["etag"])
            #expect(
                try s.send("DELETE", "/v1/me/bookmarks/21?list=trip", token: s.ana, headers: ["If-Match": markedTag])
                    .status == 204)
            // Bad bodies name their field.
            for (body, field) in [
                (#"{"stars":6}"#, "stars"), (#"{"stars":4.3}"#, "stars"), (#"{"stars":"4"}"#, "stars"), ("{}", "stars"),
                (#"{"stars":4,"note":1}"#, "note"), ("[1]", "body"), ("{", "body"),
            ] {
                let r = try s.send("PUT", "/v1/me/ratings/21", token: s.ana, body: body)
                #expect(r.status == 400 && r.json["parameter"] as? String == field, "\(body): \(r.text)")
            }
            #expect(
                try s.send("PUT", "/v1/me/memos/21", token: s.ana, body: #"{"text":" "}"#).json["parameter"] as? String
                    == "text")
            #expect(try s.send("POST", "/v1/me/visits/21", token: s.ana, body: #"{"at":"soon"}"#).status == 400)
            #expect(try s.send("PUT", "/v1/me/bookmarks/no-such-place", token: s.ana).status == 404)
            let visit = try s.send(
                "POST", "/v1/me/visits/21", token: s.ana, body: #"{"at":"2026-05-05T14:00:00+09:00"}"#)
            #expect(visit.status == 201 && visit.text.contains("2026-05-05T05:00:00.000Z"), "\(visit.text)")
            let wrong = try s.send("PATCH", "/v1/me/memos/21", token: s.ana)
            #expect(wrong.status == 405 && wrong.headers["allow"] == "GET, PUT, DELETE", "\(wrong.headers)")
        }

        /// On a cache, and on PostGIS (the same tables, `008_personal.sql`).
        @Test(arguments: [false, true]) func concurrentWritesAllLandAndTheNextQuerySeesThem(postgis: Bool) throws {
            let s = try Served(postgis: postgis)
            // A write is seen by the very next query.
            #expect(try s.send("PUT", "/v1/me/bookmarks/40", token: s.ana).status == 200)
            let next = try s.send("GET", "/v1/places?bookmarked=true&fields=id", token: s.ana)
            #expect(
                Set((next.json["places"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }) == ["5", "40"])
            // Concurrent PUTs, two at a time and more, all land.
            let ids = (50..<66).map(String.init)
            let statuses = Statuses()
            DispatchQueue.concurrentPerform(iterations: ids.count) { i in
                let status = (try? s.send("PUT", "/v1/me/bookmarks/\(ids[i])", token: s.ana).status) ?? -1
                statuses.add(status)
            }
            #expect(statuses.all == Array(repeating: 200, count: ids.count))
            let all = try s.send("GET", "/v1/places?bookmarked=true&fields=id&limit=100", token: s.ana)
            let found = Set((all.json["places"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
            #expect(found == Set(["5", "40"] + ids))
            // Readers do not wait for writers: queries and writes interleave and all answer.
            DispatchQueue.concurrentPerform(iterations: 8) { i in
                let r =
                    i % 2 == 0
                    ? try? s.send("POST", "/v1/me/visits/\(70 + i)", token: s.ana)
                    : try? s.send("GET", "/v1/places?visited=true&fields=id", token: s.ana)
                statuses.add(r?.status ?? -1)
            }
            #expect(statuses.all.suffix(8).allSatisfy { (200...201).contains($0) })
        }

        /// On a cache, and on PostGIS (the same tables, `008_personal.sql`).
        @Test(arguments: [false, true]) func aRestoreIsOneTransactionAndAMalformedOneChangesNothing(postgis: Bool)
            throws
        {
            let s = try Served(postgis: postgis)
            let backup = try s.send("GET", "/v1/me/backup", token: s.ana)
            #expect(backup.status == 200 && backup.text.hasPrefix("{\"format\":\"nearby-personal\""), "\(backup.text)")
            #expect(backup.text.contains("\"tokenHashes\":[]"))
            let before = try s.records("ana")
            // Line 6 holds a bad rating: refused with its line and field, and nothing written, though
            // the lines before it are good.
            let malformed = """
                {"format":"nearby-personal","version":1,
                "items":[
                {"user":"ana","type":"bookmark","place":"30","list":"default","added":5,"updated":5},
                {"user":"ana","type":"memo","place":"31","text":"x","created":5,"updated":5},
                {"user":"ana","type":"bookmark","place":"32","list":"default","added":5,"updated":5},
                {"user":"ana","type":"rating","place":"33","stars":7,"updated":5}
                ]}
                """
            let r = try s.send("POST", "/v1/me/restore", token: s.ana, body: malformed)
            #expect(r.status == 400 && r.text.contains("body:6: items[3].stars"), "\(r.text)")
            for body in ["not json", #"{"format":"nearby-personal","version":2,"items":[]}"#] {
                #expect(try s.send("POST", "/v1/me/restore?replace=true", token: s.ana, body: body).status == 400)
            }
            #expect(try s.records("ana") == before)
            // Replace with an empty document, then restore the backup: as before.
            let empty = #"{"format":"nearby-personal","version":1,"items":[]}"#
            #expect(try s.send("POST", "/v1/me/restore?replace=true", token: s.ana, body: empty).status == 200)
            #expect(try s.records("ana").isEmpty)
            let restored = try s.send("POST", "/v1/me/restore", token: s.ana, body: backup.text)
            #expect(restored.status == 200, "\(restored.text)")
            #expect(try s.records("ana") == before)
            #expect(try s.send("GET", "/v1/me/backup", token: s.ana).text == backup.text)
        }

        @Test func tokensStayOutOfLogsAndMetricsAndFailuresAreSlowed() throws {
            let log = CapturedLog()
            var logger = Logger(label: "nearby.test") { _ in CapturingLogHandler(log: log) }
            logger.logLevel = .trace
            let s = try Served(logger: logger) { $0.authFailureLimit = 3 }
            #expect(try s.send("PUT", "/v1/me/memos/9", token: s.ana, body: #"{"text":"x"}"#).status == 200)
            #expect(try s.send("GET", "/v1/places?bookmarked=true", token: s.ana).status == 200)
            #expect(try s.send("GET", "/v1/me/history", token: s.old).status == 401)
            #expect(try s.send("GET", "/v1/me/history", token: "nby_guess1").status == 401)
            #expect(try s.send("GET", "/v1/places?visited=true", token: "nby_guess2").status == 401)
            // The third failure from this address: now even a valid token waits.
            let slowed = try s.send("GET", "/v1/me/history", token: s.ana)
            #expect(slowed.status == 429 && Int(slowed.headers["retry-after"] ?? "") ?? 0 >= 1, "\(slowed.text)")
            #expect(try s.send("GET", "/v1/places?limit=1", token: nil).status == 200)
            let metrics = try s.send("GET", "/metrics", token: nil).text
            #expect(metrics.contains("nearby_http_requests_total"))
            let logged = log.text
            #expect(logged.contains("/v1/me/memos/9"), "the access log is captured")
            for secret in [s.ana, s.old, "nby_guess1", "nby_guess2", UserTokens.hash(s.ana)] {
                #expect(!logged.contains(secret) && !metrics.contains(secret))
                #expect(!slowed.text.contains(secret))
            }
        }
    }
}

final class Statuses: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []
    func add(_ v: Int) { lock.withLock { values.append(v) } }
    var all: [Int] { lock.withLock { values } }
}

/// Every log line a server writes, with its metadata, kept for a test to search.
final class CapturedLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var text: String { lock.withLock { lines.joined(separator: "\n") } }
}

struct CapturingLogHandler: LogHandler {
    let log: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(
        level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt
    ) {
        log.add("\(level) \(message) \(self.metadata.merging(metadata ?? [:]) { _, b in b })")
    }
}
