import Foundation
import Testing

/// `nearby where` and `nearby region` run as subprocesses on the real boundary file. Each run loads
/// the index, so the cases are batched into few runs.
@Suite struct WhereCommandTests {
    func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func batchFromStdinWithBadLines() throws {
        let input = """
            37.5796 126.9770
            # a comment, then a blank line

            {"lat":37.244573,"lon":131.865383}
            37.5,129.5
            90\t0
            1 2 3
            {"lat":"x","lon":1}
            91 0
            abc 1
            """
        let r = try CLIRunner.run(["where"], stdin: Data(input.utf8))
        #expect(r.status == 2)
        #expect(
            r.stderr == """
                nearby where: line 7: expected 2 numbers (lat lon), found 3 fields
                nearby where: line 8: field "lat" is not a number
                nearby where: line 9: lat 91.0 is out of range [-90, 90]
                nearby where: line 10: lat "abc" is not a number

                """)
        #expect(r.lines.count == 4)  // every good point is answered
        let seoul = try object(r.lines[0])
        #expect(seoul["region"] as? String == "서울특별시 종로구 세종로")
        #expect(seoul["code"] as? String == "11110119")
        #expect((seoul["sigungu"] as? [String: Any])?["code"] as? String == "11110")
        #expect(seoul["ri"] is NSNull)
        let dokdo = try object(r.lines[1])
        #expect((dokdo["ri"] as? [String: Any])?["name"] as? String == "독도리")
        let sea = try object(r.lines[2])
        #expect(sea["region"] as? String == "unknown")
        #expect(((sea["nearest"] as? [String: Any])?["sido"] as? [String: Any])?["code"] as? String == "51")
        let distance = try #require(sea["distance_m"] as? Double)
        #expect(distance > 10_000 && distance < 40_000)
        let pole = try object(r.lines[3])
        #expect(pole["region"] as? String == "unknown" && pole["lat"] as? Double == 90)
    }

    @Test func readmeExampleIsTheRealOutput() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let lines = try String(contentsOf: readme, encoding: .utf8).split(separator: "\n").map(String.init)
        let at = try #require(lines.firstIndex(of: "$ nearby where 37.5796 126.9770"))
        let r = try CLIRunner.run(["where", "37.5796", "126.9770"])
        #expect(r.status == 0)
        #expect(r.lines == [lines[at + 1]])
    }

    @Test func argumentsAsTextAndFromAFile() throws {
        let text = try CLIRunner.run(["where", "--format", "text", "37.5796", "126.9770", "37.5", "129.5"])
        #expect(text.status == 0 && text.stderr.isEmpty)
        #expect(text.lines.count == 2)
        #expect(text.lines[0] == "37.5796 126.977 서울특별시 종로구 세종로 (11110119)")
        #expect(text.lines[1].hasPrefix("37.5 129.5 unknown region; nearest: 강원특별자치도 삼척시"))
        // --input, and a negative longitude as an argument (not an option).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("where-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("points.txt")
        try "37.4849 130.9057\n33.507333 126.954948\n".write(to: file, atomically: true, encoding: .utf8)
        let batch = try CLIRunner.run(["where", "--input", file.path, "--format", "text"])
        #expect(batch.status == 0)
        #expect(batch.lines.map { $0.contains("울릉읍") || $0.contains("우도면") } == [true, true])
    }

    @Test func usageErrors() throws {
        for (args, message) in [
            (["where", "37.5"], "nearby where: expected LAT LON pairs, got 1 arguments"),
            (["where", "--bogus", "1"], "nearby where: unknown option '--bogus'"),
            (
                ["where", "--input", "/nonexistent/points.txt"],
                "nearby where: /nonexistent/points.txt: cannot open the file"
            ),
            (["region"], "nearby region: give a region name or code"),
        ] {
            let r = try CLIRunner.run(args)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr == message + "\n", "\(args)")
            #expect(r.stdout.isEmpty)
        }
        let bad = try CLIRunner.run(["where", "91", "0"])
        #expect(bad.status == 2 && bad.stderr == "nearby where: argument 1: lat 91.0 is out of range [-90, 90]\n")
    }

    @Test func regionAsJSONAndGeoJSON() throws {
        let json = try CLIRunner.run(["region", "서울", "종로구"])
        #expect(json.status == 0 && json.stderr.isEmpty)
        let jongno = try object(try #require(json.lines.first))
        #expect(jongno["code"] as? String == "11110" && jongno["level"] as? String == "sigungu")
        let bbox = try #require(jongno["bbox"] as? [Double])
        #expect(bbox.count == 4 && bbox[0] < bbox[2] && bbox[1] < bbox[3])

        let geo = try CLIRunner.run(["region", "--format", "geojson", "11110"])
        #expect(geo.status == 0)
        let feature = try object(geo.output)
        #expect(feature["type"] as? String == "Feature")
        #expect((feature["geometry"] as? [String: Any])?["type"] as? String == "MultiPolygon")

        let ambiguous = try CLIRunner.run(["region", "중구"])
        #expect(ambiguous.status == 2 && ambiguous.stdout.isEmpty)
        #expect(ambiguous.stderr.hasPrefix("nearby region: \"중구\" names 5 regions; add the 시도 or give a code:\n"))
        #expect(ambiguous.stderr.contains("  서울특별시 중구 (11140)\n"))

        let missing = try CLIRunner.run(["region", "없는구"])
        #expect(missing.status == 2 && missing.stderr == "nearby region: no region is named or coded \"없는구\"\n")
    }

    @Test func benchWhereReportsEveryMeasure() throws {
        let r = try CLIRunner.run(["bench", "where", "--points", "2000", "--repetitions", "1", "--loads", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try object(r.output)
        #expect(doc["benchmark"] as? String == "where")
        let inside = try #require(doc["inside"] as? [String: Any])
        let boundary = try #require(doc["boundary"] as? [String: Any])
        #expect(inside["found"] as? Int == 2000)  // inside points are kept only when they land in a region
        let nearBorder = try #require(boundary["found"] as? Int)
        #expect(nearBorder > 1000 && nearBorder <= 2000)
        for set in [inside, boundary] {
            #expect((set["lookupsPerSecond"] as? Double ?? 0) > 0 && (set["meanEdgesInCell"] as? Double ?? 0) > 0)
        }
        #expect((doc["loadMillis"] as? [String: Any])?["median"] is Double)
        let bad = try CLIRunner.run(["bench", "where", "--points", "0"])
        #expect(bad.status == 2)
    }
}
