import ArgumentParser
import Foundation
import NearbyKit
import NearbyPostGIS

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

/// Where the personal commands read and write: the cache (`--db`, default the default cache), or with
/// `--pg URL` (or $NEARBY_PG without --db) the personal tables of that PostgreSQL/PostGIS database,
/// the ones `nearby query --pg` and `nearby serve --engine postgis` read.
struct PersonalStoreOptions: ParsableArguments {
    @OptionGroup var cache: CacheOptions
    @OptionGroup var postgis: PostGISOptions

    /// The store; a database's schema must be current (`nearby import --pg` migrates it).
    func open(readOnly: Bool) throws -> any PersonalStorage {
        if let url = postgis.url(db: cache.db) { return try PostGISStore(url: url, readOnly: true) }
        return try cache.open(readOnly: readOnly)
    }
}
