import Foundation
import NIOCore
import NIOPosix
import NearbyKit
import NearbyServer
import NearbyTestSupport
import Testing

extension RealServer {
    /// What running the server in production needs: metrics, CORS, deadlines, `/v1/where`, and queries
    /// answered in parallel while the cache is reloaded. Every test talks HTTP to the real server.
    @Suite struct OperationsTests {
        // MARK: the heap

        /// `nearby serve` bounds glibc's arenas (`MallocArenas`, as `ServeCommand` does): if the C library
        /// refused the limit, the soak's resident heap would grow (BENCHMARKS.md, "Soak").
        @Test func testMallocArenaLimitIsTakenByGlibc() {
            #if os(Linux)
                #expect(MallocArenas.limit(to: max(2, ProcessInfo.processInfo.activeProcessorCount)))
            #endif
        }

        // MARK: event loops pinned to CPUs

        /// `--pin-event-loops`: each loop of a group ends up allowed on exactly its CPU, the i-th loop on the
        /// i-th CPU the process may use (round robin: one loop more than CPUs), and the calling thread is
        /// left as it was.
        @Test func testEventLoopsArePinnedOneCPUEach() async throws {
            #if os(Linux)
                let allowed = try #require(EventLoopAffinity.allowedCPUs())
                #expect(!allowed.isEmpty)
                let callerBefore = EventLoopAffinity.callingThreadCPUs()
                let group = MultiThreadedEventLoopGroup(numberOfThreads: allowed.count + 1)
                let chosen = try await EventLoopAffinity.pin(group)
                #expect(chosen == (0...allowed.count).map { allowed[$0 % allowed.count] })
                for (loop, cpu) in zip(group.makeIterator(), chosen) {
                    let seen = try await loop.submit { EventLoopAffinity.callingThreadCPUs() }.get()
                    #expect(seen == [cpu])
                }
                #expect(EventLoopAffinity.callingThreadCPUs() == callerBefore)
                try await group.shutdownGracefully()
            #endif
        }

        // MARK: /metrics

        @Test func testMetricsParseAndCountRequestsErrorsAndReloads() throws {
            let folder = try TempFolder()
            let path = try Fixture.cache(in: folder, count: 1_000)
            let server = try RunningServer(path: path)
            defer { server.stop() }
            let (lat, lon) = Fixture.seoul
            let before = try Self.metrics(server)
            let ok = #"nearby_http_requests_total{route="/v1/places",status="200"}"#
            let bad = #"nearby_http_requests_total{route="/v1/places",status="400"}"#
            let errors = #"nearby_http_errors_total{route="/v1/places",kind="client"}"#
            let timings = #"nearby_http_request_duration_seconds_count{route="/v1/places"}"#
            for _ in 0..<3 {
                #expect(try server.http.get("/v1/places?lat=\(lat)&lon=\(lon)&radius=1000&limit=5").status == 200)
            }
            #expect(try server.http.get("/v1/places?lat=\(lat)&lon=\(lon)&radius=-1").status == 400)
            #expect(try server.http.get("/no/such/path").status == 404)
            let after = try Self.metrics(server)
            #expect(after[ok, default: 0] - before[ok, default: 0] == 3)
            #expect(after[bad, default: 0] - before[bad, default: 0] == 1)
            #expect(after[errors, default: 0] - before[errors, default: 0] == 1)
            #expect(after[timings, default: 0] - before[timings, default: 0] == 4)
            #expect(
                after[#"nearby_http_requests_total{route="other",status="404"}"#] == 1, "unknown paths share one label")
            #expect(after["nearby_cache_places"] == 1_000)
            let generation = try #require(try server.http.get("/healthz").json["generation"] as? Int)
            #expect(after["nearby_cache_generation"] == Double(generation))
            // The histogram's buckets are cumulative and end at the count.
            let buckets = after.filter {
                $0.key.hasPrefix(#"nearby_http_request_duration_seconds_bucket{route="/v1/places""#)
            }
            #expect(
                buckets[#"nearby_http_request_duration_seconds_bucket{route="/v1/places",le="+Inf"}"#] == after[timings]
            )

            // Another process imports: the reload is counted and the generation moves.
            _ = try Importer().importPlaces(Fixture.places(10, idOffset: 5_000), into: PlaceCache(path: path))
            let deadline = Date(timeIntervalSinceNow: 5)
            var reloaded = after
            while reloaded[#"nearby_reloads_total{result="ok"}"#, default: 0] < 1 && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.05)
                reloaded = try Self.metrics(server)
            }
            #expect(reloaded[#"nearby_reloads_total{result="ok"}"#] == 1)
            #expect(reloaded["nearby_cache_places"] == 1_010)
            #expect(reloaded["nearby_cache_generation", default: 0] > Double(generation))
        }

        /// `/metrics` as series → value, after checking every line is a comment or `series value`.
        static func metrics(_ server: RunningServer) throws -> [String: Double] {
            let r = try server.http.get("/metrics")
            #expect(r.status == 200)
            #expect(r.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
            var values: [String: Double] = [:]
            for line in r.text.split(separator: "\n") where !line.hasPrefix("#") {
                let parts = line.split(separator: " ")
                guard parts.count == 2, let value = Double(parts[1]), parts[0].hasPrefix("nearby_") else {
                    Issue.record("not a Prometheus sample line: \(line)")
                    continue
                }
                values[String(parts[0])] = value
            }
            return values
        }

        // MARK: CORS

        @Test func testNoCORSHeadersUnlessAnOriginIsGiven() throws {
            let folder = try TempFolder()
            let server = try RunningServer(path: try Fixture.cache(in: folder, count: 200))
            defer { server.stop() }
            let r = try server.http.get("/healthz", headers: ["Origin": "https://map.example"])
            #expect(r.status == 200)
            #expect(!(r.headers.keys.contains { $0.hasPrefix("access-control-") }), "\(r.headers)")
            let preflight = try server.http.send(
                method: "OPTIONS", target: "/v1/places",
                headers: ["Origin": "https://map.example", "Access-Control-Request-Method": "GET"])
            #expect(preflight.status == 405, "\(preflight.text)")
            #expect(preflight.headers["access-control-allow-origin"] == nil)
        }

        @Test func testCORSForTheGivenOriginAndPreflight() throws {
            let folder = try TempFolder()
            let server = try RunningServer(
                path: try Fixture.cache(in: folder, count: 200),
                options: RunningServer.options { $0.corsOrigins = ["https://map.example"] })
            defer { server.stop() }
            let page = "https://map.example"
            let (lat, lon) = Fixture.seoul
            let r = try server.http.get(
                "/v1/places?lat=\(lat)&lon=\(lon)&radius=500&limit=2", headers: ["Origin": page])
            #expect(r.status == 200)
            #expect(r.headers["access-control-allow-origin"] == page)
            #expect(r.headers["vary"] == "Origin")
            #expect(r.headers["access-control-expose-headers"]?.contains("X-Next-Cursor") == true)
            // Errors carry the headers too, so the page can read the message.
            let error = try server.http.get("/v1/places?lat=x", headers: ["Origin": page])
            #expect(error.status == 400)
            #expect(error.headers["access-control-allow-origin"] == page)
            // Another origin: no permission.
            let other = try server.http.get("/healthz", headers: ["Origin": "https://evil.example"])
            #expect(other.status == 200)
            #expect(other.headers["access-control-allow-origin"] == nil)
            // No Origin: a plain response.
            #expect((try server.http.get("/healthz").headers["access-control-allow-origin"]) == nil)

            let preflight = try server.http.send(
                method: "OPTIONS", target: "/v1/places?lat=1",
                headers: [
                    "Origin": page, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "accept",
                ])
            #expect(preflight.status == 204, "\(preflight.text)")
            #expect(preflight.headers["access-control-allow-origin"] == page)
            #expect(preflight.headers["access-control-allow-methods"] == "GET, OPTIONS")
            #expect(preflight.headers["access-control-allow-headers"] == "accept")
            #expect(preflight.headers["access-control-max-age"] == "600")
            #expect(preflight.body.count == 0)
            let tour = try server.http.send(
                method: "OPTIONS", target: "/B551011/KorService2/locationBasedList2",
                headers: ["Origin": page, "Access-Control-Request-Method": "GET"])
            #expect(tour.status == 204)

            let stranger = try server.http.send(
                method: "OPTIONS", target: "/v1/places",
                headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "GET"])
            #expect(stranger.status == 403, "\(stranger.text)")
            #expect(stranger.headers["access-control-allow-origin"] == nil)
            let delete = try server.http.send(
                method: "OPTIONS", target: "/v1/places",
                headers: ["Origin": page, "Access-Control-Request-Method": "DELETE"])
            #expect(delete.status == 405, "\(delete.text)")
            let unknown = try server.http.send(
                method: "OPTIONS", target: "/v2/nothing",
                headers: ["Origin": page, "Access-Control-Request-Method": "GET"])
            #expect(unknown.status == 404, "\(unknown.text)")
        }

        // MARK: Deadlines

        @Test func testARealQueryPastTheDeadlineGets503AndTheServerCarriesOn() throws {
            let folder = try TempFolder()
            // Ordering 30,000 rows takes far longer than a millisecond, with room for a late timer on a busy
            // machine (a few thousand rows can be ordered before such a timer fires).
            let server = try RunningServer(
                path: try Fixture.cache(in: folder, count: 30_000),
                options: RunningServer.options { $0.requestTimeout = .milliseconds(1) })
            defer { server.stop() }
            let (lat, lon) = Fixture.seoul
            let r = try server.http.get("/v1/places?lat=\(lat)&lon=\(lon)&radius=50000&limit=30000")
            #expect(r.status == 503, "\(r.text.prefix(300))")
            #expect(r.headers["retry-after"] == "1")
            #expect((r.json["error"] as? String)?.contains("1 ms") == true, "\(r.text)")
            let tour = try server.http.get("/B551011/KorService2/areaBasedList2?numOfRows=30000&_type=json")
            #expect(tour.status == 503, "\(tour.text.prefix(300))")
            let header = (tour.json["response"] as? [String: Any])?["header"] as? [String: Any]
            #expect(header?["resultCode"] as? String == "05")
            #expect(try server.http.get("/healthz").status == 200)
            #expect(
                try Self.metrics(server)[#"nearby_http_errors_total{route="/v1/places",kind="timeout"}"#, default: 0]
                    >= 1)
        }

        @Test func testSlowQueryTimesOutAndTheNextWaitsForItsLaneThenIsAnswered() throws {
            let folder = try TempFolder()
            let path = try Fixture.cache(in: folder, count: 500)
            let gate = Gate(delay: 0.4)
            let server = try RunningServer(
                path: path,
                options: RunningServer.options {
                    $0.lanes = 1
                    $0.requestTimeout = .milliseconds(150)
                }, provider: gate.provider)
            defer { server.stop() }
            let (lat, lon) = Fixture.seoul
            let target = "/v1/places?lat=\(lat)&lon=\(lon)&radius=10000&limit=3&fields=id"
            let slow = try server.http.begin(target)
            Thread.sleep(forTimeInterval: 0.05)
            let queued = try server.http.get(target)  // the one lane is busy for 0.4 s: 503 busy at 0.15 s
            let first = try slow.finish()
            #expect(first.status == 503)
            #expect((first.json["error"] as? String)?.contains("ran longer") == true, "\(first.text)")
            #expect(queued.status == 503)
            #expect((queued.json["error"] as? String)?.contains("busy") == true, "\(queued.text)")
            // The slow query finishes in the background and gives its lane back.
            Thread.sleep(forTimeInterval: 0.5)
            gate.delay = 0
            let later = try server.http.get(target)
            #expect(later.status == 200, "\(later.text)")
            #expect((later.json["places"] as? [Any])?.count == 3)
        }

        /// A small page runs at once on the request's thread with no deadline timer: past its deadline it
        /// gets its 503 when it ends, and gives its lane back. So does a large page of a circle that holds
        /// few matches (its counting page says so). A large page of a full circle still gets its 503 at the
        /// deadline while it runs on.
        @Test func testASmallPageRunAtOnceGets503WhenItEndsPastItsDeadline() throws {
            let folder = try TempFolder()
            let gate = Gate(delay: 0.6, inline: true)
            let server = try RunningServer(
                path: try Fixture.cache(in: folder, count: 3_000),
                options: RunningServer.options {
                    $0.lanes = 1
                    $0.requestTimeout = .milliseconds(100)
                }, provider: gate.provider)
            defer { server.stop() }
            let (lat, lon) = Fixture.seoul
            var start = Date()
            let small = try server.http.get("/v1/places?lat=\(lat)&lon=\(lon)&radius=10000&limit=3&fields=id")
            #expect(small.status == 503, "\(small.text)")
            #expect((small.json["error"] as? String)?.contains("ran longer") == true, "\(small.text)")
            #expect(Date().timeIntervalSince(start) >= 0.6, "the small page was not run to its end")

            start = Date()
            let large = try server.http.get("/v1/places?lat=\(lat)&lon=\(lon)&radius=10000&limit=2500&fields=id")
            #expect(large.status == 503, "\(large.text)")
            #expect((large.json["error"] as? String)?.contains("ran longer") == true, "\(large.text)")
            #expect(Date().timeIntervalSince(start) < 0.5, "a large page's 503 waited for its query")

            // The large page's query holds the one lane until it ends: wait for it (its 0.7 s, then until the
            // gate is idle: a loaded machine overruns a fixed wait), then a moment for the lane to be handed back.
            Thread.sleep(forTimeInterval: 0.7)
            gate.waitUntilIdle()
            Thread.sleep(forTimeInterval: 0.05)
            start = Date()
            // The centre is north of the fixture's grid: a 2 km circle holds a few dozen of its places.
            let sparse = try server.http.get("/v1/places?lat=\(lat)&lon=\(lon)&radius=2000&limit=2500&fields=id")
            #expect(sparse.status == 503, "\(sparse.text)")
            #expect((sparse.json["error"] as? String)?.contains("ran longer") == true, "\(sparse.text)")
            #expect(Date().timeIntervalSince(start) >= 0.6, "the large page of a sparse circle was not run at once")

            gate.delay = 0
            let later = try server.http.get("/v1/places?lat=\(lat)&lon=\(lon)&radius=10000&limit=3&fields=id")
            #expect(later.status == 200, "\(later.text)")
            #expect((later.json["places"] as? [Any])?.count == 3)
            let few = try server.http.get("/v1/places?lat=\(lat)&lon=\(lon)&radius=2000&limit=2500&fields=id")
            #expect(few.status == 200, "\(few.text)")
            #expect(
                (few.json["places"] as? [Any])?.count
                    == Fixture.within(Fixture.places(3_000), lat: lat, lon: lon, radius: 2_000).count)
            #expect(
                try Self.metrics(server)[#"nearby_http_errors_total{route="/v1/places",kind="timeout"}"#, default: 0]
                    == 3)
        }

        // MARK: /v1/where

        @Test func testWhereInKoreaAtSeaAndBadInput() throws {
            let folder = try TempFolder()
            let server = try RunningServer(path: try Fixture.cache(in: folder, count: 100))
            defer { server.stop() }
            let seoul = try server.http.get("/v1/where?lat=37.5796&lon=126.9770")
            #expect(seoul.status == 200, "\(seoul.text)")
            #expect(seoul.json["region"] as? String == "서울특별시 종로구 세종로")
            #expect((seoul.json["sigungu"] as? [String: Any])?["code"] as? String == "11110")
            // Byte for byte what `nearby where` writes, from the same library code.
            let index = try RegionData.index()
            #expect(
                Array(seoul.body) == RegionJSON.whereLine(
                    lat: 37.5796, lon: 126.9770, index.locate(lat: 37.5796, lon: 126.9770)) + [0x0A])
            let jeju = try server.http.get("/v1/where?lon=126.5312&lat=33.4996")
            #expect((jeju.json["sido"] as? [String: Any])?["name"] as? String == "제주특별자치도", "\(jeju.text)")

            // The East Sea: an answer, not an error.
            let sea = try server.http.get("/v1/where?lat=36.0&lon=130.0")
            #expect(sea.status == 200)
            #expect(sea.json["region"] as? String == "unknown")
            #expect((sea.json["nearest"] as? [String: Any]) != nil)
            #expect(sea.json["distance_m"] as? Double ?? 0 > 10_000)

            for (target, parameter) in [
                ("/v1/where?lat=91&lon=127", "lat"), ("/v1/where?lat=37", "lon"),
                ("/v1/where?lat=37&lon=east", "lon"), ("/v1/where?lat=37&lon=127&zoom=3", "zoom"),
                ("/v1/where?lat=37&lat=38&lon=127", "lat"),
            ] {
                let r = try server.http.get(target)
                #expect(r.status == 400, "\(target)")
                #expect(r.json["parameter"] as? String == parameter, "\(target)")
            }
        }

        // MARK: Parallel queries under reload

        @Test func testParallelQueriesAreExactAcrossAReload() throws {
            let folder = try TempFolder()
            let path = try Fixture.cache(in: folder, count: 3_000)
            let gate = Gate(delay: 0.003)
            let server = try RunningServer(
                path: path, options: RunningServer.options { $0.lanes = 4 }, provider: gate.provider)
            defer { server.stop() }
            let first = try #require(try server.http.get("/healthz").json["generation"] as? Int)
            let older = Fixture.places(3_000)
            let added = Fixture.places(400, idOffset: 20_000)
            final class Tally: @unchecked Sendable {
                let lock = NSLock()
                var ok = 0
                var failures: [String] = []
                var generations: Set<Int> = []
            }
            let tally = Tally()
            let clients = DispatchGroup()
            for client in 0..<8 {
                DispatchQueue.global().async(group: clients) {
                    for i in 0..<30 {
                        let lat = 37.50 + Double((client * 7 + i) % 30) * 0.0015
                        let lon = 126.90 + Double((client * 13 + i) % 80) * 0.002
                        let outcome: String?
                        do {
                            let r = try server.http.get(
                                "/v1/places?lat=\(lat)&lon=\(lon)&radius=800&limit=100000&fields=id,distance")
                            let generation = Int(r.headers["x-cache-generation"] ?? "") ?? -1
                            let places = generation == first ? older : older + added
                            let expected = Fixture.within(places, lat: lat, lon: lon, radius: 800).map(\.id)
                            let got = (r.json["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
                            outcome =
                                r.status != 200
                                ? "\(r.status) \(r.text.prefix(200))"
                                : got != expected
                                    ? "generation \(generation) at \(lat),\(lon): \(got?.count ?? -1) ids, expected \(expected.count)"
                                    : nil
                            tally.lock.lock()
                            tally.generations.insert(generation)
                            tally.lock.unlock()
                        } catch {
                            outcome = "\(error)"
                        }
                        tally.lock.lock()
                        if let outcome { tally.failures.append(outcome) } else { tally.ok += 1 }
                        tally.lock.unlock()
                    }
                }
            }
            Thread.sleep(forTimeInterval: 0.2)
            _ = try Importer().importPlaces(added, into: PlaceCache(path: path))
            #expect(clients.wait(timeout: .now() + 120) == .success)
            #expect(tally.failures == [])
            #expect(tally.ok == 240)
            #expect(gate.maxInFlight >= 2, "queries never ran at the same time")
            #expect(gate.maxInFlight <= 4 * 2, "more queries at once than lanes (two generations)")
            #expect(tally.generations.contains(first), "no answer from before the import: \(tally.generations)")
            #expect(tally.generations.count == 2, "the reload was not seen: \(tally.generations)")
        }
    }
}

/// The real snapshot engine, made slow and watched: how many of its queries run at once, and a delay
/// before each (so a deadline or a busy lane can be provoked without a huge cache).
final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    private var inFlight = 0
    private(set) var maxInFlight = 0
    private var _delay: TimeInterval
    var delay: TimeInterval {
        get {
            lock.lock()
            defer { lock.unlock() }
            return _delay
        }
        set {
            lock.lock()
            _delay = newValue
            lock.unlock()
        }
    }

    /// `inline`: small queries may run on the event loop (a made-slow engine would stall it, so off
    /// unless a test is about that path).
    init(delay: TimeInterval, inline: Bool = false) {
        _delay = delay
        self.inline = inline
    }
    let inline: Bool

    /// Returns when no made-slow query is running (or after `timeout` seconds, and the test's own
    /// assertions then fail).
    func waitUntilIdle(timeout: TimeInterval = 10) {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            lock.lock()
            let idle = inFlight == 0
            lock.unlock()
            if idle { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    var provider: EngineProvider {
        EngineProvider(isConcurrent: false, runsSmallQueriesInline: inline) { [self] cache in
            Engine(inner: try EngineKind.snapshot.open(cache), gate: self)
        }
    }

    struct Engine: QueryEngine {
        let inner: any QueryEngine
        let gate: Gate

        func run(_ query: PlaceQuery) throws -> QueryAnswer {
            // The server's one-row counting page (`EngineSnapshot.countingPage`) is the cheap part of a
            // large page: only the pages themselves are made slow.
            if query.limit == 1 { return try inner.run(query) }
            gate.lock.lock()
            gate.inFlight += 1
            gate.maxInFlight = max(gate.maxInFlight, gate.inFlight)
            gate.lock.unlock()
            defer {
                gate.lock.lock()
                gate.inFlight -= 1
                gate.lock.unlock()
            }
            Thread.sleep(forTimeInterval: gate.delay)
            return try inner.run(query)
        }
    }
}
