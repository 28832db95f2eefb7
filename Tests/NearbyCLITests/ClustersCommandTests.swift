import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

/// `nearby clusters` run as a subprocess on a cache of generated places.
@Suite struct ClustersCommandTests {
    static let folder = try! TempFolder()
    static let count = 3_000
    /// The generated places as JSON lines, imported once.
    static let places: String = {
        let r = try! CLIRunner.run(["generate", "--count", String(count), "--format", "jsonl"])
        precondition(r.status == 0, r.stderr)
        return r.output
    }()
    static let db: String = {
        let db = folder.file("cache.sqlite")
        let r = try! CLIRunner.run(["import", "--db", db, folder.write("places.jsonl", places)])
        precondition(r.status == 0, r.stderr)
        return db
    }()

    func clusters(_ arguments: [String]) throws -> CLIResult {
        try CLIRunner.run(["clusters", "--db", Self.db] + arguments)
    }

    func objects(_ r: CLIResult) throws -> [[String: Any]] {
        try r.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    /// The places' (id, category, lon, lat), in id order (ids are 1…count).
    static let rows: [(id: Int, category: Int, lon: Double, lat: Double)] = places.split(separator: "\n").map {
        let o = try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        return (Int(o["id"] as! String)!, o["category"] as! Int, o["lon"] as! Double, o["lat"] as! Double)
    }.sorted { $0.id < $1.id }

    @Test func everyZoomIsTheIndexOverThePlacesInIdOrder() throws {
        let index = ClusterIndex(lons: Self.rows.map(\.lon), lats: Self.rows.map(\.lat))
        for zoom in [3, 9, 17] {
            let r = try clusters(["--zoom", String(zoom), "--format", "jsonl"])
            #expect(r.status == 0, "\(r.stderr)")
            let lines = try objects(r)
            let counts = lines.map { ($0["point_count"] as? Int) ?? 1 }
            #expect(counts.sorted() == index.level(zoom: zoom).map(\.count).sorted())
            #expect(counts.reduce(0, +) == Self.count)
            let ids = Set(lines.compactMap { $0["cluster_id"] as? Int })
            #expect(ids == Set(index.level(zoom: zoom).filter(\.isCluster).map(\.id)))
        }
        let geo = try clusters(["--zoom", "4"])
        #expect(geo.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: geo.stdout) as? [String: Any])
        #expect(document["type"] as? String == "FeatureCollection")
        let features = try #require(document["features"] as? [[String: Any]])
        let cluster = try #require(features.first { ($0["properties"] as? [String: Any])?["cluster"] as? Bool == true })
        let properties = try #require(cluster["properties"] as? [String: Any])
        #expect(cluster["id"] as? Int == properties["cluster_id"] as? Int)
        #expect(properties["point_count_abbreviated"] != nil)
        #expect(properties["expansion_zoom"] as? Int ?? 0 > 4)
    }

    @Test func childrenAndLeavesTakeTheSameFilters() throws {
        let filter = ["--category", "39"]
        let food = Set(Self.rows.filter { $0.category == 39 }.map(\.id))
        let top = try objects(try clusters(["--zoom", "5", "--format", "jsonl"] + filter))
        #expect(top.reduce(0) { $0 + (($1["point_count"] as? Int) ?? 1) } == food.count)
        let cluster = try #require(top.first { $0["cluster"] as? Bool == true })
        let id = String(cluster["cluster_id"] as! Int)
        let count = cluster["point_count"] as! Int
        let leaves = try objects(try clusters(["--leaves", id, "--limit", "0", "--format", "jsonl"] + filter))
        #expect(leaves.count == count)
        #expect(leaves.allSatisfy { $0["category"] as? Int == 39 && food.contains(Int($0["id"] as! String)!) })
        let page = try objects(
            try clusters(["--leaves", id, "--limit", "3", "--offset", "2", "--format", "jsonl"] + filter))
        #expect(page.map { $0["id"] as! String } == leaves.dropFirst(2).prefix(3).map { $0["id"] as! String })
        let children = try objects(try clusters(["--children", id, "--format", "jsonl"] + filter))
        #expect(children.reduce(0) { $0 + (($1["point_count"] as? Int) ?? 1) } == count)
        // Ten leaves by default; a viewport narrows what is written, not the clusters.
        #expect(try clusters(["--leaves", id, "--format", "jsonl"] + filter).lines.count == min(10, count))
        let seoul = try objects(
            try clusters(["--zoom", "5", "--bbox", "126.5,37,127.5,38", "--format", "jsonl"] + filter))
        func key(_ o: [String: Any]) -> String {
            (o["cluster_id"] as? Int).map { "c\($0)" } ?? "p\(o["id"] as! String)"
        }
        #expect(!seoul.isEmpty && seoul.count < top.count)
        #expect(Set(seoul.map(key)).isSubset(of: top.map(key)))
    }

    @Test func everyEngineGivesTheSameClusters() throws {
        for arguments in [
            ["--zoom", "9", "--category", "12"],
            ["--zoom", "11", "--lat", "37.5", "--lon", "127", "--radius", "30000"],
        ] {
            let snapshot = try clusters(arguments)
            #expect(snapshot.status == 0 && !snapshot.stdout.isEmpty, "\(snapshot.stderr)")
            for engine in ["memory", "sqlite"] {
                let other = try clusters(arguments + ["--engine", engine])
                #expect(other.status == 0, "\(engine): \(other.stderr)")
                #expect(other.stdout == snapshot.stdout, "\(engine) \(arguments)")
            }
        }
    }

    @Test func theHierarchyIsKeptBesideTheCacheAndRebuiltWhenItNoLongerHolds() throws {
        let folder = try TempFolder()
        let db = folder.file("kept.sqlite")
        let places = Self.places.split(separator: "\n")
        let r0 = try CLIRunner.run(
            ["import", "--db", db, folder.write("a.jsonl", places.prefix(2_000).joined(separator: "\n") + "\n")])
        #expect(r0.status == 0, "\(r0.stderr)")
        let kept = db + ".nearby-clusters"
        func run(_ arguments: [String]) throws -> CLIResult {
            let r = try CLIRunner.run(["clusters", "--db", db, "--format", "jsonl"] + arguments)
            #expect(r.status == 0, "\(arguments): \(r.stderr)")
            return r
        }
        let first = try run(["--zoom", "9"])
        #expect(FileManager.default.fileExists(atPath: kept))
        #expect(first.stderr.isEmpty)
        // Read back: the same answers at each zoom, for children and leaves too.
        let top = try objects(first)
        let id = String(try #require(top.first { $0["cluster"] as? Bool == true })["cluster_id"] as! Int)
        let answers = try [["--zoom", "3"], ["--zoom", "17"], ["--children", id], ["--leaves", id, "--limit", "0"]].map
        {
            try run($0).stdout
        }
        #expect(try run(["--zoom", "9"]).stdout == first.stdout)
        // A damaged level is found when it is read: said so, answered from a build, the file replaced.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: kept))
        let good = bytes
        bytes[bytes.count / 2] ^= 1
        try bytes.write(to: URL(fileURLWithPath: kept))
        let again = try run(["--zoom", "9"])
        #expect(again.stdout == first.stdout)
        let leaves = try run(["--leaves", id, "--limit", "0"])
        #expect(leaves.stdout == answers[3])
        #expect((again.stderr + leaves.stderr).contains("damaged"), "\(again.stderr) \(leaves.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: kept)) == good)
        // A damaged header is refused at once.
        bytes = good
        bytes[20] ^= 1
        try bytes.write(to: URL(fileURLWithPath: kept))
        let refused = try run(["--zoom", "9"])
        #expect(refused.stdout == first.stdout)
        #expect(refused.stderr.contains("damaged"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: kept)) == good)
        try FileManager.default.removeItem(atPath: kept)
        #expect(
            try [["--zoom", "3"], ["--zoom", "17"], ["--children", id], ["--leaves", id, "--limit", "0"]].map {
                try run($0).stdout
            } == answers)
        // One content type is kept in its own file; other options are not kept.
        _ = try run(["--zoom", "5", "--category", "39"])
        #expect(FileManager.default.fileExists(atPath: db + ".nearby-clusters-39"))
        _ = try run(["--zoom", "5", "--radius-px", "30"])
        _ = try run(["--zoom", "5", "--category", "39", "--keyword", "a"])
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("clusters") }
        #expect(Set(names) == ["kept.sqlite.nearby-clusters", "kept.sqlite.nearby-clusters-39"])
        // Another generation: the file no longer holds, and the answer is the new places' hierarchy.
        let r1 = try CLIRunner.run(
            ["import", "--db", db, folder.write("b.jsonl", places.dropFirst(2_000).joined(separator: "\n") + "\n")])
        #expect(r1.status == 0, "\(r1.stderr)")
        let index = ClusterIndex(lons: Self.rows.map(\.lon), lats: Self.rows.map(\.lat))
        let now = try run(["--zoom", "9"])
        #expect(now.stderr.contains("another cache state"), "\(now.stderr)")
        let ids = Set(try objects(now).compactMap { $0["cluster_id"] as? Int })
        #expect(ids == Set(index.level(zoom: 9).filter(\.isCluster).map(\.id)))
        #expect(try Data(contentsOf: URL(fileURLWithPath: kept)) != good)
        #expect(try run(["--zoom", "9"]).stdout == now.stdout)
    }

    @Test func badRequestsNameTheirFlag() throws {
        let cases: [([String], Int32, String)] = [
            (["--zoom", "3", "--sort", "title"], 2, "--sort"),
            (["--zoom", "3", "--bbox", "1,2,3"], 2, "--bbox"),
            (["--zoom", "x"], 2, "--zoom"),
            (["--zoom", "3", "--radius-px", "0"], 2, "--radius-px"),
            (["--zoom", "3", "--max-zoom", "40"], 2, "--max-zoom"),
            (["--category", "39"], 2, "--zoom"),
            (["--zoom", "3", "--limit", "4"], 2, "--limit"),
            (["--children", "7"], 1, "no cluster has the id 7"),
            (["--leaves", "999999999"], 1, "no cluster has the id"),
        ]
        for (arguments, status, mention) in cases {
            let r = try clusters(arguments)
            #expect(r.status == status, "\(arguments)")
            #expect(r.stderr.contains(mention), "\(arguments): \(r.stderr)")
            #expect(r.output.isEmpty)
        }
    }
}
