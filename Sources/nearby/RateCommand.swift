import ArgumentParser
import Foundation
import NearbyKit

struct RateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rate",
        abstract: "Rate a place 1–5 (steps of 0.5), or --clear its rating.",
        discussion: """
            Queries select rated places with --min-rating N and sort them with --sort -rating.

            Examples:
              nearby rate 126508 4.5
              nearby rate 126508 --clear
            """)
    @Argument(help: "The place id.") var id: String
    @Argument(help: "Stars: 1, 1.5, … 5.") var stars: String?
    @Flag(help: "Remove the rating.") var clear = false
    @OptionGroup var user: UserOption
    @OptionGroup var cache: PersonalStoreOptions

    func run() throws {
        let value: Double?
        switch (stars, clear) {
        case (nil, true): value = nil
        case (let s?, false):
            guard let v = DecimalNumber.double(s) else {
                throw UsageError("stars: \(MessageText.quoted(s)) is not a number")
            }
            value = v
        default: throw UsageError("give STARS or --clear")
        }
        try PersonalLayer(store: cache.open(readOnly: false)).rate(user: user.user, place: id, stars: value)
    }
}
