import Foundation
import NearbyKit

/// What the personal layer costs on a cache (`nearby bench personal`, `scripts/bench-personal.sh`):
/// two generated users written into the cache's personal tables, then, one thread, each query a
/// number of times (its latency the median):
///
/// - `bookmarked` against `category`: each workload query's circle filtered to the user's bookmarks,
///   and the same circle filtered to the rarest content type instead (the workload's most selective
///   category filter), with the user's data attached as the server attaches it (read once, outside
///   the timing; that read is timed on its own as `load`);
/// - `sort -rating`: the rater's circles of `sortRadius` around the workload's centres near `near`,
///   by rating, first page of 30, with and without `min-rating=1`;
/// - the backup of each user, restored into a fresh cache and backed up again (byte-identical);
/// - the first bookmarked query on data read afresh (the server's after a commit: the mapping onto
///   the rows, which later queries reuse);
/// - the server's token check (`UserTokens.Table` after the cache's `data_version`), as
///   `TokenCheck` makes it.
public enum PersonalBench {
    public struct Options: Sendable {
        /// The user with items spread over the country, and how many of each.
        public var user = "bench"
        public var bookmarks = 2_000
        public var ratings = 500
        public var memos = 200
        public var visits = 300
        /// The user with `ratedNear` ratings among the places within `nearRadius` of `near`.
        public var rater = "bench-rater"
        public var ratedNear = 10_000
        public var near = Coordinate(lat: 37.5665, lon: 126.9780)
        public var nearRadius = 20_000.0
        /// The circle of the sorted queries, around the workload's centres within `centresWithin` of `near`.
        public var sortRadius = 20_000.0
        public var centresWithin = 10_000.0
        /// Runs of each query; its latency is their median.
        public var runs = 5
        public var seed: UInt64 = 2026
        /// Users (with a token each) among which the token check finds one.
        public var tokenUsers = 20
        /// The content type of the category filter; nil: the places' rarest.
        public var category: Int?

        public init() {}
    }

    /// Latencies in microseconds, one per query: their percentiles as a JSON line.
    struct Timings {
        var name: String
        var micros: [Double] = []
        var rows = 0
        var extra: [(String, String)] = []

        func line() -> String {
            let s = micros.sorted()
            func at(_ q: Double) -> Double { s.isEmpty ? 0 : s[min(s.count - 1, Int(q * Double(s.count)))] }
            let mean = s.isEmpty ? 0 : s.reduce(0, +) / Double(s.count)
            var fields = [
                ("name", "\"\(name)\""), ("queries", "\(s.count)"), ("p50Us", Self.f(at(0.5))),
                ("p90Us", Self.f(at(0.9))), ("p99Us", Self.f(at(0.99))), ("meanUs", Self.f(mean)),
                ("meanRows", Self.f(s.isEmpty ? 0 : Double(rows) / Double(s.count))),
            ]
            fields += extra
            return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
        }

        var p50: Double { micros.isEmpty ? 0 : micros.sorted()[min(micros.count - 1, micros.count / 2)] }
        var mean: Double { micros.isEmpty ? 0 : micros.reduce(0, +) / Double(micros.count) }

        static func f(_ v: Double) -> String { String(format: "%.3f", v) }
    }

    /// Runs everything on the cache at `path` (its personal tables are written: use a copy) with
    /// `engine`, the workload's `queries`; writes one JSON line per measurement through `emit`.
    public static func run(
        path: String, engineKind: EngineKind, queries: [WorkloadQuery], options o: Options,
        emit: (String) -> Void
    ) throws {
        // The engine reads through a connection of its own (an engine may hold a read transaction open).
        let cache = try PlaceCache(path: path)
        let engine = try engineKind.open(try PlaceCache(path: path, readOnly: true))
        var random = SplitMix64(seed: o.seed)
        let progress = BenchProgress("personal")

        // The users: every place id, and those near `near`, from the engine.
        progress.say("drawing the users' places")
        let all = try engine.run(PlaceQuery(limit: 0), records: false).rows.ids
        let nearIds = try engine.run(
            PlaceQuery(center: o.near, shape: .radius(o.nearRadius), limit: 0), records: false
        ).rows.ids
        let now: Int64 = 1_764_300_000_000
        var spread: [PersonalRecord] = []
        func draw(_ n: Int, from ids: [String]) -> [String] {
            var picked = Set<String>()
            while picked.count < min(n, ids.count) { picked.insert(ids[Int(random.next() % UInt64(ids.count))]) }
            return picked.sorted()
        }
        func time(_ i: Int) -> Int64 { now - Int64(i) * 60_000 }
        let lists = ["default", "food", "trip"]
        for (i, id) in draw(o.bookmarks, from: all).enumerated() {
            spread.append(.bookmark(place: id, list: lists[i % lists.count], added: time(i), updated: time(i)))
        }
        for (i, id) in draw(o.ratings, from: all).enumerated() {
            spread.append(.rating(place: id, stars: Double(2 + Int(random.next() % 9)) / 2, updated: time(i)))
        }
        for (i, id) in draw(o.memos, from: all).enumerated() {
            spread.append(.memo(place: id, text: "메모 \(i): 다시 가 볼 곳", created: time(i), updated: time(i)))
        }
        for (i, id) in draw(o.visits, from: all).enumerated() {
            spread.append(.visit(place: id, at: time(i), updated: time(i)))
        }
        var rated: [PersonalRecord] = []
        for (i, id) in draw(o.ratedNear, from: nearIds).enumerated() {
            rated.append(.rating(place: id, stars: Double(2 + Int(random.next() % 9)) / 2, updated: time(i)))
        }
        try cache.restorePersonal(users: [], items: [o.user: spread, o.rater: rated], replace: true)
        emit(
            "{\"name\":\"users\",\"places\":\(all.count),\"placesNear\":\(nearIds.count),\"\(o.user)\":{\"bookmarks\":"
                + "\(o.bookmarks),\"ratings\":\(o.ratings),\"memos\":\(o.memos),\"visits\":\(o.visits)},"
                + "\"\(o.rater)\":{\"ratings\":\(min(o.ratedNear, nearIds.count))}}")

        // The category filter: the rarest content type of the places.
        let category: Int
        if let c = o.category {
            category = c
        } else {
            var counts: [(Int, Int)] = []
            for c in ContentType.names.keys.sorted() {
                let n = try engine.run(PlaceQuery(filter: PlaceFilter(categories: [c]), limit: 1), records: false)
                if let total = n.total, total > 0 { counts.append((total, c)) }
            }
            category = counts.min { $0 < $1 }?.1 ?? 12
        }

        // Loading a user's data, as the server does for each personal request.
        for user in [o.user, o.rater] {
            var t = Timings(name: "load \(user)")
            for _ in 0..<max(20, o.runs * 4) {
                let (d, s) = try BenchClock.measure { try cache.personalData(user: user) }
                t.micros.append(s * 1e6)
                t.rows += d.items.count
            }
            emit(t.line())
        }

        func median(_ q: PlaceQuery) throws -> (Double, Int) {
            var times: [Double] = []
            var rows = 0
            for _ in 0..<max(1, o.runs) {
                let (a, s) = try BenchClock.measure { try engine.run(q, records: false) }
                times.append(s * 1e6)
                rows = a.rows.count
            }
            times.sort()
            return (times[times.count / 2], rows)
        }

        // Bookmarked against the category filter, over the workload's circles.
        func circle(_ w: WorkloadQuery) -> PlaceQuery {
            PlaceQuery(
                center: Coordinate(lat: w.lat, lon: w.lon), shape: .radius(w.radius),
                order: PlaceOrder([SortKey(.distance)]), limit: w.limit)
        }
        var plain = Timings(name: "circle")
        var byCategory = Timings(name: "category \(category)")
        for (n, w) in queries.enumerated() {
            if n % 500 == 0 { progress.say("circle and category: query \(n + 1) of \(queries.count)") }
            let (t, r) = try median(circle(w))
            plain.micros.append(t)
            plain.rows += r
            var c = circle(w)
            c.filter = PlaceFilter(categories: [category])
            let (tc, rc) = try median(c)
            byCategory.micros.append(tc)
            byCategory.rows += rc
        }
        emit(plain.line())
        emit(byCategory.line())
        for user in [o.user, o.rater] {
            let data = PersonalDataRef(try cache.personalData(user: user))
            var bookmarked = Timings(name: "bookmarked \(user)")
            for (n, w) in queries.enumerated() {
                if n % 500 == 0 { progress.say("bookmarked \(user): query \(n + 1) of \(queries.count)") }
                var q = circle(w)
                q.personal.user = user
                q.personal.bookmarked = true
                q.personalData = data
                let (t, r) = try median(q)
                bookmarked.micros.append(t)
                bookmarked.rows += r
            }
            bookmarked.extra = [
                ("items", "\(data.data.items.count)"),
                ("p50ToCategory", Timings.f(bookmarked.p50 / max(byCategory.p50, 1e-9))),
                ("meanToCategory", Timings.f(bookmarked.mean / max(byCategory.mean, 1e-9))),
            ]
            emit(bookmarked.line())
        }

        // The first query after a user's data changed: the data read afresh, mapped onto the rows.
        for user in [o.user, o.rater] {
            var t = Timings(name: "first bookmarked query on fresh data \(user)")
            for w in queries.prefix(max(20, o.runs * 4)) {
                var q = circle(w)
                q.personal.user = user
                q.personal.bookmarked = true
                q.personalData = PersonalDataRef(try cache.personalData(user: user))
                let (a, s) = try BenchClock.measure { try engine.run(q, records: false) }
                t.micros.append(s * 1e6)
                t.rows += a.rows.count
            }
            emit(t.line())
        }

        // Sorting by rating within `sortRadius` of the workload's centres near `near`.
        let centres = queries.filter {
            Haversine.distance(lat1: $0.lat, lon1: $0.lon, lat2: o.near.lat, lon2: o.near.lon) <= o.centresWithin
        }
        for user in [o.rater, o.user] {
            let data = PersonalDataRef(try cache.personalData(user: user))
            for rated in [true, false] {
                var t = Timings(name: "sort -rating\(rated ? " min-rating 1" : "") \(user)")
                for (n, w) in centres.enumerated() {
                    if n % 200 == 0 { progress.say("\(t.name): centre \(n + 1) of \(centres.count)") }
                    var q = PlaceQuery(
                        center: Coordinate(lat: w.lat, lon: w.lon), shape: .radius(o.sortRadius),
                        order: PlaceOrder([SortKey(.rating, descending: true), SortKey(.distance)]), limit: 30)
                    q.personal.user = user
                    if rated { q.personal.minRating = 1 }
                    q.personalData = data
                    let (s, r) = try median(q)
                    t.micros.append(s)
                    t.rows += r
                }
                emit(t.line())
            }
        }

        // Backup → restore into a fresh cache → backup: the same bytes.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nearby-bench-personal-\(getpid())"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for user in [o.user, o.rater] {
            var times: [String: [Double]] = [:]
            var identical = true
            var size = 0
            for run in 0..<max(3, o.runs) {
                progress.say("backup and restore \(user): run \(run + 1)")
                let (backup, b) = try BenchClock.measure {
                    try PersonalBackup.write(store: cache, user: user, withPlaces: false)
                }
                let fresh = "\(folder)/fresh-\(run).sqlite"
                let target = try PlaceCache(path: fresh)
                let (_, r) = try BenchClock.measure {
                    try PersonalBackup.restore(backup, file: "backup", into: target, replace: false)
                }
                let (again, b2) = try BenchClock.measure {
                    try PersonalBackup.write(store: target, user: user, withPlaces: false)
                }
                identical = identical && again == backup
                size = backup.count
                times["backupMs", default: []].append(b * 1e3)
                times["restoreMs", default: []].append(r * 1e3)
                times["backupAgainMs", default: []].append(b2 * 1e3)
            }
            let medians = times.keys.sorted().map { key in
                let v = times[key]!.sorted()
                return "\"\(key)\":\(Timings.f(v[v.count / 2]))"
            }
            emit(
                "{\"name\":\"backup round trip \(user)\",\"bytes\":\(size),\"identical\":\(identical),"
                    + medians.joined(separator: ",") + "}")
        }

        // The token check: data_version, then SHA-256 against every active hash.
        var tokens: [String] = []
        for i in 0..<o.tokenUsers {
            let name = "bench-token-\(i)"
            _ = try cache.removeUser(name: name)
            tokens.append(try UserTokens.addUser(name, store: cache, now: now))
        }
        let table = UserTokens.Table(try cache.activeTokenHashes())
        let token = tokens[tokens.count / 2]
        let n = 200_000
        var found = 0
        let (_, full) = try BenchClock.measure {
            for i in 0..<n {
                _ = try cache.dataVersion()
                if table.user(forToken: i % 2 == 0 ? token : "nby_wrong") != nil { found += 1 }
            }
        }
        let (_, hashOnly) = BenchClock.measure {
            for i in 0..<n where table.user(forToken: i % 2 == 0 ? token : "nby_wrong") != nil { found += 1 }
        }
        emit(
            "{\"name\":\"token check\",\"users\":\(table.count),\"checkUs\":\(Timings.f(full / Double(n) * 1e6)),"
                + "\"hashesUs\":\(Timings.f(hashOnly / Double(n) * 1e6)),\"found\":\(found)}")
        for i in 0..<o.tokenUsers { _ = try cache.removeUser(name: "bench-token-\(i)") }
    }
}
