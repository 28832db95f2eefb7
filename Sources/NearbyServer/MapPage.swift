import Foundation
import HTTPTypes
import Hummingbird

/// The map page: `/` and its assets under `/map/…` (docs/map.md). Our HTML, JavaScript and CSS are in
/// `MapPage/`, embedded in the binary by SwiftPM (`PackageResources`), so the page needs no file
/// beside the executable. Leaflet is Debian's `libjs-leaflet`, read from its installed folder when asked
/// for; without it `/map/leaflet/leaflet.js` is a stub and the page says what to install.
struct MapPage: Sendable {
    /// The paths the page answers (`NearbyHTTPServer.paths`).
    static let paths = documented.map(\.path)

    /// The paths with their summaries and media types (`/openapi.json`).
    static let documented = [
        (
            path: "/",
            summary: "The map page (docs/map.md): regions, clusters, category counts, places near the centre.",
            type: "text/html"
        ),
        (path: "/map/{file}", summary: "The map page's script and style: map.js, map.css.", type: "text/javascript"),
        (
            path: "/map/leaflet/{file}",
            summary: "Leaflet (leaflet.js, leaflet.css) from Debian's libjs-leaflet; a stub script when it is missing.",
            type: "text/javascript"
        ),
    ]

    /// Where `libjs-leaflet` installs Leaflet.
    static let defaultLeafletFolder = "/usr/share/javascript/leaflet"

    /// The folder Leaflet's files are read from (tests may point it elsewhere).
    let leafletFolder: String

    init(leafletFolder: String = MapPage.defaultLeafletFolder) { self.leafletFolder = leafletFolder }

    /// Our own assets by file name.
    static let assets: [String: (type: String, bytes: [UInt8])] = [
        "map.js": ("text/javascript; charset=utf-8", PackageResources.map_js),
        "map.css": ("text/css; charset=utf-8", PackageResources.map_css),
    ]

    /// Leaflet's files that the page loads, with their types.
    static let leafletFiles = [
        "leaflet.js": "text/javascript; charset=utf-8", "leaflet.css": "text/css; charset=utf-8",
    ]

    /// What `/map/leaflet/leaflet.js` is when Leaflet is not installed: the page sees `L` undefined and
    /// says so.
    static let missingLeaflet = Array(
        "/* Leaflet is not installed on the server: apt-get install libjs-leaflet */\n".utf8)

    func add<Context: RequestContext>(to router: Router<Context>) {
        router.get("/") { _, _ in Self.response(PackageResources.index_html, type: "text/html; charset=utf-8") }
        router.get("/map/leaflet/:file") { _, context in
            try self.leaflet(context.parameters.get("file") ?? "")
        }
        router.get("/map/:file") { _, context in
            let name = context.parameters.get("file") ?? ""
            guard let asset = Self.assets[name] else {
                throw APIError(.notFound, "no such file: /map/\(name.prefix(100))")
            }
            return Self.response(asset.bytes, type: asset.type)
        }
    }

    /// A file of Leaflet's from `leafletFolder`; `leaflet.js` and `leaflet.css` are answered (empty, and
    /// the script as a stub) when the folder has none, so the page can say what is missing.
    func leaflet(_ name: String) throws -> Response {
        guard let type = Self.leafletFiles[name] else {
            throw APIError(.notFound, "no such file: /map/leaflet/\(name.prefix(100))")
        }
        let path = leafletFolder + "/" + name
        guard let data = FileManager.default.contents(atPath: path) else {
            return Self.response(name == "leaflet.js" ? Self.missingLeaflet : [], type: type)
        }
        return Self.response([UInt8](data), type: type, cacheControl: "public, max-age=3600")
    }

    /// Our files change with the binary, so a browser asks again each time (they are small).
    static func response(_ bytes: [UInt8], type: String, cacheControl: String = "no-cache") -> Response {
        var headers: HTTPFields = [.contentType: type]
        headers[.cacheControl] = cacheControl
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
