import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

/// `nearby tiles` run as a subprocess: a folder of z/x/y.mvt files and an MBTiles file, read back with
/// SQLite (Python's sqlite3) and PyPI's mapbox-vector-tile.
@Suite struct TilesCommandTests {
    /// 300 places on a grid around Seoul City Hall (categories 12 and 39), imported into a fresh cache.
    static func cache(_ folder: TempFolder) throws -> (
        db: String, places: [(id: String, lat: Double, lon: Double, category: Int)]
    ) {
        var tsv = "id\tlat\tlon\tcategory\ttitle\tcreated\tmodified\tareacode\tsigungucode\n"
        var places: [(id: String, lat: Double, lon: Double, category: Int)] = []
        for i in 1...300 {
            let lat = 37.55 + Double(i % 20) * 0.002
            let lon = 126.96 + Double(i / 20) * 0.002
            let category = i % 3 == 0 ? 39 : 12
            places.append((String(i), lat, lon, category))
            tsv += "\(i)\t\(lat)\t\(lon)\t\(category)\t장소 \(i)\t20230110120000\t20240510120000\t1\t1\n"
        }
        let db = folder.file("places.sqlite")
        let r = try CLIRunner.run(["import", "--db", db, folder.write("places.tsv", tsv)])
        try #require(r.status == 0, "\(r.stderr)")
        return (db, places)
    }

    @Test func aFolderAndAnMBTilesFileOfTheSameTiles() throws {
        let folder = try TempFolder()
        let (db, places) = try Self.cache(folder)
        let dir = folder.file("tiles")
        let mbtiles = folder.file("places.mbtiles")
        // A box around the places keeps the regions to the 시군구 of Seoul (each is dissolved on first use).
        let flags = ["--zoom", "8-12", "--category", "39", "--bbox", "126.9,37.5,127.05,37.65"]
        let a = try CLIRunner.run(["tiles", "--db", db, "--out", dir] + flags)
        #expect(a.status == 0, "\(a.stderr)")
        let b = try CLIRunner.run(["tiles", "--db", db, "--out", mbtiles] + flags)
        #expect(b.status == 0, "\(b.stderr)")
        #expect(a.stdout.isEmpty && a.stderr.contains("tiles ("))

        // The folder: the tiles the box touches. Up to the clusters' max zoom (16) a tile holds the clusters
        // and lone places of its box, so each zoom's counts add up to every place, once.
        let files = try FileManager.default.subpathsOfDirectory(atPath: dir).filter { $0.hasSuffix(".mvt") }.sorted()
        let zooms = Set(files.map { String($0.split(separator: "/")[0]) })
        #expect(zooms == Set((8...12).map { String($0) }))
        let decoded = try PythonVectorTiles.decode(files: files.map { dir + "/" + $0 })
        let all = Set(places.filter { $0.category == 39 }.map(\.id))
        var counted: [Int: Int] = [:]
        for file in files {
            let parts = file.dropLast(4).split(separator: "/").map { Int($0)! }
            let tile = TileID(z: parts[0], x: parts[1], y: parts[2])
            let layers = try #require(decoded[dir + "/" + file])
            let features = (layers["places"] as? [String: Any])?["features"] as? [[String: Any]] ?? []
            for feature in features {
                let properties = feature["properties"] as? [String: Any] ?? [:]
                let count = properties["count"] as? Int ?? 0
                counted[tile.z, default: 0] += count
                if properties["cluster"] as? Bool == true {
                    #expect(count > 1 && properties["cluster_id"] is Int, "\(tile): \(properties)")
                } else {
                    #expect(count == 1 && all.contains(properties["id"] as? String ?? ""), "\(tile): \(properties)")
                }
            }
            #expect(layers["regions"] != nil || !features.isEmpty, "\(tile) holds nothing")
        }
        #expect(counted == Dictionary(uniqueKeysWithValues: (8...12).map { ($0, all.count) }))

        // Above the clusters' max zoom every tile's places are the brute force's, and together all of them.
        let fine = folder.file("fine")
        let c = try CLIRunner.run([
            "tiles", "--db", db, "--out", fine, "--no-regions", "--zoom", "17", "--category", "39",
        ])
        #expect(c.status == 0, "\(c.stderr)")
        let fineFiles = try FileManager.default.subpathsOfDirectory(atPath: fine).filter { $0.hasSuffix(".mvt") }
        let fineDecoded = try PythonVectorTiles.decode(files: fineFiles.map { fine + "/" + $0 })
        var seen = Set<String>()
        for file in fineFiles {
            let parts = file.dropLast(4).split(separator: "/").map { Int($0)! }
            let b = TileID(z: parts[0], x: parts[1], y: parts[2]).bounds
            let want = places.filter {
                $0.category == 39 && $0.lon >= b.west && $0.lon <= b.east && $0.lat >= b.south && $0.lat <= b.north
            }
            let layers = try #require(fineDecoded[fine + "/" + file])
            let features = (layers["places"] as? [String: Any])?["features"] as? [[String: Any]] ?? []
            let ids = Set(features.compactMap { ($0["properties"] as? [String: Any])?["id"] as? String })
            #expect(ids == Set(want.map(\.id)), "\(file)")
            seen.formUnion(ids)
        }
        #expect(seen == all)

        // The MBTiles file: metadata, TMS rows, gzipped tiles with the folder's bytes.
        let script = """
            import sqlite3, gzip, json, sys
            db = sqlite3.connect(sys.argv[1])
            meta = dict(db.execute('select name, value from metadata'))
            rows = db.execute('select zoom_level, tile_column, tile_row, tile_data from tiles').fetchall()
            out = {'meta': meta, 'tiles': {}}
            for z, x, row, data in rows:
                y = (1 << z) - 1 - row
                out['tiles']['%d/%d/%d.mvt' % (z, x, y)] = gzip.decompress(data).hex()
            print(json.dumps(out))
            """
        let output = try PythonVectorTiles.run(["-c", script, mbtiles])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let meta = try #require(json["meta"] as? [String: String])
        #expect(meta["format"] == "pbf" && meta["minzoom"] == "8" && meta["maxzoom"] == "12")
        #expect(meta["json"]?.contains("\"vector_layers\"") == true && meta["json"]?.contains("\"regions\"") == true)
        let tiles = try #require(json["tiles"] as? [String: String])
        #expect(Set(tiles.keys) == Set(files))
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + file))
            #expect(tiles[file] == bytes.map { String(format: "%02x", $0) }.joined(), "\(file)")
        }
    }

    @Test func badZoomsAndListParametersAreRefused() throws {
        let folder = try TempFolder()
        let r = try CLIRunner.run(["tiles", "--zoom", "9-3", "--out", folder.file("x")])
        #expect(r.status == 2 && r.stderr.contains("--zoom"))
        let s = try CLIRunner.run([
            "tiles", "--db", folder.file("none.sqlite"), "--sort", "title", "--out", folder.file("x"),
        ])
        #expect(s.status == 2 && s.stderr.contains("--sort"), "\(s.stderr)")
    }
}
