import ArgumentParser
import Foundation
import NearbyKit

struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Users of the server's personal endpoints: add (prints a token once), list, revoke, remove.",
        discussion: """
            A token is 256 random bits, printed once on stdout and stored only as its SHA-256. Revoking \
            stops a user's tokens and keeps the data; removing deletes the user and all the data. The \
            local user `me` needs no entry.

            Examples:
              nearby user add ana
              nearby user list
              nearby user revoke ana
              nearby user remove ana
            """,
        subcommands: [Add.self, List.self, Revoke.self, Remove.self])

    static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register a user and print a new access token.")
        @Argument(help: "The user's name.") var name: String
        @OptionGroup var cache: PersonalStoreOptions
        func run() throws {
            print(try UserTokens.addUser(name, store: cache.open(readOnly: false), now: UserCommand.now()))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One JSON line a user: {\"name\",\"revoked\",\"tokens\",\"created\"}.")
        @OptionGroup var cache: PersonalStoreOptions
        func run() throws {
            for u in try cache.open(readOnly: true).users() {
                printJSONLine { out in
                    out += Array("{\"name\":".utf8)
                    JSONWriter.appendString(u.name, to: &out)
                    out += Array(
                        ",\"revoked\":\(u.revoked),\"tokens\":\(u.tokenHashes.count),\"created\":\"\(PersonalLayer.isoTime(u.created))\"}"
                            .utf8)
                }
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop a user's tokens; the data stays.")
        @Argument(help: "The user's name.") var name: String
        @OptionGroup var cache: PersonalStoreOptions
        func run() throws {
            guard try cache.open(readOnly: false).revokeUser(name: name, at: UserCommand.now()) else {
                throw PersonalNotFound("no user \(MessageText.quoted(name))")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a user, its tokens and all its data.")
        @Argument(help: "The user's name.") var name: String
        @OptionGroup var cache: PersonalStoreOptions
        func run() throws {
            guard try cache.open(readOnly: false).removeUser(name: name) else {
                throw PersonalNotFound("no user \(MessageText.quoted(name)) and no data of one")
            }
        }
    }
}
