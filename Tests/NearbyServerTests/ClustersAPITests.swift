import Foundation
import NearbyKit
import NearbyServer
import NearbyTestSupport
import Testing

extension RealServer {
    /// `/v1/clusters…` on the real server over the fixture cache, against the index built here.
    @Suite final class ClustersAPITests: ServedSuite {
        let served: ServedFixture
        init() throws { served = try ServedFixture() }

        func lines(_ target: String) throws -> [[String: Any]] {
            let r = try server.http.get(target)
            #expect(r.status == 200, "\(target): \(r.text)")
            #expect(r.headers["content-type"]?.hasPrefix("application/x-ndjson") == true)
            return try r.text.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
        }

        func index(of places: [Place]) -> ClusterIndex {
            let sorted = places.sorted { Int($0.id)! < Int($1.id)! }
            return ClusterIndex(lons: sorted.map(\.lon), lats: sorted.map(\.lat))
        }

        @Test func clustersChildrenAndLeavesAreTheIndex_s() throws {
            let all = index(of: places)
            for zoom in [10, 13, 17] {
                for _ in 0..<2 {  // built once, then kept: the same answer
                    let found = try lines("/v1/clusters?zoom=\(zoom)&format=jsonl")
                    #expect(
                        found.map { ($0["point_count"] as? Int) ?? 1 }.sorted()
                            == all.level(zoom: zoom).map(\.count).sorted())
                    #expect(
                        Set(found.compactMap { $0["cluster_id"] as? Int })
                            == Set(all.level(zoom: zoom).filter(\.isCluster).map(\.id)))
                }
            }
            let geo = try server.http.get("/v1/clusters?zoom=11&bbox=126.9,37.5,127.0,37.55")
            #expect(geo.status == 200)
            #expect(geo.headers["content-type"]?.hasPrefix("application/geo+json") == true)
            #expect(geo.headers["x-cache-generation"] != nil)
            #expect(geo.json["type"] as? String == "FeatureCollection")
            let features = try #require(geo.json["features"] as? [[String: Any]])
            let inBox = all.clusters(minLon: 126.9, minLat: 37.5, maxLon: 127.0, maxLat: 37.55, zoom: 11)
            #expect(features.count == inBox.count && !inBox.isEmpty)

            // A kept filter (one content type) and one built for the request (two), with children and leaves.
            for category in ["39", "12,39"] {
                let kept = Set(category.split(separator: ",").map { Int($0)! })
                let matches = places.filter { kept.contains($0.category) }.sorted { Int($0.id)! < Int($1.id)! }
                let expected = index(of: matches)
                let top = try lines("/v1/clusters?zoom=12&category=\(category)&format=jsonl")
                #expect(
                    top.map { ($0["point_count"] as? Int) ?? 1 }.sorted()
                        == expected.level(zoom: 12).map(\.count).sorted())
                let cluster = try #require(top.first { $0["cluster"] as? Bool == true })
                let id = cluster["cluster_id"] as! Int
                let count = cluster["point_count"] as! Int
                let children = try lines("/v1/clusters/\(id)/children?category=\(category)&format=jsonl")
                #expect(children.reduce(0) { $0 + (($1["point_count"] as? Int) ?? 1) } == count)
                let leaves = try lines("/v1/clusters/\(id)/leaves?category=\(category)&limit=0&format=jsonl")
                #expect(leaves.count == count)
                #expect(leaves.allSatisfy { kept.contains($0["category"] as! Int) })
                #expect(
                    Set(leaves.map { $0["id"] as! String })
                        == Set(try expected.leaves(of: id, limit: 0).map { matches[$0.id].id }))
                let page = try lines("/v1/clusters/\(id)/leaves?category=\(category)&limit=2&offset=1&format=jsonl")
                #expect(page.map { $0["id"] as! String } == leaves.dropFirst().prefix(2).map { $0["id"] as! String })
            }
        }

        @Test func badParametersAreA400NamingThem() throws {
            let cases: [(String, Int, String)] = [
                ("/v1/clusters", 400, "zoom"),
                ("/v1/clusters?zoom=x", 400, "zoom"),
                ("/v1/clusters?zoom=99", 400, "zoom"),
                ("/v1/clusters?zoom=3&bbox=1,2", 400, "bbox"),
                ("/v1/clusters?zoom=3&sort=title", 400, "sort"),
                ("/v1/clusters?zoom=3&radius-px=-1", 400, "radius-px"),
                ("/v1/clusters?zoom=3&min-points=0", 400, "min-points"),
                ("/v1/clusters?zoom=3&format=xml", 400, "format"),
                ("/v1/clusters?zoom=3&category=x", 400, "category"),
                ("/v1/clusters/abc/children", 400, "id"),
                ("/v1/clusters/12/children", 404, "id"),
                ("/v1/clusters/99999999/leaves?limit=-1", 400, "limit"),
                ("/v1/clusters/99999999/leaves", 404, "id"),
            ]
            for (target, status, parameter) in cases {
                let r = try server.http.get(target)
                #expect(r.status == status, "\(target): \(r.text)")
                #expect(r.json["parameter"] as? String == parameter, "\(target): \(r.text)")
            }
        }
    }
}
