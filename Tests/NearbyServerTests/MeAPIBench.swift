import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyServer

extension RealServer {
    /// What a personal write costs: a bookmark `PUT` over loopback HTTP (a connection per request, as
    /// `LoopbackHTTP` sends them: an upper bound for a kept-alive client), and the server's CPU for
    /// checking a token (`TokenCheck`: `data_version`, SHA-256, the constant-time comparisons).
    /// Prints the figures; runs only when asked:
    ///
    ///     NEARBY_BENCH_ME=1 swift test --filter MeAPIBench
    @Suite(.enabled(if: ProcessInfo.processInfo.environment["NEARBY_BENCH_ME"] == "1"))
    struct MeAPIBench {
        @Test func bookmarkWriteAndTokenCheck() throws {
            let folder = try TempFolder()
            let path = folder.file("places.sqlite")
            _ = try Importer().importPlaces(Fixture.places(2_000), into: PlaceCache(path: path))
            let cache = try PlaceCache(path: path)
            var tokens: [String] = []
            for i in 0..<20 { tokens.append(try UserTokens.addUser("user\(i)", store: cache, now: 1)) }
            let server = try RunningServer(path: path)
            defer { server.stop() }
            let headers = ["Authorization": "Bearer \(tokens[7])"]
            var times: [Double] = []
            for i in 0..<2_000 {
                let start = ContinuousClock.now
                let r = try server.http.send(
                    method: "PUT", target: "/v1/me/bookmarks/\(1 + i % 1_000)", headers: headers)
                times.append(Self.seconds(ContinuousClock.now - start))
                #expect(r.status == 200)
            }
            times.sort()
            let p50 = times[times.count / 2] * 1e3
            let p99 = times[times.count * 99 / 100] * 1e3
            print(
                "bookmark PUT over loopback HTTP: p50 \(String(format: "%.3f", p50)) ms, p99 \(String(format: "%.3f", p99)) ms"
            )

            let check = TokenCheck(open: { _ in try PlaceCache(path: path, readOnly: true) })
            let table = UserTokens.Table(try cache.activeTokenHashes())
            _ = try check.user(forToken: tokens[7])
            let n = 200_000
            var start = ContinuousClock.now
            for i in 0..<n { _ = try check.user(forToken: i % 2 == 0 ? tokens[7] : "nby_wrong") }
            let full = Self.seconds(ContinuousClock.now - start) / Double(n) * 1e6
            start = ContinuousClock.now
            for i in 0..<n { _ = table.user(forToken: i % 2 == 0 ? tokens[7] : "nby_wrong") }
            let hashOnly = Self.seconds(ContinuousClock.now - start) / Double(n) * 1e6
            print(
                "token check, 20 users: \(String(format: "%.2f", full)) µs (with data_version), "
                    + "\(String(format: "%.2f", hashOnly)) µs (SHA-256 and comparisons)")
        }

        static func seconds(_ d: Duration) -> Double {
            Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        }
    }
}
