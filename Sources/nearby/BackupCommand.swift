import ArgumentParser
import Foundation
import NearbyKit

struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write users and their personal data as one versioned JSON document on stdout.",
        discussion: """
            One item a line (docs/personal.md). --with-places adds the records of the places the items \
            name. `nearby restore` reads it back.

            Examples:
              nearby backup > personal.json
              nearby backup --user ana --with-places > ana.json
            """)
    @Option(help: ArgumentHelp("Only this user (default: every user).", valueName: "name")) var user: String?
    @Flag(name: .customLong("with-places"), help: "Add the places the items name.") var withPlaces = false
    @OptionGroup var cache: PersonalStoreOptions

    func run() throws {
        let bytes = try PersonalBackup.write(store: cache.open(readOnly: true), user: user, withPlaces: withPlaces)
        FileHandle.standardOutput.write(Data(bytes))
    }
}

struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a backup: merge (the newer `updated` of each item wins), or --replace.",
        discussion: """
            One transaction: the whole file is checked first (a malformed one is refused naming its line \
            and field, a newer format version is refused), then written at once, so a crash leaves the data \
            as it was or as restored. Restoring the same file again changes nothing. --replace makes each \
            user of the file hold exactly the file's items.

            Examples:
              nearby restore personal.json
              nearby restore ana.json --replace
            """)
    @Argument(help: "The backup file.") var file: String
    @Flag(help: "Make each user's data equal the file's.") var replace = false
    @OptionGroup var cache: PersonalStoreOptions

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw UsageError("\(file): cannot read the file")
        }
        let c = try PersonalBackup.restore(
            [UInt8](data), file: file, into: cache.open(readOnly: false), replace: replace)
        StandardError.write("nearby restore: \(c.itemCount) items of \(c.items.count) users")
    }
}
