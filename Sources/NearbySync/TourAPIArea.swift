import Foundation
import NearbyKit

/// One circle of TourAPI's `locationBasedList2` fetched into the cache: what `nearby serve --fallback
/// tourapi` asks upstream for an area the cache has never had. The pages go through the one import path
/// (`Importer.importDocuments`) in one transaction with the area's row in `sync_areas`, so an area is
/// remembered exactly when its places are in the cache. Requests count against the daily budget of
/// `nearby sync tourapi` (`sync_requests`, source `tourapi`); the key is redacted from every error.
public final class TourAPIAreaFetch: @unchecked Sendable {
    // @unchecked: immutable after init; each fetch opens its own cache connection and fetcher.
    public let options: TourAPISyncOptions
    private let cachePath: String
    private let importer: Importer
    private let secrets: Secrets
    /// The importer is used by one fetch at a time (fetches of different areas run at once).
    private let importing = NSLock()
    /// Pages fetched for one circle at most (each `pageSize` places, nearest first).
    public var maxPages = 5

    public init(cachePath: String, options: TourAPISyncOptions, importer: Importer) {
        self.cachePath = cachePath
        self.options = options
        self.importer = options.importer(importer)
        secrets = options.secrets
    }

    /// The areas' key in `sync_areas`: the service and the content types asked.
    var source: String {
        var parts = ["tourapi", options.service, "locationBasedList2"]
        if !options.contentTypes.isEmpty {
            parts.append("contentTypeId=" + options.contentTypes.joined(separator: ","))
        }
        return parts.joined(separator: " ")
    }

    /// Whether the cache holds `area` already: fetched before, or covered by a complete sync of every area
    /// (`nearby sync tourapi` without `--areacode` or `--ldong`, of the same content types).
    public func isKnown(area: String) throws -> Bool {
        let cache = try PlaceCache(path: cachePath, readOnly: true)
        if try cache.syncAreaFetched(source: source, area: area) { return true }
        var whole = options
        whole.areaCodes = []
        whole.ldongs = []
        // A cache never synced has no sync_state table: nothing is known.
        guard let state = try? cache.syncState(source: whole.source) else { return false }
        return TourAPICheckpoint.decode(state).lastSyncDay != nil
    }

    /// Fetches the places within `radius` metres (at most 20,000, TourAPI's limit) of the point, imports
    /// them and records `area`. Throws the `SyncStop` that ended it (its text redacted) when upstream
    /// failed; nothing is applied then.
    public func fetch(area: String, lat: Double, lon: Double, radius: Int) async throws -> SyncSummary {
        let cache = try PlaceCache(path: cachePath)
        try cache.prepareSync()
        let fetcher = options.fetcher(cache: cache)
        let types: [String?] = options.contentTypes.isEmpty ? [nil] : options.contentTypes
        let source = self.source
        let summary = try await fetcher.run { summary in
            var documents: [(name: String, bytes: [UInt8])] = []
            var ids: [String] = []
            for type in types {
                var page = 1
                while page <= maxPages {
                    var parameters = [
                        ("mapX", String(format: "%.7f", lon)), ("mapY", String(format: "%.7f", lat)),
                        ("radius", String(min(20_000, max(1, radius)))), ("arrange", "E"),
                        ("numOfRows", String(options.pageSize)), ("pageNo", String(page)),
                    ]
                    if let type {
                        let asked = Int(type).map { String(options.language.serviceContentType($0)) } ?? type
                        parameters.append(("contentTypeId", asked))
                    }
                    let operation = "\(options.service)/locationBasedList2"
                    let answer = try await fetcher.get(
                        TourAPISync.url(operation, parameters, options: options), judge: TourAPIAnswer.judge)
                    let value = try answer.body.withUnsafeBytes { try JSONValue.parse($0) }
                    let body = value["response"]?["body"]
                    let items = TourAPISync.items(body)
                    if !items.isEmpty { documents.append((secrets.redact("\(operation) page \(page)"), answer.body)) }
                    ids += items.compactMap { $0["contentid"]?.text }
                    let total = Int(body?["totalCount"]?.text ?? "") ?? 0
                    if items.isEmpty || page * options.pageSize >= total { break }
                    page += 1
                }
            }
            var counted = SyncSummary()
            for id in Set(ids) {
                if try cache.place(id: id) == nil { counted.added += 1 } else { counted.unchanged += 1 }
            }
            let now = ISO8601DateFormatter().string(from: Date())
            let result = try importing.withLock {
                try importer.importDocuments(documents, into: cache) {
                    try $0.saveSyncArea(source: source, area: area, fetched: now)
                }
            }
            summary.added = counted.added
            summary.updated = min(result.counts.updated, counted.unchanged)
            summary.unchanged = counted.unchanged - summary.updated
            summary.rejected = result.counts.rejected
        }
        if let stop = summary.stop { throw stop }
        if summary.added + summary.updated > 0 {
            CacheSnapshot.update(cache)
        }
        return summary
    }
}
