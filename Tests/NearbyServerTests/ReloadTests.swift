import Foundation
import NearbyKit
import NearbyServer
import NearbyTestSupport
import Testing

extension RealServer {
    /// Reload while requests run, and shutdown while one is in flight.
    @Suite struct ReloadTests {
        @Test func testImportDuringRequestsIsPickedUpAndNoRequestFails() throws {
            let folder = try TempFolder()
            let path = try Fixture.cache(in: folder, count: 3_000)
            let server = try RunningServer(path: path)
            defer { server.stop() }
            let before = try server.http.get("/healthz").json["generation"] as? Int
            let (lat, lon) = Fixture.seoul
            let first = try server.http.get("/v1/places?lat=\(lat)&lon=\(lon)&radius=3000&limit=5&fields=id")
            let cursor = try #require(first.json["next"] as? String)

            // Clients keep asking while another connection (as another process would) imports.
            final class Tally: @unchecked Sendable {
                let lock = NSLock()
                var ok = 0
                var failures: [String] = []
                var stop = false
            }
            let tally = Tally()
            let clients = DispatchGroup()
            for _ in 0..<2 {
                DispatchQueue.global().async(group: clients) {
                    while true {
                        tally.lock.lock()
                        let stop = tally.stop
                        tally.lock.unlock()
                        if stop { break }
                        let r = Result {
                            try server.http.get(
                                "/v1/places?lat=\(lat)&lon=\(lon)&radius=3000&limit=50&fields=id,distance")
                        }
                        tally.lock.lock()
                        switch r {
                        case .success(let r) where r.status == 200 && (r.json["places"] as? [Any])?.count == 50:
                            tally.ok += 1
                        case .success(let r): tally.failures.append("\(r.status) \(r.text.prefix(200))")
                        case .failure(let e): tally.failures.append("\(e)")
                        }
                        tally.lock.unlock()
                    }
                }
            }
            Thread.sleep(forTimeInterval: 0.3)
            _ = try Importer().importPlaces(Fixture.places(500, idOffset: 10_000), into: PlaceCache(path: path))
            let imported = Date()
            var after = before
            while after == before && Date().timeIntervalSince(imported) < 5 {
                Thread.sleep(forTimeInterval: 0.05)
                after = try server.http.get("/healthz").json["generation"] as? Int
            }
            Thread.sleep(forTimeInterval: 0.3)
            tally.lock.lock()
            tally.stop = true
            tally.lock.unlock()
            clients.wait()

            #expect(after != before, "the server did not pick up the import within 5 s (it polls every 0.1 s here)")
            #expect(try server.http.get("/healthz").json["places"] as? Int == 3_500)
            #expect(tally.failures == [])
            #expect(tally.ok > 5)

            // A cursor from the old generation: 409, naming the cursor.
            let stale = try server.http.get(
                "/v1/places?lat=\(lat)&lon=\(lon)&radius=3000&limit=5&fields=id&cursor="
                    + cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            #expect(stale.status == 409, "\(stale.text)")
            #expect(stale.json["parameter"] as? String == "cursor")
        }

        @Test func testGracefulShutdownFinishesTheRequestInFlight() throws {
            let folder = try TempFolder()
            let server = try RunningServer(path: try Fixture.cache(in: folder, count: 6_000))
            let (lat, lon) = Fixture.seoul
            // A streamed answer (6,000 lines, megabytes) whose first bytes have arrived: in flight.
            let exchange = try server.http.begin(
                "/v1/places?lat=\(lat)&lon=\(lon)&radius=50000&limit=6000&format=jsonl")
            try exchange.readSome()
            #expect(exchange.count > 0)
            let stopped = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                server.stop()
                stopped.signal()
            }
            Thread.sleep(forTimeInterval: 0.2)
            let r = try exchange.finish()
            #expect(r.status == 200)
            #expect(r.text.split(separator: "\n").count == 6_000)
            #expect(stopped.wait(timeout: .now() + 30) == .success)
            #expect(!server.http.isListening(), "the port still accepts connections after shutdown")
        }
    }
}
