import Foundation
import NearbyTestSupport
import Testing

/// Row checksums through the commands: a byte flipped on disk inside a stored value that stays valid text
/// makes export, query (each engine) and check exit 1 with one line naming the cache and the row, and
/// no command prints the changed row as data.
@Suite struct DamagedCacheCommandTests {
    @Test func aFlippedValueIsRefusedByEveryReadingCommand() throws {
        let dir = try TempFolder()
        let db = dir.file("c.sqlite")
        let tsv = try dir.write(
            "p.tsv", "id\ttitle\tlat\tlon\tcategory\n1\tAlpha\t37.5\t127\t12\n2\tMarkerTitle\t37.6\t127.1\t14\n")
        #expect(try CLIRunner.run(["import", "--db", db, tsv]).status == 0)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: db)))
        let marker = Array("MarkerTitle".utf8)
        let at = try #require(
            (0...(bytes.count - marker.count)).first { bytes[$0..<$0 + marker.count].elementsEqual(marker) })
        bytes[at] ^= 0x20  // "M" → "m": still valid text, so only the checksum can tell
        try Data(bytes).write(to: URL(fileURLWithPath: db))

        let query = ["query", "--lat", "37.6", "--lon", "127.1", "--radius", "5000", "--db", db]
        for arguments in [
            ["export", "--db", db], query, query + ["--engine", "sqlite"], query + ["--engine", "memory"],
        ] {
            let r = try CLIRunner.run(arguments)
            #expect(r.status == 1, "\(arguments)")
            #expect(!r.output.contains("markerTitle"), "\(arguments)")
            #expect(
                r.stderr.hasSuffix(
                    #"the cache is damaged: id "2": checksum: the stored values differ from those written (a changed byte); run nearby check, then rebuild the cache from its sources"#
                        + "\n"), "\(arguments): \(r.stderr)")
            #expect(r.stderr.filter { $0 == "\n" }.count == 1, "\(arguments): one line")
        }
        let check = try CLIRunner.run(["check", "--db", db])
        #expect(check.status == 1)
        #expect(check.output.contains(#"id \"2\": checksum: the stored values differ"#))
    }
}
