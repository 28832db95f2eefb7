import Foundation
import NearbyKit
import NearbyServer
import NearbyTestSupport
import Testing

extension RealServer {
    /// Nearby's own API through HTTP, on a real server over a real cache, checked against the brute force.
    @Suite final class PlacesAPITests: ServedSuite {
        let served: ServedFixture
        init() throws { served = try ServedFixture() }

        @Test func testRadiusPagesEqualTheBruteForce() throws {
            let (lat, lon) = Fixture.seoul
            let expected = Fixture.within(places, lat: lat, lon: lon, radius: 2_000)
            #expect(expected.count > 100)
            let all = try server.http.get(
                "/v1/places?lat=\(lat)&lon=\(lon)&radius=2000&limit=100000&fields=id,distance")
            #expect(all.status == 200, "\(all.text)")
            #expect(all.json["total"] as? Int == expected.count)
            let rows = all.json["places"] as? [[String: Any]] ?? []
            #expect(rows.map { $0["id"] as? String } == expected.map(\.id))
            for (row, e) in zip(rows, expected) {
                #expect(abs((row["distance"] as? Double ?? -1) - e.distance) <= 1e-6)
            }
            #expect(all.json["next"] is NSNull)

            // Page by cursor: each page is the brute force's next slice.
            var target = "/v1/places?lat=\(lat)&lon=\(lon)&radius=2000&limit=25&fields=id"
            var seen: [String] = []
            for _ in 0..<3 {
                let page = try server.http.get(target)
                #expect(page.status == 200, "\(page.text)")
                seen += (page.json["places"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                let next = try #require(page.json["next"] as? String)
                #expect(page.headers["x-next-cursor"] == next)
                target =
                    "/v1/places?lat=\(lat)&lon=\(lon)&radius=2000&limit=25&fields=id&cursor="
                    + next.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            }
            #expect(seen == Array(expected.prefix(75).map(\.id)))

            // A large page past the end (run at once: the circle holds few matches) is an empty page 2.
            let past = try server.http.get("/v1/places?lat=\(lat)&lon=\(lon)&radius=2000&limit=3000&page=2&fields=id")
            #expect(past.status == 200, "\(past.text)")
            #expect(past.json["total"] as? Int == expected.count)
            #expect(past.json["page"] as? Int == 2)
            #expect((past.json["places"] as? [Any])?.count == 0)
            #expect(past.json["next"] is NSNull)
        }

        @Test func testFiltersAndSortGoThroughTheOneParser() throws {
            let r = try server.http.get(
                "/v1/places?bbox=126.9,37.5,127.0,37.55&category=12,39&sort=title,-modified&limit=5&keyword=%EC%9E%A5%EC%86%8C"
            )
            #expect(r.status == 200, "\(r.text)")
            let expected = places.filter {
                $0.lon >= 126.9 && $0.lon <= 127.0 && $0.lat >= 37.5 && $0.lat <= 37.55
                    && [12, 39].contains($0.category) && $0.title.contains("장소")
            }
            #expect(r.json["total"] as? Int == expected.count)
            for row in r.json["places"] as? [[String: Any]] ?? [] {
                #expect([12, 39].contains(row["category"] as? Int ?? 0))
            }
        }

        /// `total=none`: the JSON's total is null and no X-Total-Count is sent; the rows are the counted page's.
        @Test func testTotalNoneLeavesTheTotalOut() throws {
            let target = "/v1/places?category=12,39&keyword=%EC%9E%A5%EC%86%8C&sort=title&limit=5&page=2&fields=id"
            let counted = try server.http.get(target)
            let uncounted = try server.http.get(target + "&total=none")
            #expect(uncounted.status == 200, "\(uncounted.text)")
            #expect(counted.json["total"] as? Int ?? 0 > 10)
            #expect(counted.headers["x-total-count"] != nil)
            #expect(uncounted.json["total"] is NSNull, "\(uncounted.text)")
            #expect(uncounted.headers["x-total-count"] == nil)
            #expect(
                (uncounted.json["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
                    == (counted.json["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String })
            #expect(uncounted.json["next"] as? String == counted.json["next"] as? String)
            let bad = try server.http.get(target + "&total=some")
            #expect(bad.status == 400, "\(bad.text)")
            #expect(bad.text.contains("total"), "\(bad.text)")
        }

        @Test func testJSONLinesStreamInChunks() throws {
            let (lat, lon) = Fixture.seoul
            let expected = Fixture.within(places, lat: lat, lon: lon, radius: 50_000)
            #expect(expected.count == 6_000)
            for (target, headers) in [
                ("/v1/places?lat=\(lat)&lon=\(lon)&radius=50000&limit=6000&format=jsonl", [:]),
                ("/v1/places?lat=\(lat)&lon=\(lon)&radius=50000&limit=6000", ["Accept": "application/x-ndjson"]),
            ] {
                let r = try server.http.get(target, headers: headers)
                #expect(r.status == 200)
                #expect(r.chunked, "a large answer streams (chunked), not sized up front")
                #expect(r.headers["content-type"] == "application/x-ndjson")
                #expect(r.headers["x-total-count"] == "6000")
                let lines = r.text.split(separator: "\n")
                #expect(lines.count == 6_000)
                let ids = lines.map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }.map {
                    $0?["id"] as? String
                }
                #expect(ids == expected.map(\.id))
            }
            // Large JSON answers stream too, and still parse as one document.
            let json = try server.http.get("/v1/places?lat=\(lat)&lon=\(lon)&radius=50000&limit=6000&fields=id")
            #expect(json.chunked)
            #expect((json.json["places"] as? [Any])?.count == 6_000)
        }

        @Test func testGeoJSON() throws {
            let r = try server.http.get("/v1/places?lat=37.5665&lon=126.978&knn=3&format=geojson")
            #expect(r.status == 200, "\(r.text)")
            #expect(r.headers["content-type"] == "application/geo+json")
            #expect(r.json["type"] as? String == "FeatureCollection")
            #expect((r.json["features"] as? [Any])?.count == 3)
        }

        @Test func testPlaceDistanceHealth() throws {
            let one = try server.http.get("/v1/places/1")
            #expect(one.status == 200)
            #expect(one.json["title"] as? String == "경복궁")
            #expect(try server.http.get("/v1/places/1?fields=id,title").json.count == 2)
            let missing = try server.http.get("/v1/places/nope")
            #expect(missing.status == 404)
            #expect(missing.json["parameter"] as? String == "id")

            let d = try server.http.get(
                "/v1/distance?lat1=37.5665&lon1=126.978&lat2=35.1796&lon2=129.0756&distance=geodesic")
            #expect(d.status == 200, "\(d.text)")
            #expect(abs((d.json["distance"] as? Double ?? 0) - 325_000) <= 2_000)
            #expect(d.json["model"] as? String == "geodesic")
            let h = try server.http.get("/healthz")
            #expect(h.json["status"] as? String == "ok")
            #expect(h.json["places"] as? Int == 6_000)
        }

        /// Every class of bad input: a 4xx with a JSON body naming the parameter, never a crash.
        @Test func testBadInputNamesTheParameter() throws {
            let cases: [(String, Int, String?)] = [
                ("/v1/places?lat=37.5&lon=127&radius=abc", 400, "radius"),
                ("/v1/places?lat=37.5&radius=100", 400, "lon"),
                ("/v1/places?lat=91&lon=127&radius=100", 400, "lat"),
                ("/v1/places?colour=red", 400, "colour"),
                ("/v1/places?limit=100001", 400, "limit"),
                ("/v1/places?limit=0", 400, "limit"),
                ("/v1/places?limit=5&limit=6", 400, "limit"),
                ("/v1/places?format=xml", 400, "format"),
                ("/v1/places?fields=id,colour", 400, "fields"),
                ("/v1/places?keyword=%ZZ", 400, "keyword"),
                ("/v1/places?keyword=%FF", 400, "keyword"),
                ("/v1/places?sort=title&arrange=A", 400, "arrange"),
                ("/v1/places?limit=5&cursor=forged", 400, "cursor"),
                ("/v1/distance?lat1=1&lon1=2&lat2=3", 400, "lon2"),
                ("/v1/distance?lat1=1&lon1=2&lat2=3&lon2=200", 400, "lon2"),
                ("/v1/distance?lat1=1&lon1=2&lat2=3&lon2=4&distance=flat", 400, "distance"),
                ("/nope", 404, nil),
                ("/v1/places/a/b", 404, nil),
                ("/v1/places?lat=37.5&lon=127&radius=1&keyword=" + String(repeating: "a", count: 9_000), 414, nil),
            ]
            for (target, status, parameter) in cases {
                let r = try server.http.get(target)
                #expect(r.status == status, "\(target.prefix(80)): \(r.text)")
                #expect(r.headers["content-type"] == "application/json; charset=utf-8", "\(target.prefix(80))")
                #expect(r.json["status"] as? Int == status, "\(target.prefix(80))")
                #expect(r.json["parameter"] as? String == parameter, "\(target.prefix(80)): \(r.text)")
                #expect(!(r.json["error"] as? String ?? "").isEmpty)
            }
            for method in ["POST", "DELETE", "PUT"] {
                let r = try server.http.send(method: method, target: "/v1/places?lat=1&lon=2&radius=3")
                #expect(r.status == 405, "\(method)")
                #expect(r.headers["allow"] == "GET")
            }
            // A request that is not HTTP at all gets no answer worth reading, and the server lives on.
            _ = try? server.http.raw(Array("\u{1}\u{2} garbage\r\n\r\n".utf8))
            #expect(try server.http.get("/healthz").status == 200)
        }
    }
}
