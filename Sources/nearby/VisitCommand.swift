import ArgumentParser
import Foundation
import NearbyKit

struct VisitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "visit",
        abstract: "Record a visit to a place, now or --at a time.",
        discussion: """
            --at takes ISO 8601 (2026-05-05T14:00:00Z, 2026-05-05T14:00:00+09:00), a day (2026-05-05) or Unix \
            milliseconds. Queries select visited places with --visited or --not-visited and sort by the last \
            visit with --sort -visited.

            Examples:
              nearby visit 126508
              nearby visit 126508 --at 2026-05-05T14:00:00+09:00
            """)
    @Argument(help: "The place id.") var id: String
    @Option(help: ArgumentHelp("When (default: now).", valueName: "time")) var at: String?
    @OptionGroup var user: UserOption
    @OptionGroup var cache: PersonalStoreOptions

    func run() throws {
        let time = try at.map {
            guard let t = PersonalLayer.parseTime($0) else {
                throw UsageError("--at: \(MessageText.quoted($0)) is not an ISO 8601 time, a day or Unix milliseconds")
            }
            return t
        }
        try PersonalLayer(store: cache.open(readOnly: false)).visit(user: user.user, place: id, at: time)
    }
}
