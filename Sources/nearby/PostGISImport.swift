import NearbyKit
import NearbyPostGIS

extension Importer {
    /// Imports `paths` into a PostgreSQL/PostGIS database in one transaction (`nearby import --pg`):
    /// the cache's reading, records, counts and `file:line` errors, through `PostGISWriter`.
    func importFiles(_ paths: [String], into store: PostGISStore) throws -> ImportSummary {
        try importFiles(paths, write: { try store.write($0) }, apply: { try $0.apply() })
    }
}
