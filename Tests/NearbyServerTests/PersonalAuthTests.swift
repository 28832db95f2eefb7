import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

extension RealServer {
    /// `Authorization: Bearer TOKEN` names the user of a personal query on the real server: the user's
    /// own data answers, every refusal is the same 401, a revoked token stops working, and a write is
    /// seen by the next request without a reload.
    @Suite struct PersonalAuthTests {
        @Test func aTokenNamesTheUserAndNothingElseDoes() throws {
            let folder = try TempFolder()
            let path = folder.file("places.sqlite")
            _ = try Importer().importPlaces(Fixture.places(300), into: PlaceCache(path: path))
            let cache = try PlaceCache(path: path)
            let ana = try UserTokens.addUser("ana", store: cache, now: 1)
            let bo = try UserTokens.addUser("bo", store: cache, now: 1)
            let layer = PersonalLayer(store: cache)
            try layer.addBookmarks(user: "ana", places: ["5", "7"], list: nil)
            try layer.rate(user: "ana", place: "7", stars: 4.5)
            try layer.addBookmarks(user: "bo", places: ["9"], list: nil)
            let server = try RunningServer(path: path)
            defer { server.stop() }
            func get(_ target: String, _ token: String?) throws -> LoopbackHTTP.Response {
                try server.http.get(target, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
            }
            func ids(_ r: LoopbackHTTP.Response) -> [String] {
                (r.json["places"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            }
            let a = try get("/v1/places?bookmarked=true&sort=-rating", ana)
            #expect(a.status == 200 && ids(a) == ["7", "5"], "\(a.text)")
            #expect(a.text.contains("\"rating\":4.5"))
            #expect(ids(try get("/v1/places?bookmarked=true", bo)) == ["9"])
            // One refusal for every wrong credential, naming no user and echoing no token.
            var bodies = Set<String>()
            for header in [
                [:], ["Authorization": "Bearer nby_wrong"], ["Authorization": "Basic \(ana)"],
                ["Authorization": "Bearer " + ana + "x"],
            ] {
                let r = try server.http.get("/v1/places?bookmarked=true", headers: header)
                #expect(r.status == 401)
                #expect(!r.text.contains(ana) && !r.text.contains("ana"))
                bodies.insert(r.text)
            }
            #expect(bodies.count == 1, "\(bodies)")
            // Public requests need no token and ignore a wrong one.
            #expect(try get("/v1/places?limit=1", "nby_wrong").status == 200)
            // A write is seen by the next request; a revoked token stops working.
            try layer.addBookmarks(user: "ana", places: ["11"], list: nil)
            #expect(Set(ids(try get("/v1/places?bookmarked=true", ana))) == ["5", "7", "11"])
            _ = try cache.revokeUser(name: "ana", at: 2)
            #expect(try get("/v1/places?bookmarked=true", ana).status == 401)
            #expect(try get("/v1/places?bookmarked=true", bo).status == 200)
        }

        /// Clusters take the personal conditions as `/v1/places` does (the token names the user); tiles,
        /// public and kept per generation, refuse them naming the parameter.
        @Test func clustersArePersonalWithATokenAndTilesRefuse() throws {
            let folder = try TempFolder()
            let path = folder.file("places.sqlite")
            _ = try Importer().importPlaces(Fixture.places(300), into: PlaceCache(path: path))
            let cache = try PlaceCache(path: path)
            let ana = try UserTokens.addUser("ana", store: cache, now: 1)
            try PersonalLayer(store: cache).addBookmarks(user: "ana", places: ["5", "7", "9"], list: nil)
            let server = try RunningServer(path: path)
            defer { server.stop() }
            let target = "/v1/clusters?zoom=0&bookmarked=true&format=jsonl"
            #expect(try server.http.get(target).status == 401)
            #expect(
                try server.http.get(target + "&user=ana", headers: ["Authorization": "Bearer \(ana)"]).status == 400)
            let r = try server.http.get(target, headers: ["Authorization": "Bearer \(ana)"])
            #expect(r.status == 200, "\(r.text)")
            let counts = r.text.split(separator: "\n").map { line -> Int in
                let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return o?["point_count"] as? Int ?? 1
            }
            #expect(counts.reduce(0, +) == 3, "\(r.text)")
            let tile = try server.http.get("/tiles/14/0/8000.mvt?min-rating=4")
            #expect(tile.status == 400 && tile.text.contains("min-rating"), "\(tile.text)")
        }
    }
}
