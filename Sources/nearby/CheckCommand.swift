import ArgumentParser
import Foundation
import NearbyKit

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a cache for damage.",
        discussion: """
            Runs SQLite's integrity_check and rtreecheck, reads every row as a place (types, UTF-8, \
            coordinate ranges, the row's checksum, the rules an import applies), checks every row's R*Tree box and \
            every block of the index snapshot beside the cache against its checksum. Prints \
            one JSON line: {"ok":..,"rows":..,"problems":[..],"unlisted":..}; exits 1 when there is a \
            problem. A damaged cache is best rebuilt: import its sources into a new file.

            Examples:
              nearby check
              nearby check --db trip.sqlite
            """)

    @OptionGroup var cache: CacheOptions

    func run() throws {
        let report = try cache.open(readOnly: true).check()
        var out: [UInt8] = Array(#"{"ok":\#(report.ok),"rows":\#(report.rows),"problems":["#.utf8)
        for (i, p) in report.problems.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(p, to: &out)
        }
        out.append(contentsOf: #"],"unlisted":\#(report.unlisted)}"#.utf8)
        print(String(decoding: out, as: UTF8.self))
        if !report.ok {
            StandardError.write(
                "nearby check: \(report.problems.count + report.unlisted) problems; rebuild the cache from its sources")
            throw ExitCode.failure
        }
    }
}
