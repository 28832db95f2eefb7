import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyServer

extension RealServer {
    /// `/openapi.json` is true: it documents every path the server answers and no other, every
    /// documented path answers, and `/v1/places` documents exactly the parameters the parser takes.
    @Suite struct OpenAPITests {
        @Test func testTheDocumentMatchesTheServer() throws {
            let folder = try TempFolder()
            let server = try RunningServer(path: try Fixture.cache(in: folder, count: 100))
            defer { server.stop() }
            let r = try server.http.get("/openapi.json")
            #expect(r.status == 200)
            #expect(r.json["openapi"] as? String == "3.1.0")
            let paths = try #require(r.json["paths"] as? [String: [String: Any]])
            #expect(Set(paths.keys) == Set(NearbyHTTPServer.paths))

            for (path, item) in paths {
                #expect(Array(item.keys) == ["get"], "\(path)")
                let parameters = (item["get"] as? [String: Any])?["parameters"] as? [[String: Any]] ?? []
                // Required parameters get plausible values; the documented path must answer 200.
                var target = path.replacingOccurrences(of: "{id}", with: "1")
                let values = [
                    "lat1": "37.5", "lon1": "127", "lat2": "35.1", "lon2": "129", "mapX": "126.978", "mapY": "37.5665",
                    "radius": "1000", "keyword": "%EC%9E%A5", "eventStartDate": "20250101", "contentId": "1",
                ]
                var query: [String] = []
                for p in parameters where p["in"] as? String == "query" {
                    let name = p["name"] as? String ?? ""
                    let required = p["required"] as? Bool ?? false
                    let tourRequired =
                        path.hasSuffix("locationBasedList2") && ["mapX", "mapY", "radius"].contains(name)
                        || path.hasSuffix("searchKeyword2") && name == "keyword"
                        || path.hasSuffix("searchFestival2") && name == "eventStartDate"
                        || path.hasSuffix("detailCommon2") && name == "contentId"
                    if required || tourRequired { query.append("\(name)=\(values[name] ?? "1")") }
                }
                if !query.isEmpty { target += "?" + query.joined(separator: "&") }
                let answer = try server.http.get(target)
                #expect(answer.status == 200, "\(target): \(answer.text.prefix(300))")
            }

            // /v1/places: the documented parameters are the parser's, each one known to the server.
            let get = try #require(paths["/v1/places"]?["get"] as? [String: Any])
            let names = Set((get["parameters"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
            #expect(names == Set(QueryParameters.all.map(\.name) + ["format", "fields"]))
            for name in names {
                let answer = try server.http.get("/v1/places?\(name)=1")
                #expect(!answer.text.contains("unknown parameter"), "\(name): \(answer.text)")
            }
        }
    }
}
