import ArgumentParser
import Foundation
import NearbyCore
import NearbyStore

/// `--db PATH`, shared by every command that reads or writes the cache (`@OptionGroup var cache: CacheOptions`).
struct CacheOptions: ParsableArguments {
    @Option(
        name: .customLong("db"),
        help: ArgumentHelp(
            "The cache file.",
            discussion: """
                Default: $NEARBY_DB, else $XDG_CACHE_HOME/nearby/places.sqlite, else \
                ~/.cache/nearby/places.sqlite. The default cache is built from the default dataset (data/) \
                the first time a command needs it.
                """,
            valueName: "path"))
    var db: String?

    /// Opens the cache named by `--db`, or the default cache, building it on first use (and saying so
    /// once on stderr). A `--db` file must exist to be opened read-only; for writing it is created.
    func open(readOnly: Bool) throws -> PlaceCache {
        if let db { return try PlaceCache(path: db, readOnly: readOnly) }
        let path = CachePath.defaultPath()
        return try DefaultCache.openOrBuild(path: path, readOnly: readOnly, build: DefaultDataset.places) {
            StandardError.write("nearby: no cache yet; building \(path) from the \(DefaultDataset.summary)")
        }
    }
}

/// Lines for humans on stderr: errors, warnings, and progress (only when stderr is a terminal).
enum StandardError {
    static let isTerminal = isatty(2) == 1

    /// Writes a line, first clearing any progress text on a terminal.
    static func write(_ line: String) {
        FileHandle.standardError.write(Data(((isTerminal ? "\r\u{1B}[K" : "") + line + "\n").utf8))
    }

    /// Rewrites the current terminal line (no newline): for progress counters.
    static func progress(_ text: String) {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
    }
}
