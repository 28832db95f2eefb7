import Foundation
import NearbyKit

/// What `nearby sync kakao` is asked.
public struct KakaoSyncOptions: Sendable {
    public var baseURL = "https://dapi.kakao.com"
    public var restAPIKey = ""
    /// Category group codes (`FD6`, `CE7`, …), one search each.
    public var categories: [String] = []
    /// The area searched.
    public var box = GeoBox(minLon: 0, minLat: 0, maxLon: 0, maxLat: 0)
    public var maxRequests = 1000
    public var http = SyncHTTPOptions()
    /// A cell smaller than this (degrees on a side) is not split further: its first 45 places are kept.
    public var smallestCell = 0.0005
    public init() {}

    var source: String {
        "kakao " + categories.joined(separator: ",")
            + " \(box.minLon),\(box.minLat),\(box.maxLon),\(box.maxLat)"
    }
}

/// Where a Kakao sync stands: the category and the cells still to search (a stack).
struct KakaoCheckpoint: Codable, Equatable {
    var category = 0
    var cells: [[Double]] = []

    func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    static func decode(_ text: String?) -> KakaoCheckpoint? {
        guard let text, let data = text.data(using: .utf8) else { return nil }
        return try? JSONDecoder().decode(KakaoCheckpoint.self, from: data)
    }
}

/// `nearby sync kakao`: Kakao Local's category search over an area. A query returns at most 45
/// documents (3 pages of 15), so a cell whose `meta.total_count` is larger is split, by that count, into
/// parts planned to hold about 35 each (`split`), recursively, until each cell's places fit; each cell's pages are applied through the one import path
/// with the checkpoint (the cells left) in one transaction. Kakao has no change list: each complete run
/// searches the whole area again.
public final class KakaoSync: SyncRunner, @unchecked Sendable {
    // @unchecked: a sync runs on one task.
    public let options: KakaoSyncOptions
    private let cache: PlaceCache
    private let importer: Importer
    private let fetcher: SyncFetcher
    public var onProgress: (String) -> Void = { _ in }
    /// Cells that still held more than 45 places at the smallest size (their first 45 were kept).
    public private(set) var crowdedCells = 0

    public init(cache: PlaceCache, options: KakaoSyncOptions, importer: Importer) {
        self.cache = cache
        self.options = options
        var importer = importer
        importer.format = .kakao
        self.importer = importer
        let secrets = Secrets([options.restAPIKey])
        // Kakao's quota days are Korea's too.
        fetcher = SyncFetcher(
            options: options.http,
            budget: RequestBudget(cache: cache, source: "kakao", limit: options.maxRequests, timeZone: SyncDay.korea),
            secrets: secrets)
    }

    public var onRetry: (String, String, Double) -> Void {
        get { fetcher.onRetry }
        set { fetcher.onRetry = newValue }
    }

    public func run() async throws -> SyncSummary {
        try await fetcher.run { summary in try await sync(&summary) }
    }

    private func sync(_ summary: inout SyncSummary) async throws {
        try cache.prepareSync()
        let source = options.source
        let b = options.box
        let whole = [b.minLon, b.minLat, b.maxLon, b.maxLat]
        var state = KakaoCheckpoint.decode(try cache.syncState(source: source)) ?? KakaoCheckpoint(cells: [whole])
        var seen = Set<String>()
        while state.category < options.categories.count {
            let index = state.category
            let category = options.categories[index]
            while let cell = state.cells.last {
                var next = state
                next.cells.removeLast()
                var pages: [[UInt8]] = []
                let first = try await fetch(category, cell, page: 1)
                if first.total > 45 {
                    let parts = Self.split(cell, total: first.total, smallest: options.smallestCell)
                    if parts.count > 1 {
                        next.cells += parts
                        try cache.saveSyncState(source: source, state: next.encoded())
                        state = next
                        continue
                    }
                    crowdedCells += 1
                }
                pages.append(first.body)
                var ids = first.ids
                var page = 1
                var end = first.end
                // Only the pages that hold places: the first says how many there are.
                while !end, page * 15 < min(first.total, 45) {
                    page += 1
                    let more = try await fetch(category, cell, page: page)
                    pages.append(more.body)
                    ids += more.ids
                    end = more.end
                }
                var counted = SyncSummary()
                for id in ids {
                    guard seen.insert(id).inserted else { continue }
                    if try cache.place(id: "kakao:" + id) != nil {
                        counted.unchanged += 1
                    } else {
                        counted.added += 1
                    }
                }
                if next.cells.isEmpty {
                    next.category += 1
                    next.cells = next.category < options.categories.count ? [whole] : []
                }
                let encoded = next.category >= options.categories.count ? nil : next.encoded()
                let documents = pages.enumerated().compactMap { (i, body) -> (name: String, bytes: [UInt8])? in
                    ids.isEmpty ? nil : ("category.json \(category) page \(i + 1)", body)
                }
                let result = try importer.importDocuments(documents, into: cache) {
                    try $0.saveSyncState(source: source, state: encoded)
                }
                let changed = result.counts.updated
                summary.added += counted.added
                summary.updated += min(changed, counted.unchanged)
                summary.unchanged += counted.unchanged - min(changed, counted.unchanged)
                summary.rejected += result.counts.rejected
                onProgress("kakao: \(category): \(summary.added) added, \(state.cells.count) cells left")
                state = next
                if state.category != index { break }
            }
        }
    }

    /// The places a split plans for each part: below 45, so that most parts fit (a part that does not is
    /// split again, its first page spent), and near a multiple of 15, so that few pages are part-empty.
    static let plannedPerPart = 35.0
    /// The most parts a cell is split into at once; a cell that would want more is split into about the
    /// square root of that, and each part again by its own count, so that an uneven city is split where
    /// its places are rather than into many empty parts.
    static let mostParts = 64

    /// A cell of `total` places cut into a grid of about `total / plannedPerPart` parts of equal area
    /// (nearly square on the ground), none narrower than half of `smallest` degrees; one part (the cell
    /// itself) when no side is longer than `smallest`.
    ///
    /// The requests this costs: one first page for every cell asked, and for each that fits, its other
    /// pages. No enumeration can use fewer than ⌈N/15⌉ (15 documents an answer); for N = 20,000 spread
    /// evenly or as a city is, this one uses 1.25 and 1.32 times that (`scripts/bench-sync.sh kakao`).
    static func split(_ cell: [Double], total: Int, smallest: Double) -> [[Double]] {
        var wanted = max(2, Int((Double(total) / plannedPerPart).rounded(.up)))
        if wanted > mostParts { wanted = Int(Double(wanted).squareRoot().rounded(.up)) }
        let (width, height) = (cell[2] - cell[0], cell[3] - cell[1])
        // Degrees of longitude are shorter than degrees of latitude by cos(latitude).
        let ground = width * cos((cell[1] + cell[3]) / 2 * .pi / 180)
        var columns = height > 0 ? Int((Double(wanted) * ground / height).squareRoot().rounded()) : wanted
        guard width > smallest || height > smallest else { return [cell] }
        // A side longer than `smallest` may be cut into parts down to half of it.
        columns = min(max(1, columns), wanted, max(1, Int(2 * width / smallest)))
        let rows = min(max(1, (wanted + columns - 1) / columns), max(1, Int(2 * height / smallest)))
        guard columns * rows > 1 else { return [cell] }
        var parts: [[Double]] = []
        for c in 0..<columns {
            let (x0, x1) = (
                cell[0] + width * Double(c) / Double(columns), cell[0] + width * Double(c + 1) / Double(columns)
            )
            for r in 0..<rows {
                let (y0, y1) = (
                    cell[1] + height * Double(r) / Double(rows), cell[1] + height * Double(r + 1) / Double(rows)
                )
                parts.append([x0, y0, x1, y1])
            }
        }
        return parts
    }

    struct Page {
        var body: [UInt8]
        var ids: [String]
        var total: Int
        var end: Bool
    }

    private func fetch(_ category: String, _ cell: [Double], page: Int) async throws -> Page {
        let rect = cell.map { String(format: "%.7f", $0) }.joined(separator: ",")
        let base = options.baseURL.hasSuffix("/") ? String(options.baseURL.dropLast()) : options.baseURL
        let url =
            "\(base)/v2/local/search/category.json?category_group_code=\(category)&rect=\(rect)&page=\(page)&size=15&sort=accuracy"
        let answer = try await fetcher.get(
            url, headers: [("Authorization", "KakaoAK \(options.restAPIKey)")], judge: KakaoAnswer.judge)
        let value = try answer.body.withUnsafeBytes { try JSONValue.parse($0) }
        var ids: [String] = []
        if case .array(let docs)? = value["documents"] {
            for d in docs { if let id = d["id"]?.text { ids.append(id) } }
        }
        let total = Int(value["meta"]?["total_count"]?.text ?? "") ?? ids.count
        let end = value["meta"]?["is_end"] == .bool(true) || ids.count < 15
        return Page(body: answer.body, ids: ids, total: total, end: end)
    }
}

/// What a Kakao Local answer means.
public enum KakaoAnswer {
    public static func judge(_ answer: HTTPAnswer) -> Verdict {
        let retryAfter = SyncFetcher.retryAfter(answer.header("Retry-After"))
        switch answer.status {
        case 200:
            guard (try? answer.body.withUnsafeBytes { try JSONValue.parse($0) })?["documents"] != nil else {
                return .transient("the answer is cut or is not Kakao's JSON", retryAfter: retryAfter)
            }
            return .ok
        case 401:
            return .fatal(
                SyncStop(
                    what: "Kakao refused the key (HTTP 401)",
                    advice: "check the REST API key (developers.kakao.com → the app → App Keys)"))
        case 403:
            return .fatal(
                SyncStop(
                    what: "Kakao refused the request (HTTP 403)",
                    advice:
                        "enable Kakao Map (Local) for the app on developers.kakao.com, or check its IP/domain limits"))
        case 400:
            return .fatal(
                SyncStop(what: "Kakao refused a parameter (HTTP 400)", advice: "check --category and the area"))
        case 429, 408, 500...:
            return .transient("HTTP \(answer.status)", retryAfter: retryAfter)
        default:
            return .fatal(SyncStop(what: "Kakao answered HTTP \(answer.status)", advice: "check --base-url"))
        }
    }
}
