import Foundation
import NearbyCore
import NearbyKit

/// The shared benchmark workload written to `PREFIX.places.tsv` and `PREFIX.queries.tsv`
/// (`nearby generate --workload`), through temporary names so a failed run leaves no half file under
/// a final name.
public enum WorkloadFiles {
    public static func write(prefix: String, towns: [KoreanTown], placeCount: Int, queryCount: Int, seed: Int) throws {
        guard !towns.isEmpty else { throw UsageError("the towns file has no towns") }
        let paths = [prefix + ".places.tsv", prefix + ".queries.tsv"]
        let files = try paths.map { path -> FileHandle in
            let partial = path + ".partial"
            guard FileManager.default.createFile(atPath: partial, contents: nil) else {
                throw UsageError("\(path): cannot create the file")
            }
            return try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
        }
        try SharedWorkload.generate(
            towns: towns, placeCount: placeCount, queryCount: queryCount, seed: seed,
            places: { try files[0].write(contentsOf: $0) }, queries: { try files[1].write(contentsOf: $0) })
        for (file, path) in zip(files, paths) {
            try file.close()
            _ = try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.moveItem(atPath: path + ".partial", toPath: path)
        }
    }
}
