import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyServer

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
