import NearbyKit
import NearbyPostGIS

extension Importer {
    /// Imports `paths` into a PostgreSQL/PostGIS database in one transaction, as `nearby import --pg`
    /// does (Sources/nearby/PostGISImport.swift): NearbyKit does not link NearbyPostGIS.
    func importFiles(_ paths: [String], into store: PostGISStore) throws -> ImportSummary {
        try importFiles(paths, write: { try store.write($0) }, apply: { try $0.apply() })
    }
}
