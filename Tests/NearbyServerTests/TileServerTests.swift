import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyServer

extension RealServer {
    /// `GET /tiles/{z}/{x}/{y}.mvt` on the real server, decoded by the tests' own decoder and by PyPI's
    /// mapbox-vector-tile: a tile holds exactly the places of its box that pass the filters.
    @Suite struct TileServerTests: ServedSuite {
        let served: ServedFixture

        init() throws { served = try ServedFixture() }

        /// The fixture's places in the tile's box (closed), by the brute force.
        func inBox(_ tile: TileID, _ keep: (Place) -> Bool = { _ in true }) -> [Place] {
            let b = tile.bounds
            return places.filter {
                $0.lon >= b.west && $0.lon <= b.east && $0.lat >= b.south && $0.lat <= b.north && keep($0)
            }
        }

        func tiles(at z: Int) -> [TileID] {
            let r = TileMath.tiles(west: 126.90, south: 37.50, east: 127.06, north: 37.611, z: z)
            return r.x.flatMap { x in r.y.map { TileID(z: z, x: x, y: $0) } }
        }

        /// Above the clusters' max zoom (16), a tile's `places` layer is its places.
        @Test func aTileHoldsExactlyThePlacesOfItsBox() throws {
            let folder = try TempFolder()
            var files: [String] = []
            var expected: [String: [Place]] = [:]
            let fine = Set(places.prefix(8).map { TileMath.tile(lon: $0.lon, lat: $0.lat, z: 17) })
            for tile in fine.sorted(by: { ($0.x, $0.y) < ($1.x, $1.y) }) {
                let r = try server.http.get("/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt?category=39,12")
                #expect(r.status == 200, "\(tile): \(r.text.prefix(200))")
                #expect(r.headers["content-type"] == "application/vnd.mapbox-vector-tile")
                let want = inBox(tile) { [39, 12].contains($0.category) }
                let decoded = try DecodedTile(Array(r.body))
                let layer = decoded.layer("places")
                #expect(
                    Set(layer?.features.compactMap { $0.properties["id"]?.description } ?? []) == Set(want.map(\.id)))
                #expect(layer?.features.count ?? 0 == want.count, "\(tile)")
                let byID = Dictionary(uniqueKeysWithValues: want.map { ($0.id, $0) })
                for f in layer?.features ?? [] {
                    let place = try #require(byID[f.properties["id"]?.description ?? ""])
                    #expect(f.properties["title"] == .string(place.title))
                    #expect(f.properties["category"] == .uint(UInt64(place.category)))
                    #expect(f.properties["count"] == .uint(1))
                    #expect(f.id == UInt64(place.id) && f.type == 1)
                    let p = f.parts[0][0]
                    #expect(p.x >= 0 && p.x <= 4096 && p.y >= 0 && p.y <= 4096, "\(p)")
                    let exact = TileProjection(tile: tile).pixel(lon: place.lon, lat: place.lat)
                    #expect(abs(Double(p.x) - exact.x) <= 0.5 && abs(Double(p.y) - exact.y) <= 0.5)
                }
                #expect(decoded.layer("regions")?.features.isEmpty == false, "\(tile): no regions layer")
                let file = folder.file("\(tile.z)-\(tile.x)-\(tile.y).mvt")
                try Data(r.body).write(to: URL(fileURLWithPath: file))
                files.append(file)
                expected[file] = want
            }
            // The independent decoder reads the same layers, features and properties.
            let python = try PythonVectorTiles.decode(files: files)
            for file in files {
                let layers = try #require(python[file])
                let want = expected[file]!
                let places = layers["places"] as? [String: Any]
                let features = places?["features"] as? [[String: Any]] ?? []
                #expect(features.count == want.count, "\(file)")
                #expect(places.map { $0["extent"] as? Int } == (want.isEmpty ? nil : 4096))
                let ids = Set(features.compactMap { ($0["properties"] as? [String: Any])?["id"] as? String })
                #expect(ids == Set(want.map(\.id)))
                for f in features {
                    let props = f["properties"] as? [String: Any] ?? [:]
                    #expect(props["count"] as? Int == 1 && [39, 12].contains(props["category"] as? Int ?? 0))
                    let xy = f["geometry"] as? [Int] ?? []
                    #expect(
                        f["type"] as? String == "Point" && xy.count == 2 && xy.allSatisfy { (0...4096).contains($0) })
                }
                let regions = (layers["regions"] as? [String: Any])?["features"] as? [[String: Any]] ?? []
                #expect(!regions.isEmpty)
                #expect(
                    regions.allSatisfy {
                        ["Polygon", "MultiPolygon"].contains($0["type"] as? String ?? "")
                            && (($0["properties"] as? [String: Any])?["level"] as? String) == "sigungu"
                    })
            }
        }

        /// Up to the clusters' max zoom a tile's `places` layer is `/v1/clusters` for its box: the same
        /// clusters (id, count, position) and lone places.
        @Test func aTileHoldsTheClustersOfItsBox() throws {
            for tile in tiles(at: 14).prefix(4) + tiles(at: 12) {
                let b = tile.bounds
                let r = try server.http.get("/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt?category=39,12")
                #expect(r.status == 200, "\(tile): \(r.text.prefix(200))")
                let features = try DecodedTile(Array(r.body)).layer("places")?.features ?? []
                let c = try server.http.get(
                    "/v1/clusters?zoom=\(tile.z)&bbox=\(b.west),\(b.south),\(b.east),\(b.north)&category=39,12&format=jsonl"
                )
                let entries = c.text.split(separator: "\n").compactMap {
                    try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                }
                func key(cluster: Bool, id: String, count: UInt64) -> String { "\(cluster) \(id) \(count)" }
                let fromTile = features.map { f in
                    f.properties["cluster"] == .bool(true)
                        ? key(
                            cluster: true, id: f.properties["cluster_id"]?.description ?? "?",
                            count: {
                                if case .uint(let n) = f.properties["count"] { return n } else { return 0 }
                            }())
                        : key(cluster: false, id: f.properties["id"]?.description ?? "?", count: 1)
                }
                let fromClusters = entries.map { e in
                    e["cluster"] as? Bool == true
                        ? key(
                            cluster: true, id: "\(e["cluster_id"] as? Int ?? -1)",
                            count: UInt64(e["point_count"] as? Int ?? 0))
                        : key(cluster: false, id: e["id"] as? String ?? "?", count: 1)
                }
                #expect(fromTile.sorted() == fromClusters.sorted(), "\(tile)")
                #expect(features.contains { $0.properties["cluster"] == .bool(true) } || tile.z == 14, "\(tile)")
            }
        }

        /// Zoom 9 (the fixture's 6,000 places in a tile or two; 시군구 around Seoul, each dissolved on
        /// first use: zoom 0 would dissolve the whole country, which a debug build takes seconds for).
        @Test func lowZoomsCountEveryPlaceOnce() throws {
            var total: UInt64 = 0
            var thinned = false
            for tile in tiles(at: 9) {
                let r = try server.http.get("/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt")
                let decoded = try DecodedTile(Array(r.body))
                let features = decoded.layer("places")?.features ?? []
                #expect(features.count <= PlacesLayer.maxFeatures)
                if inBox(tile).count > PlacesLayer.maxFeatures {
                    thinned = true
                    #expect(features.count < inBox(tile).count)
                }
                for f in features {
                    guard case .uint(let n) = f.properties["count"] else { continue }
                    total += n
                }
                #expect(decoded.layer("regions")?.features.isEmpty == false)
            }
            #expect(thinned)
            #expect(total == UInt64(places.count))
        }

        @Test func gzipETagAndNotModified() throws {
            let path = "/tiles/14/13970/6344.mvt?category=39"
            let plain = try server.http.get(path)
            let zipped = try server.http.get(path, headers: ["Accept-Encoding": "gzip, deflate"])
            #expect(zipped.headers["content-encoding"] == "gzip" && plain.headers["content-encoding"] == nil)
            #expect(try Gzip.decompress(Array(zipped.body)) == Array(plain.body))
            #expect(plain.headers["vary"]?.contains("Accept-Encoding") == true)
            #expect(plain.headers["cache-control"] == TilesAPI.cacheControl)
            let etag = try #require(plain.headers["etag"])
            #expect(zipped.headers["etag"] == etag)
            let again = try server.http.get(path, headers: ["If-None-Match": etag])
            #expect(again.status == 304 && again.body.isEmpty && again.headers["etag"] == etag)
            // Another query is another tag; a stale tag gets the tile.
            let other = try server.http.get("/tiles/14/13970/6344.mvt?category=12")
            #expect(other.headers["etag"] != etag)
            #expect(try server.http.get(path, headers: ["If-None-Match": "\"g0-t0-0\""]).status == 200)
        }

        @Test func badTilesAndParametersAreRefusedNamingThem() throws {
            for (path, parameter) in [
                ("/tiles/25/0/0.mvt", "z"), ("/tiles/a/0/0.mvt", "z"), ("/tiles/2/4/0.mvt", "x"),
                ("/tiles/2/0/-1.mvt", "y"), ("/tiles/2/0/4.mvt", "y"), ("/tiles/1/0/0.mvt?sort=title", "sort"),
                ("/tiles/1/0/0.mvt?limit=5", "limit"), ("/tiles/1/0/0.mvt?category=x", "category"),
                ("/tiles/1/0/0.mvt?nope=1", "nope"),
            ] {
                let r = try server.http.get(path)
                #expect(r.status == 400, "\(path)")
                #expect(r.json["parameter"] as? String == parameter, "\(path): \(r.text)")
            }
            #expect(try server.http.get("/tiles/1/0/0.png").status == 404)
            #expect(try server.http.send(method: "POST", target: "/tiles/1/0/0.mvt").status == 405)
        }
    }
}
