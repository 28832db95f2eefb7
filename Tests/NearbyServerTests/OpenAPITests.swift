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

            // A cluster's paths take the id of a cluster (of every place, at zoom 0).
            let top = try server.http.get("/v1/clusters?zoom=0&format=jsonl").text.split(separator: "\n").first ?? ""
            let clusterID = (try? JSONSerialization.jsonObject(with: Data(top.utf8)) as? [String: Any])?["cluster_id"]
            for (path, item) in paths {
                // `/v1/me/…`: the documented methods are the served ones, each needing the token (MeAPITests).
                if path.hasPrefix("/v1/me/") {
                    #expect(
                        Set(item.keys) == Set(NearbyHTTPServer.methods(path).map { $0.rawValue.lowercased() }),
                        "\(path)")
                    for method in item.keys {
                        let answer = try server.http.send(
                            method: method.uppercased(), target: path.replacingOccurrences(of: "{id}", with: "1"))
                        #expect(answer.status == 401, "\(method) \(path): \(answer.text.prefix(300))")
                    }
                    continue
                }
                #expect(Array(item.keys) == ["get"], "\(path)")
                let parameters = (item["get"] as? [String: Any])?["parameters"] as? [[String: Any]] ?? []
                // Required parameters get plausible values; the documented path must answer 200.
                var target = path.replacingOccurrences(
                    of: "{id}", with: path.hasPrefix("/v1/clusters/") ? "\(clusterID as? Int ?? -1)" : "1")
                // A tile of the open Pacific: no region to draw, so the first tile dissolves no boundary.
                let file = path.hasPrefix("/map/leaflet/") ? "leaflet.js" : "map.js"
                for (name, value) in [("{z}", "14"), ("{x}", "0"), ("{y}", "8000"), ("{file}", file)] {
                    target = target.replacingOccurrences(of: name, with: value)
                }
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
                // A language service's code list is documented with a 501 too: what this cache, which
                // synced none, answers unless a table of the list ships.
                let responses = (item["get"] as? [String: Any])?["responses"] as? [String: Any] ?? [:]
                let operation = TourAPI.served.first { $0.path == path }
                let unsynced = operation.map { $0.codesAreSynced && TourAPI.shipped($0.codeList!, $0.language) == nil }
                let status = unsynced == true ? 501 : 200
                #expect(responses[String(status)] != nil, "\(path)")
                #expect(answer.status == status, "\(target): \(answer.text.prefix(300))")
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

extension RealServer {
    /// Every `OutputFormat` through the server: asked by `format=` (each of its names) and by `Accept`,
    /// answered with its media type and the same places, and documented in `/openapi.json`. The CLI's
    /// side is `QueryCommandTests.everyFormatWritesThePlaces`.
    @Suite struct OutputFormatLayerTests {
        @Test func everyFormatIsServedAndDocumented() throws {
            let folder = try TempFolder()
            let server = try RunningServer(path: try Fixture.cache(in: folder, count: 200))
            defer { server.stop() }
            let query = "/v1/places?lat=37.501&lon=126.95&radius=3000&limit=3"
            let ids = (try server.http.get(query).json["places"] as? [[String: Any]] ?? []).compactMap {
                $0["id"] as? String
            }
            #expect(ids.count == 3)

            for format in OutputFormat.allCases {
                for name in format.names {
                    let r = try server.http.get(query + "&format=" + name)
                    #expect(r.status == 200, "format=\(name): \(r.text.prefix(200))")
                    #expect(r.headers["content-type"] == format.mediaType, "format=\(name)")
                    let tokens = Set(r.text.split { !$0.isLetter && !$0.isNumber }.map(String.init))
                    for id in ids {
                        #expect(tokens.contains(id), "format=\(name) lacks place \(id): \(r.text.prefix(300))")
                    }
                }
                let accepted = try server.http.get(query, headers: ["Accept": format.bareMediaType])
                #expect(accepted.headers["content-type"] == format.mediaType, "Accept: \(format.bareMediaType)")
            }
            let refused = try server.http.get(query + "&format=xml")
            #expect(refused.status == 400)
            for name in OutputFormat.allCases.flatMap(\.names) {
                #expect(refused.text.contains(name), "the error lists \(name)")
            }

            let document = try server.http.get("/openapi.json").json
            let get = (document["paths"] as? [String: Any])?["/v1/places"] as? [String: Any]
            let operation = get?["get"] as? [String: Any]
            let ok = (operation?["responses"] as? [String: Any])?["200"] as? [String: Any]
            let content = Set((ok?["content"] as? [String: Any] ?? [:]).keys)
            #expect(content == Set(OutputFormat.allCases.map(\.bareMediaType)))
            let parameter = (operation?["parameters"] as? [[String: Any]] ?? []).first {
                $0["name"] as? String == "format"
            }
            let description = parameter?["description"] as? String ?? ""
            for format in OutputFormat.allCases {
                #expect(description.contains(format.rawValue), "format's description lacks \(format)")
            }
        }
    }
}
