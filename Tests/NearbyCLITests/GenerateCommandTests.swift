import Foundation
import NearbyTestSupport
import Testing

/// `nearby generate` run as a subprocess: byte-identical runs, both formats, and what it imports as.
@Suite struct GenerateCommandTests {
    @Test func twoRunsWithTheSameSeedWriteTheSameBytes() throws {
        let a = try CLIRunner.run(["generate", "--count", "3000", "--seed", "5"])
        let b = try CLIRunner.run(["generate", "--count", "3000", "--seed", "5"])
        #expect(a.status == 0 && a.stderr.isEmpty)
        #expect(a.stdout == b.stdout)
        #expect(a.lines.count == 3001)
        #expect(a.lines[0].hasPrefix("id\tlat\tlon\tcategory\ttitle\tcreated\tmodified\tareacode\tsigungucode\t"))
        #expect(a.lines[1].hasPrefix("1\t") && a.lines[3000].hasPrefix("3000\t"))
        let other = try CLIRunner.run(["generate", "--count", "3000", "--seed", "6"])
        #expect(other.stdout != a.stdout)
        // Place N does not depend on the count.
        let few = try CLIRunner.run(["generate", "--count", "10", "--seed", "5"])
        #expect(few.lines == Array(a.lines.prefix(11)))
    }

    @Test func jsonLinesHoldTheSamePlaces() throws {
        let tsv = try CLIRunner.run(["generate", "--count", "200", "--seed", "8"])
        let jsonl = try CLIRunner.run(["generate", "--count", "200", "--seed", "8", "--format", "jsonl"])
        #expect(jsonl.status == 0 && jsonl.lines.count == 200)
        for (t, j) in zip(tsv.lines.dropFirst(), jsonl.lines) {
            let f = t.split(separator: "\t", omittingEmptySubsequences: false)
            let o = try JSONSerialization.jsonObject(with: Data(j.utf8)) as! [String: Any]
            #expect(o["id"] as? String == String(f[0]) && o["title"] as? String == String(f[4]))
            #expect(o["lat"] as? Double == Double(f[1]) && o["category"] as? Int == Int(f[3]))
        }
    }

    @Test func generatedFileImportsWithoutRejects() throws {
        let dir = try TempFolder()
        let places = try dir.write("g.tsv", CLIRunner.run(["generate", "--count", "500", "--seed", "3"]).stdout)
        let db = dir.file("c.sqlite")
        let imported = try CLIRunner.run(["import", "--db", db, "--strict", places])
        #expect(imported.status == 0, "\(imported.stderr)")
        let exported = try CLIRunner.run(["export", "--db", db])
        #expect(exported.lines.count == 500)
    }

    @Test func badTownsFileAndBadFlags() throws {
        let missing = try CLIRunner.run(["generate", "--towns", "/nonexistent/kr_points.tsv"])
        #expect(missing.status == 1 && missing.stderr.contains("/nonexistent/kr_points.tsv: cannot read"))
        #expect(missing.stdout.isEmpty)
        let format = try CLIRunner.run(["generate", "--format", "xml"])
        #expect(format.status == 2 && format.stdout.isEmpty)
        let wrongEnv = try CLIRunner.run(["generate", "--count", "1"], environment: ["NEARBY_DATA": "/nonexistent"])
        #expect(wrongEnv.status == 1 && wrongEnv.stderr.contains("NEARBY_DATA"))
    }

    /// `--workload` writes the shared workload byte for byte (fixtures from make_dataset.py, see
    /// Tests/NearbyBenchTests/Fixtures/README.md), so other engines can be run on the very same files.
    @Test func workloadFilesEqualTheSharedGenerators() throws {
        let dir = try TempFolder()
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("NearbyBenchTests/Fixtures")
        for (count, queries, seed) in [(300, 60, 42), (1000, 100, 7)] {
            let prefix = dir.file("w\(count)")
            var args = ["generate", "--workload", prefix, "--count", "\(count)", "--queries", "\(queries)"]
            if seed != 42 { args += ["--seed", "\(seed)"] }
            let r = try CLIRunner.run(args)
            #expect(r.status == 0 && r.stdout.isEmpty, "\(r.stderr)")
            for kind in ["places", "queries"] {
                let expected = try Data(
                    contentsOf: fixtures.appendingPathComponent("workload-\(count)-\(queries)-seed\(seed).\(kind).tsv"))
                #expect(
                    try Data(contentsOf: URL(fileURLWithPath: "\(prefix).\(kind).tsv")) == expected, "\(count) \(kind)")
            }
        }
        let bad = try CLIRunner.run(["generate", "--queries", "5"])
        #expect(bad.status == 2 && bad.stderr.contains("--queries goes with --workload"))
    }
}
