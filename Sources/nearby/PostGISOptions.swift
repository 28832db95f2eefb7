import ArgumentParser
import Foundation
import NearbyKit

/// `--pg URL`: a PostgreSQL/PostGIS database instead of a cache file (query, import, export, serve).
struct PostGISOptions: ParsableArguments {
    @Option(
        name: .customLong("pg"),
        help: ArgumentHelp(
            "A PostgreSQL/PostGIS database instead of a cache.",
            discussion: """
                libpq's URL (postgresql://user@host:5432/db) or key=value form. Default: $NEARBY_PG \
                when --db is not given.
                """,
            valueName: "url"))
    var pg: String?

    /// The database to use: --pg, else $NEARBY_PG unless `db` (a cache) was named.
    func url(db: String?) -> String? {
        if let pg { return pg }
        guard db == nil, let env = ProcessInfo.processInfo.environment["NEARBY_PG"], !env.isEmpty else { return nil }
        return env
    }
}
