import ArgumentParser
import NearbyKit

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
        try DefaultCache.open(path: db, readOnly: readOnly) { path in
            StandardError.write("nearby: no cache yet; building \(path) from the \(DefaultDataset.summary)")
        }
    }
}
