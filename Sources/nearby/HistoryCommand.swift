import ArgumentParser
import Foundation
import NearbyKit

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "A user's search history (newest first, one JSON line a keyword), or --clear it.",
        discussion: """
            A query with --keyword (not a batch file's) records its keyword (NFC) unless it says --no-history; a repeated \
            keyword moves to the top, and the newest 100 stay.
            """)
    @Flag(help: "Forget every search.") var clear = false
    @OptionGroup var user: UserOption
    @OptionGroup var cache: PersonalStoreOptions

    func run() throws {
        if clear { return try PersonalLayer(store: cache.open(readOnly: false)).clearHistory(user: user.user) }
        for h in try PersonalLayer(store: cache.open(readOnly: true)).history(user: user.user) {
            printJSONLine { PersonalLayer.appendHistoryLine(keyword: h.keyword, at: h.at, to: &$0) }
        }
    }
}
