import ArgumentParser
import Foundation
import NearbyKit

struct MemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memo",
        abstract: "Write a place's memo (one per place, replacing the last), or --clear it.",
        discussion: """
            The text is stored NFC-normalised, with the times it was created and last updated. Queries \
            select places with a memo with --has-memo, look for the keyword in it with \
            --keyword-in title,memo, and sort by its update time with --sort -memo.

            Examples:
              nearby memo 126508 "봄에 다시 오기"
              nearby memo 126508 --clear
            """)
    @Argument(help: "The place id.") var id: String
    @Argument(help: "The memo's text.") var text: String?
    @Flag(help: "Remove the memo.") var clear = false
    @OptionGroup var user: UserOption
    @OptionGroup var cache: PersonalStoreOptions

    func run() throws {
        guard (text == nil) == clear else { throw UsageError("give TEXT or --clear") }
        try PersonalLayer(store: cache.open(readOnly: false)).memo(user: user.user, place: id, text: text)
    }
}
