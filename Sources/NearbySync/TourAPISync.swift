import Foundation
import NearbyKit

/// The details a TourAPI sync can fetch for new and changed places, and the operation of each.
public enum TourDetail: String, CaseIterable, Sendable {
    /// `detailCommon2` of the list's service: the common fields again (the cache keeps those it has).
    case common
    /// KorWithService2 `detailWithTour2`: barrier-free facilities.
    case barrierFree = "barrier-free"
    /// KorPetTourService2 `detailPetTour2`: travelling with pets.
    case pet

    /// The service and operation asked, given the list's service.
    func path(service: String) -> String {
        switch self {
        case .common: "\(service)/detailCommon2"
        case .barrierFree: "KorWithService2/detailWithTour2"
        case .pet: "KorPetTourService2/detailPetTour2"
        }
    }
}

/// What `nearby sync tourapi` is asked.
public struct TourAPISyncOptions: Sendable {
    /// Everything before the service name.
    public var baseURL = "https://apis.data.go.kr/B551011"
    /// The list service: KorService2, or a language's (`TourLanguage.service`: EngService2, …).
    public var service = "KorService2"
    public var serviceKey = ""
    /// `contentTypeId`s (empty: every type), one crawl each.
    public var contentTypes: [String] = []
    /// `areaCode`s (empty: everywhere), one crawl each.
    public var areaCodes: [String] = []
    /// Legal-dong codes, 2 digits (`lDongRegnCd`) or 5 (with `lDongSignguCd`), one crawl each.
    public var ldongs: [String] = []
    public var details: [TourDetail] = []
    /// `numOfRows` (TourAPI allows up to 1000).
    public var pageSize = 1000
    /// The daily request budget (`sync_requests`).
    public var maxRequests = 1000
    public var http = SyncHTTPOptions()
    public init() {}

    /// The language `service` publishes (Korean for a service that is not a language's list service).
    public var language: TourLanguage { TourLanguage(service: service) ?? .ko }

    /// `text` with the service key, in every form it is written, and every `serviceKey=` value replaced
    /// by `REDACTED`: for a caller that shows a sync's errors (the server's log and `/healthz`).
    public func redact(_ text: String) -> String { Secrets([serviceKey]).redact(text) }

    /// The secrets a TourAPI request's URL carries: the service key.
    var secrets: Secrets { Secrets([serviceKey]) }

    /// `importer` reading TourAPI's answers in this service's language.
    func importer(_ importer: Importer) -> Importer {
        var importer = importer
        importer.format = .tourapi
        importer.language = language
        return importer
    }

    /// A fetcher whose requests count against the daily budget of TourAPI's requests in `cache`
    /// (`sync_requests`, source `tourapi`, Korea's days): the sync's and the server's fallback share it.
    func fetcher(cache: PlaceCache) -> SyncFetcher {
        SyncFetcher(
            options: http,
            budget: RequestBudget(cache: cache, source: "tourapi", limit: maxRequests, timeZone: SyncDay.korea),
            secrets: secrets)
    }

    /// The checkpoint's key: one per service and scope, so syncing other types or areas starts its own crawl.
    var source: String {
        var parts = ["tourapi", service]
        if !contentTypes.isEmpty { parts.append("contentTypeId=" + contentTypes.joined(separator: ",")) }
        if !areaCodes.isEmpty { parts.append("areaCode=" + areaCodes.joined(separator: ",")) }
        if !ldongs.isEmpty { parts.append("ldong=" + ldongs.joined(separator: ",")) }
        return parts.joined(separator: " ")
    }
}

/// What a sync did. `added`, `updated`, `deleted` and `unchanged` count the listed places against the
/// cache (a place listed twice counts twice); `details` the detail answers fetched.
public struct SyncSummary: Sendable {
    public var added = 0, updated = 0, deleted = 0, unchanged = 0, details = 0, rejected = 0
    /// A language service's code lists fetched (`TourAPISync.codeLists`).
    public var codeLists = 0
    public var requests = 0, retries = 0
    /// Nil when the sync is complete; else why it stopped (the next run continues).
    public var stop: SyncStop?
    public init() {}

    /// The one line `nearby sync` prints on stdout.
    public func json() -> String {
        """
        {"complete":\(stop == nil),"added":\(added),"updated":\(updated),"deleted":\(deleted),\
        "unchanged":\(unchanged),"details":\(details),"codeLists":\(codeLists),"rejected":\(rejected),\
        "requests":\(requests),"retries":\(retries)}
        """
    }
}

/// A sync of one source (`TourAPISync`, `KakaoSync`): what a command runs and reports on.
public protocol SyncRunner: AnyObject {
    /// Told what is going on, for a progress line.
    var onProgress: (String) -> Void { get set }
    /// Told of each retry: the URL (its secrets redacted), why, and the seconds until it is sent again.
    var onRetry: (String, String, Double) -> Void { get set }
    /// Runs the sync to its end or to a stop (in the summary). Throws for a cache that fails.
    func run() async throws -> SyncSummary
}

/// Where a TourAPI sync stands, saved in `sync_state` with each page it applies.
struct TourAPICheckpoint: Codable, Equatable {
    /// The KST day the last complete sync began; the next asks what changed since the day before it.
    var lastSyncDay: String?
    var pass: Pass?

    /// One pass: a full crawl (`areaBasedList2`) or the changes since a day (`areaBasedSyncList2`).
    struct Pass: Codable, Equatable {
        var full: Bool
        var startedDay: String
        var steps: [Step]
        var step = 0
        var page = 1
        /// The list's `totalCount` on the last page fetched: when it changes between pages, places moved
        /// across the page boundary and the page before is fetched again.
        var lastTotal: Int?
        /// After a page fetched again, where to go on.
        var resumePage: Int?
        /// New and changed places of the last page applied whose details are still to be fetched.
        var details: [String] = []
    }

    /// One list paged through: a content type, an area, and for changes a `modifiedtime` prefix.
    struct Step: Codable, Equatable {
        var contentType: String?
        var area: String?
        var ldong: String?
        var modified: String?
    }

    func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    static func decode(_ text: String?) -> TourAPICheckpoint {
        guard let text, let data = text.data(using: .utf8),
            let state = try? JSONDecoder().decode(TourAPICheckpoint.self, from: data)
        else { return TourAPICheckpoint() }
        return state
    }
}

/// `nearby sync tourapi`: a full crawl the first time, then the changes since the last sync; each page
/// applied through the one import path with its checkpoint in one transaction.
public final class TourAPISync: SyncRunner, @unchecked Sendable {
    // @unchecked: a sync runs on one task; its parts are not shared.
    public let options: TourAPISyncOptions
    let cache: PlaceCache
    private let importer: Importer
    let fetcher: SyncFetcher
    private let secrets: Secrets
    /// Told what is going on, for a progress line.
    public var onProgress: (String) -> Void = { _ in }
    /// The clock's day (KST, `yyyyMMdd`); tests may move it.
    public var today: () -> String = { SyncDay.string(Date()) }

    public init(cache: PlaceCache, options: TourAPISyncOptions, importer: Importer) {
        self.cache = cache
        self.options = options
        self.importer = options.importer(importer)
        secrets = options.secrets
        fetcher = options.fetcher(cache: cache)
    }

    public var onRetry: (String, String, Double) -> Void {
        get { fetcher.onRetry }
        set { fetcher.onRetry = newValue }
    }

    /// Runs the sync to its end or to a stop (in the summary). Throws for a cache that fails.
    public func run() async throws -> SyncSummary {
        try await fetcher.run { summary in try await sync(&summary) }
    }

    private var streams: [TourAPICheckpoint.Step] {
        let types: [String?] = options.contentTypes.isEmpty ? [nil] : options.contentTypes
        var places: [(String?, String?)] = options.areaCodes.map { ($0, nil) } + options.ldongs.map { (nil, $0) }
        if places.isEmpty { places = [(nil, nil)] }
        return types.flatMap { t in places.map { TourAPICheckpoint.Step(contentType: t, area: $0.0, ldong: $0.1) } }
    }

    /// Places whose details are fetched and applied in one transaction.
    static let detailsPerTransaction = 25

    /// The changes pass from `since` (a day) through today: a request a day, or a month when the
    /// days are many (`modifiedtime` takes a prefix of `yyyyMMdd`).
    private func changesPass(since: String) -> TourAPICheckpoint.Pass {
        let day = today()
        var prefixes = SyncDay.days(from: since, through: day)
        if prefixes.count > 62 {
            var months: [String] = []
            for d in prefixes where months.last != String(d.prefix(6)) { months.append(String(d.prefix(6))) }
            prefixes = months
        }
        if prefixes.isEmpty { prefixes = [day] }
        let steps = streams.flatMap { s in
            prefixes.map { p in
                var step = s
                step.modified = p
                return step
            }
        }
        return TourAPICheckpoint.Pass(full: false, startedDay: day, steps: steps)
    }

    private func sync(_ summary: inout SyncSummary) async throws {
        // The next list page, sent while the last is applied (`passes`).
        var ahead: SyncFetcher.Ahead?
        do { try await passes(&summary, ahead: &ahead) } catch {
            ahead?.task.cancel()
            throw error
        }
        try await codeLists(&summary)
    }

    private func passes(_ summary: inout SyncSummary, ahead: inout SyncFetcher.Ahead?) async throws {
        try cache.prepareSync()
        let source = options.source
        var state = TourAPICheckpoint.decode(try cache.syncState(source: source))
        if state.pass == nil {
            state.pass =
                state.lastSyncDay.map { changesPass(since: SyncDay.dayBefore($0)) }
                ?? TourAPICheckpoint.Pass(full: true, startedDay: today(), steps: streams)
            try cache.saveSyncState(source: source, state: state.encoded())
        }
        while var pass = state.pass {
            while true {
                // Details first: those of the last page applied, a few places a transaction, so any
                // budget makes progress and a stop keeps what was fetched.
                if !pass.details.isEmpty {
                    let chunk = Array(pass.details.prefix(Self.detailsPerTransaction))
                    var documents: [(name: String, bytes: [UInt8])] = []
                    var fetched = 0
                    var done = 0
                    var stopped: SyncStop?
                    // A stop (budget, quota, failures) keeps the places whose details all arrived.
                    do {
                        for id in chunk {
                            var mine: [(name: String, bytes: [UInt8])] = []
                            for detail in options.details {
                                if let body = try await fetchDetail(detail, id: id) {
                                    mine.append(("\(detail.path(service: options.service)) \(id)", body))
                                }
                            }
                            documents += mine
                            fetched += options.details.count
                            done += 1
                        }
                    } catch let stop as SyncStop {
                        stopped = stop
                    }
                    if done == 0, let stopped { throw stopped }
                    var next = pass
                    next.details.removeFirst(done)
                    var nextState = state
                    nextState.pass = next
                    let encoded = nextState.encoded()
                    let result = try importer.importDocuments(documents, into: cache) {
                        try $0.saveSyncState(source: source, state: encoded)
                    }
                    summary.details += fetched
                    summary.rejected += result.counts.rejected
                    state = nextState
                    pass = next
                    if let stopped { throw stopped }
                    onProgress("tourapi: details: \(pass.details.count) places left on this page")
                    continue
                }
                guard pass.step < pass.steps.count else { break }
                let step = pass.steps[pass.step]
                let page = try await fetchList(step, page: pass.page, full: pass.full, ahead: ahead)
                ahead = nil
                onProgress(
                    "tourapi: \(pass.full ? "areaBasedList2" : "areaBasedSyncList2 \(step.modified ?? "")")\(describe(step)) page \(pass.page) of \(max(1, (page.total + options.pageSize - 1) / options.pageSize)): \(summary.added) added, \(summary.updated) updated, \(summary.deleted) deleted"
                )
                // Where to go on: the next page, or the page before again when the list's total changed
                // (places moved across the boundary), or the next step.
                var next = pass
                next.lastTotal = page.total
                if let resume = pass.resumePage {
                    next.page = resume
                    next.resumePage = nil
                } else if pass.page > 1, let last = pass.lastTotal, last != page.total {
                    next.page = pass.page - 1
                    next.resumePage = pass.page + 1
                } else {
                    next.page = pass.page + 1
                }
                if page.items.isEmpty || (next.page - 1) * options.pageSize >= page.total {
                    next.step += 1
                    next.page = 1
                    next.lastTotal = nil
                    next.resumePage = nil
                }
                // The next page is on its way while this one is applied (when no details come between).
                if options.details.isEmpty, next.step < next.steps.count {
                    ahead = try fetcher.ahead(listURL(next.steps[next.step], page: next.page, full: next.full))
                }
                var documents: [(name: String, bytes: [UInt8])] = page.items.isEmpty ? [] : [(page.name, page.body)]
                var counted = SyncSummary()
                var changed: [String] = []
                var renamed: [String] = []
                let language = options.language
                for item in page.items {
                    let cached = try cache.place(id: language.storedID(item.id))
                    if item.hidden {
                        if cached != nil { counted.deleted += 1 } else { counted.unchanged += 1 }
                        continue
                    }
                    if let old = item.oldID, old != item.id, try cache.place(id: language.storedID(old)) != nil {
                        renamed.append(old)
                        counted.deleted += 1
                    }
                    if cached == nil {
                        counted.added += 1
                        changed.append(item.id)
                    } else if cached?.modified != item.modified {
                        counted.updated += 1
                        changed.append(item.id)
                    } else {
                        counted.unchanged += 1
                    }
                }
                if !renamed.isEmpty { documents.append(("renamed places", Self.deletes(renamed))) }
                next.details = options.details.isEmpty ? [] : changed
                var nextState = state
                nextState.pass = next
                let encoded = nextState.encoded()
                let result = try importer.importDocuments(documents, into: cache) {
                    try $0.saveSyncState(source: source, state: encoded)
                }
                summary.added += counted.added
                summary.updated += counted.updated
                summary.deleted += counted.deleted
                summary.unchanged += counted.unchanged
                summary.rejected += result.counts.rejected
                state = nextState
                pass = next
            }
            // A full crawl is followed by the changes made while it ran (from the day before it began);
            // a changes pass completes the sync.
            if pass.full {
                state.pass = changesPass(since: SyncDay.dayBefore(pass.startedDay))
            } else {
                state.lastSyncDay = pass.startedDay
                state.pass = nil
            }
            try cache.saveSyncState(source: source, state: state.encoded())
        }
    }

    private func describe(_ step: TourAPICheckpoint.Step) -> String {
        var s = ""
        if let t = step.contentType { s += " contentTypeId=\(t)" }
        if let a = step.area { s += " areaCode=\(a)" }
        if let l = step.ldong { s += " ldong=\(l)" }
        return s
    }

    struct ListItem {
        var id: String
        var modified: String?
        var hidden: Bool
        var oldID: String?
    }

    struct ListPage {
        var name: String
        var body: [UInt8]
        var items: [ListItem]
        var total: Int
    }

    /// The URL of an operation (`service/operation`) with `parameters`, the common ones and the key.
    func url(_ path: String, _ parameters: [(String, String)]) -> String {
        Self.url(path, parameters, options: options)
    }

    static func url(_ path: String, _ parameters: [(String, String)], options: TourAPISyncOptions) -> String {
        var query = parameters + [("MobileOS", "ETC"), ("MobileApp", "Nearby"), ("_type", "json")]
        query = query.map { ($0.0, Self.escape($0.1)) }
        query.append(("serviceKey", TourAPIKey.queryValue(options.serviceKey)))
        let base = options.baseURL.hasSuffix("/") ? String(options.baseURL.dropLast()) : options.baseURL
        return base + "/" + path + "?" + query.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    static func escape(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    /// The URL of a list's page.
    private func listURL(_ step: TourAPICheckpoint.Step, page: Int, full: Bool) -> String {
        var parameters = [("numOfRows", String(options.pageSize)), ("pageNo", String(page))]
        if full { parameters.append(("arrange", "C")) }
        if let t = step.contentType {
            // The checkpoint keeps the types as given (Korean numbers); a language's service wants its own.
            parameters.append(("contentTypeId", Int(t).map { String(options.language.serviceContentType($0)) } ?? t))
        }
        if let a = step.area { parameters.append(("areaCode", a)) }
        if let l = step.ldong {
            parameters.append(("lDongRegnCd", String(l.prefix(2))))
            if l.count > 2 { parameters.append(("lDongSignguCd", String(l.dropFirst(2)))) }
        }
        if let m = step.modified { parameters.append(("modifiedtime", m)) }
        return url("\(options.service)/\(full ? "areaBasedList2" : "areaBasedSyncList2")", parameters)
    }

    /// A list's page: fetched now, or received when it is `ahead`'s.
    private func fetchList(
        _ step: TourAPICheckpoint.Step, page: Int, full: Bool, ahead: SyncFetcher.Ahead?
    ) async throws -> ListPage {
        let operation = "\(options.service)/\(full ? "areaBasedList2" : "areaBasedSyncList2")"
        let answer = try await fetcher.get(
            listURL(step, page: page, full: full), ahead: ahead, judge: TourAPIAnswer.judge)
        let value = try answer.body.withUnsafeBytes { try JSONValue.parse($0) }
        let body = value["response"]?["body"]
        var items: [ListItem] = []
        for item in Self.items(body) {
            guard let id = item["contentid"]?.text, !id.isEmpty else { continue }
            let old = item["oldContentid"]?.text ?? item["oldContentId"]?.text
            items.append(
                ListItem(
                    id: id, modified: item["modifiedtime"]?.text, hidden: item["showflag"]?.text == "0",
                    oldID: old?.isEmpty == false ? old : nil))
        }
        let total = Int(body?["totalCount"]?.text ?? "") ?? items.count
        let name = secrets.redact("\(operation) page \(page)\(describe(step))")
        return ListPage(name: name, body: answer.body, items: items, total: total)
    }

    /// The items of an answer's `body`: TourAPI writes one item as an object, none as `"items": ""`.
    static func items(_ body: JSONValue?) -> [JSONValue] {
        switch body?["items"]?["item"] {
        case .array(let a)?: a
        case let one? where one != .string(""): [one]
        default: []
        }
    }

    /// A detail answer with at least one item, or nil when the service has none for the place.
    private func fetchDetail(_ detail: TourDetail, id: String) async throws -> [UInt8]? {
        var parameters = [("contentId", id)]
        if detail == .common { parameters += [("numOfRows", "1"), ("pageNo", "1")] }
        let answer = try await fetcher.get(
            url(detail.path(service: options.service), parameters), judge: TourAPIAnswer.judge)
        let value = try answer.body.withUnsafeBytes { try JSONValue.parse($0) }
        switch value["response"]?["body"]?["items"]?["item"] {
        case .array(let a)? where !a.isEmpty: return answer.body
        case .object?: return answer.body
        default: return nil
        }
    }

    /// A sync-list page that withdraws `ids` (showflag 0): how a renamed place's old id leaves the cache
    /// through the import path.
    static func deletes(_ ids: [String]) -> [UInt8] {
        var out = Array(#"{"response":{"header":{"resultCode":"0000","resultMsg":"OK"},"body":{"items":{"item":["#.utf8)
        for (i, id) in ids.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out += Array(#"{"contentid":"#.utf8)
            JSONWriter.appendString(id, to: &out)
            out += Array(#","showflag":"0"}"#.utf8)
        }
        out += Array("]}}}}".utf8)
        return out
    }
}
