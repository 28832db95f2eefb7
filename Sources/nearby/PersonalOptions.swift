import ArgumentParser
import Foundation
import NearbyKit

/// `--user NAME` of the personal commands: whose data (default `me`, the one local user).
struct UserOption: ParsableArguments {
    @Option(help: ArgumentHelp("Whose data (default: me).", valueName: "name"))
    var user: String = PersonalFilter.defaultUser
}

/// Writes one JSON object a line on stdout.
func printJSONLine(_ build: (inout [UInt8]) -> Void) {
    var out: [UInt8] = []
    build(&out)
    out.append(0x0A)
    FileHandle.standardOutput.write(Data(out))
}
