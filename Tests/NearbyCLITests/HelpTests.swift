import Foundation
import Testing

/// Every command's `--help` teaches: it has examples, and each example survives ArgumentParser's
/// wrapping at 80 columns (a wrapped command line cannot be copied).
@Suite struct HelpTests {
    @Test(arguments: [
        ["query"], ["import"], ["export"], ["generate"], ["distance"], ["carousel"], ["serve"],
        ["where"], ["region"], ["tiles"], ["bench", "where"], ["clusters"], ["sync", "tourapi"],
        ["sync", "kakao"],
    ])
    func examplesAreWholeLines(command: [String]) throws {
        let help = try CLIRunner.run(command + ["--help"])
        #expect(help.status == 0)
        let lines = help.output.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "Examples:"), "\(command) --help has no examples")
        let examples = lines[(start + 1)...].prefix { !$0.isEmpty }
        #expect(!examples.isEmpty)
        for line in examples { #expect(line.hasPrefix("  "), "\(command) --help: wrapped example line '\(line)'") }
    }
}
