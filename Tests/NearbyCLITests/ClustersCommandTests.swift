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
