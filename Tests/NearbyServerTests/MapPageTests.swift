import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyServer

extension RealServer {
    /// The map page at `/`: its files from the real server, and the page itself in Debian's headless
    /// Chromium (`scripts/browser_check.py`), which fails, never skips, when the browser cannot start.
    @Suite struct MapPageTests {
        @Test func thePageAndItsFilesAreServed() throws {
            let folder = try TempFolder()
            let server = try RunningServer(path: try Fixture.cache(in: folder, count: 100))
            defer { server.stop() }
            let page = try server.http.get("/")
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(page.text.contains("<script src=\"/map/map.js\">") && page.text.contains("이 지역에서 검색"))
            let script = try server.http.get("/map/map.js")
            #expect(script.status == 200 && script.headers["content-type"] == "text/javascript; charset=utf-8")
            #expect(script.text.contains("/v1/clusters"))
            #expect(try server.http.get("/map/map.css").headers["content-type"] == "text/css; charset=utf-8")
            let leaflet = try server.http.get("/map/leaflet/leaflet.js")
            #expect(leaflet.status == 200)
            // Debian's copy when installed (scripts/install-deps.sh installs it).
            #expect(leaflet.text.contains("Leaflet"), "\(leaflet.text.prefix(200))")
            for missing in ["/map/other.js", "/map/leaflet/leaflet.min.js.map", "/map/leaflet/..%2Fleaflet.js"] {
                let r = try server.http.get(missing)
                #expect(r.status == 404, "\(missing)")
                #expect(r.json["status"] as? Int == 404)
            }
            #expect(try server.http.get("/map/map.js", headers: [:]).headers["cache-control"] == "no-cache")
        }

        /// Without libjs-leaflet the script is a stub naming the package, so the page can say what to install.
        @Test func withoutLeafletTheScriptSaysWhatToInstall() throws {
            let page = MapPage(leafletFolder: "/nonexistent/leaflet")
            let script = try page.leaflet("leaflet.js")
            #expect(script.status == .ok)
            #expect(String(decoding: MapPage.missingLeaflet, as: UTF8.self).contains("apt-get install libjs-leaflet"))
            #expect(String(decoding: PackageResources.map_js, as: UTF8.self).contains("libjs-leaflet"))
            #expect(throws: APIError.self) { try page.leaflet("../leaflet.js") }
        }

        /// The whole page in a browser: markers equal `/v1/clusters` at two zooms, a cluster's click
        /// zooms to its expansion zoom, a card's marker lights up only after the debounce, "search this
        /// area" re-queries, 초성 keywords, a user's bookmarks by token, no console error.
        @Test func thePageWorksInABrowser() throws {
            let folder = try TempFolder()
            let path = folder.file("places.sqlite")
            _ = try Importer().importPlaces(Fixture.places(Self.places), into: PlaceCache(path: path))
            let cache = try PlaceCache(path: path)
            let token = try UserTokens.addUser("ana", store: cache, now: 1)
            let bookmarks = ["1", "2", "85", "4000"]
            try PersonalLayer(store: cache).addBookmarks(user: "ana", places: bookmarks, list: nil)
            let server = try RunningServer(path: path)
            defer { server.stop() }
            let screenshot = folder.file("map.png")
            let started = ContinuousClock.now
            let output = try PythonVectorTiles.run([
                Self.script, "http://127.0.0.1:\(server.port)/", "--screenshot", screenshot, "--token", token,
                "--bookmarks", bookmarks.joined(separator: ","),
            ])
            let figures =
                (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any] ?? [:]
            #expect(figures["movedRequery"] as? Bool == true, "\(output)")
            let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
            #expect(png.count > 10_000 && png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            print("map page in Chromium: \(output.trimmingCharacters(in: .newlines)); \(ContinuousClock.now - started)")
        }

        /// Places in the browser test's cache (the fixture's grid over central Seoul).
        static let places = 6_000

        static let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/browser_check.py").path
    }
}
