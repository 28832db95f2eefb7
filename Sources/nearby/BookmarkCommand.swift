import ArgumentParser
import Foundation
import NearbyKit

struct BookmarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bookmark",
        abstract: "Add, remove or list a user's bookmarks (in named lists; the default list is `default`).",
        discussion: """
            Bookmarks name places by id and stay when a re-import drops the place (`nearby bookmark list` \
            marks it "gone": true; it comes back with the place). Queries select them with --bookmarked or \
            --bookmarked-in LIST and sort them with --sort bookmarked (time added).

            Examples:
              nearby bookmark add 126508 264337 --list seoul
              nearby bookmark list --list seoul
              nearby bookmark remove 126508 --list seoul
            """,
        subcommands: [Add.self, Remove.self, List.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Bookmark places (cached ones) in a list.")
        @Argument(help: "Place ids.") var ids: [String]
        @Option(help: ArgumentHelp("The list (default: default).", valueName: "name")) var list: String?
        @OptionGroup var user: UserOption
        @OptionGroup var cache: PersonalStoreOptions
        func validate() throws {
            guard !ids.isEmpty else { throw ValidationError("give one or more place ids") }
        }
        func run() throws {
            try PersonalLayer(store: cache.open(readOnly: false)).addBookmarks(user: user.user, places: ids, list: list)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove places from a list (default: default).")
        @Argument(help: "Place ids.") var ids: [String]
        @Option(help: ArgumentHelp("The list (default: default).", valueName: "name")) var list: String?
        @OptionGroup var user: UserOption
        @OptionGroup var cache: PersonalStoreOptions
        func validate() throws {
            guard !ids.isEmpty else { throw ValidationError("give one or more place ids") }
        }
        func run() throws {
            try PersonalLayer(store: cache.open(readOnly: false)).removeBookmarks(
                user: user.user, places: ids, list: list)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "One JSON line a bookmark: {\"id\",\"list\",\"added\",\"title\"}, or \"gone\":true for a place no longer cached."
        )
        @Option(help: ArgumentHelp("Only this list.", valueName: "name")) var list: String?
        @OptionGroup var user: UserOption
        @OptionGroup var cache: PersonalStoreOptions
        func run() throws {
            for b in try PersonalLayer(store: cache.open(readOnly: true)).bookmarks(user: user.user, list: list) {
                printJSONLine { b.appendJSON(to: &$0) }
            }
        }
    }
}
