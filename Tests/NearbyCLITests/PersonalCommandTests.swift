import Foundation
import NearbyStore
import NearbyTestSupport
import Testing

/// The personal commands as a user runs them, and a restore killed with SIGKILL.
@Suite(.serialized) struct PersonalCommandTests {
    static let places = [
        #"{"id":"1","title":"경복궁","lat":37.5796,"lon":126.977,"category":12}"#,
        #"{"id":"2","title":"광장시장","lat":37.5700,"lon":126.9996,"category":38}"#,
        #"{"id":"3","title":"남산타워","lat":37.5512,"lon":126.9882,"category":12}"#,
    ]

    func cache(_ dir: TempFolder) throws -> String {
        let db = dir.file("c.sqlite")
        let r = try CLIRunner.run(["import", "--db", db, dir.write("p.jsonl", Self.places.joined(separator: "\n"))])
        #expect(r.status == 0, "\(r.stderr)")
        return db
    }

    @Test func theCommandsEndToEnd() throws {
        let dir = try TempFolder()
        let db = try cache(dir)
        func ok(_ args: [String]) throws -> String {
            let r = try CLIRunner.run(args + ["--db", db])
            #expect(r.status == 0, "\(args): \(r.stderr)")
            return r.output
        }
        _ = try ok(["bookmark", "add", "1", "3"])
        _ = try ok(["bookmark", "add", "2", "--list", "food"])
        _ = try ok(["rate", "3", "4.5"])
        _ = try ok(["memo", "2", "빈대떡 맛집"])
        _ = try ok(["visit", "1", "--at", "2026-05-05T14:00:00+09:00"])
        #expect(
            try ok(["query", "--bookmarked", "--fields", "id"]) == "{\"id\":\"1\"}\n{\"id\":\"2\"}\n{\"id\":\"3\"}\n")
        #expect(try ok(["query", "--bookmarked-in", "food", "--fields", "id"]) == "{\"id\":\"2\"}\n")
        #expect(
            try ok(["query", "--sort", "-rating", "--limit", "1", "--fields", "id,rating"])
                == "{\"id\":\"3\",\"rating\":4.5}\n")
        #expect(
            try ok(["query", "--keyword", "맛집", "--keyword-in", "title,memo", "--fields", "id"]) == "{\"id\":\"2\"}\n")
        #expect(
            try ok(["query", "--visited", "--fields", "id,visits"])
                == "{\"id\":\"1\",\"visits\":[\"2026-05-05T05:00:00.000Z\"]}\n")
        #expect(
            try ok(["query", "--not-visited", "--fields", "id", "--engine", "sqlite"]).split(separator: "\n").count == 2
        )
        _ = try ok(["query", "--keyword", "궁", "--no-history"])
        #expect(try ok(["history"]).contains("맛집") && !(try ok(["history"]).contains("궁")))
        // Another user sees none of it.
        #expect(try ok(["query", "--bookmarked", "--user", "ana"]).isEmpty)
        // A place that disappears keeps its bookmark, marked gone.
        let cache = try PlaceCache(path: db)
        try cache.write { w in try w.delete(id: "3") }
        #expect(try ok(["bookmark", "list"]).contains("{\"id\":\"3\",\"list\":\"default\""))
        #expect(try ok(["bookmark", "list"]).contains("\"gone\":true"))
        let token = try ok(["user", "add", "ana"]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("nby_"))
        #expect(try !ok(["user", "list"]).contains(token))
        let bad = try CLIRunner.run(["rate", "1", "6", "--db", db])
        #expect(bad.status == 2 && bad.stderr.contains("stars"))
        let missing = try CLIRunner.run(["bookmark", "add", "99", "--db", db])
        #expect(missing.status == 1 && missing.stderr.contains("no cached place"))
    }

    /// The same commands with `--pg URL` write the database's personal tables, and `nearby query --pg`
    /// answers from them as `--db` does from the cache's; a backup of the cache restores into the database.
    @Test func theCommandsOnPostGIS() throws {
        let dir = try TempFolder()
        let db = try cache(dir)
        let url = try PostgresCluster.shared().makeDatabase()
        let imported = try CLIRunner.run(["import", "--pg", url, dir.file("p.jsonl")])
        #expect(imported.status == 0, "\(imported.stderr)")
        func both(_ args: [String]) throws -> String {
            let a = try CLIRunner.run(args + ["--db", db])
            let b = try CLIRunner.run(args + ["--pg", url])
            #expect(a.status == 0 && b.status == 0, "\(args): \(a.stderr) \(b.stderr)")
            // Times of writes differ by the milliseconds between the two runs.
            func timeless(_ s: String) -> String {
                s.replacingOccurrences(of: #""\d{4}-\d\d-\d\dT[0-9:.]+Z""#, with: "t", options: .regularExpression)
            }
            #expect(timeless(a.output) == timeless(b.output), "\(args)")
            return b.output
        }
        _ = try both(["bookmark", "add", "1", "3"])
        _ = try both(["bookmark", "add", "2", "--list", "food"])
        _ = try both(["rate", "3", "4.5"])
        _ = try both(["memo", "2", "빈대떡 맛집"])
        _ = try both(["visit", "1", "--at", "2026-05-05T14:00:00+09:00"])
        #expect(
            try both(["query", "--bookmarked", "--fields", "id"]) == "{\"id\":\"1\"}\n{\"id\":\"2\"}\n{\"id\":\"3\"}\n")
        #expect(
            try both(["query", "--sort", "-rating", "--limit", "1", "--fields", "id,rating"])
                == "{\"id\":\"3\",\"rating\":4.5}\n")
        #expect(
            try both(["query", "--keyword", "맛집", "--keyword-in", "title,memo", "--fields", "id"]) == "{\"id\":\"2\"}\n"
        )
        _ = try both(["query", "--not-visited", "--fields", "id,memo,visits", "--lat", "37.57", "--lon", "127"])
        #expect(try both(["history"]).contains("맛집"))
        #expect(try both(["bookmark", "list"]).contains("\"list\":\"food\""))
        let missing = try CLIRunner.run(["bookmark", "add", "99", "--pg", url])
        #expect(missing.status == 1 && missing.stderr.contains("no cached place"))
        // A user's data moved from the cache to the database by backup and restore.
        _ = try CLIRunner.run(["rate", "1", "2", "--user", "ana", "--db", db])
        let backup = try dir.write("ana.json", try CLIRunner.run(["backup", "--user", "ana", "--db", db]).output)
        #expect(try CLIRunner.run(["restore", backup, "--pg", url]).status == 0)
        _ = try both(["query", "--min-rating", "1", "--user", "ana", "--fields", "id,rating"])
    }

    @Test func aKilledRestoreLeavesTheDataAsBeforeOrAfter() throws {
        let dir = try TempFolder()
        let db = try cache(dir)
        _ = try CLIRunner.run(["bookmark", "add", "1", "--db", db])
        _ = try CLIRunner.run(["rate", "2", "3", "--db", db])
        let before = try CLIRunner.run(["backup", "--db", db]).stdout
        var text = "{\"format\":\"nearby-personal\",\"version\":1,\n\"items\":[\n"
        for i in 0..<150_000 {
            if i > 0 { text += ",\n" }
            text +=
                i % 2 == 0
                ? "{\"user\":\"u\(i % 7)\",\"type\":\"visit\",\"place\":\"\(i)\",\"at\":\(i),\"updated\":\(i)}"
                : "{\"user\":\"me\",\"type\":\"bookmark\",\"place\":\"\(i)\",\"list\":\"l\(i % 5)\",\"added\":\(i),\"updated\":\(i)}"
        }
        let file = try dir.write("big.json", text + "\n]}\n")
        let copy = dir.file("after.sqlite")
        try FileManager.default.copyItem(atPath: db, toPath: copy)
        let full = try CLIRunner.run(["restore", file, "--db", copy])
        #expect(full.status == 0, "\(full.stderr)")
        let after = try CLIRunner.run(["backup", "--db", copy]).stdout
        #expect(after != before)
        var sawBefore = false
        for delay in [0.2, 0.5, 1.0, 2.0, 4.0] {
            let run = try CLIRunner.start(["restore", file, "--db", db])
            Thread.sleep(forTimeInterval: delay)
            kill(run.process.processIdentifier, SIGKILL)
            _ = try run.finish()
            let now = try CLIRunner.run(["backup", "--db", db]).stdout
            #expect(now == before || now == after, "killed after \(delay) s")
            if now == before { sawBefore = true } else { break }
        }
        #expect(sawBefore, "a restore was killed before its commit")
        #expect(try PlaceCache(path: db).integrityCheck() == "ok")
    }
}
