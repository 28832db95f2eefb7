import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NearbyKit

/// How a sync talks to an API: timeouts, retries and the request budget.
public struct SyncHTTPOptions: Sendable {
    /// Seconds to open a connection.
    public var connectTimeout: Double = 10
    /// Seconds without a byte of the answer before the request is abandoned (and retried).
    public var readTimeout: Double = 60
    /// Retries of one request after a transient failure (5xx, 429, a timeout, a cut body, code 99).
    public var retries = 5
    /// The first retry's delay in seconds; each next one doubles, with jitter (`retryDelay(after:)`).
    public var retryDelay: Double = 3
    /// The longest `Retry-After` honoured, in seconds: a longer one stops the sync instead.
    public var maxRetryAfter: Double = 600
    /// The largest answer read.
    public var maxBodyBytes = 64 << 20
    public init() {}

    /// The delay before retry `attempt` (1 for the first): `retryDelay` × 2^(attempt−1), of which a
    /// random half is dropped (jitter), so clients that failed together do not retry together.
    public func retryDelay(after attempt: Int) -> Double {
        let full = retryDelay * Double(1 << min(attempt - 1, 20))
        return full / 2 + Double.random(in: 0...(full / 2))
    }
}

/// One answer as it arrived.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }
}

/// What an answer means for the sync (`TourAPIAnswer.judge`, `KakaoAnswer.judge`).
public enum Verdict: Sendable {
    /// A usable answer.
    case ok
    /// Worth asking again: the reason, and the server's `Retry-After` in seconds when it gave one.
    case transient(String, retryAfter: Double?)
    /// Asking again will not help: the sync stops with this.
    case fatal(SyncStop)
}

/// Why a sync stopped before it was complete: what happened and what to do. The checkpoint of the
/// last applied page is in the cache, so the next run continues from there.
public struct SyncStop: NearbyError {
    public var what: String
    public var advice: String
    public init(what: String, advice: String) {
        self.what = what
        self.advice = advice
    }
    public var description: String { "\(what); \(advice)" }
    public var kind: ErrorKind { .unavailable }
}

/// Counts what a run sent: requests (each attempt) and retries.
public struct RequestTally: Sendable {
    public var requests = 0
    public var retries = 0
    public init() {}
}

/// GET requests with timeouts, retries with backoff and `Retry-After`, a request budget kept in the
/// cache, and every URL shown with its secret as `REDACTED`.
public final class SyncFetcher: @unchecked Sendable {
    // @unchecked: used by one sync task at a time; `tally` is only touched from that task.
    public let options: SyncHTTPOptions
    private let client: HTTPClient
    private let budget: RequestBudget
    private let secrets: Secrets
    public private(set) var tally = RequestTally()
    /// Told before each retry: the redacted URL, the reason, the delay in seconds.
    public var onRetry: (String, String, Double) -> Void = { _, _, _ in }

    init(options: SyncHTTPOptions, budget: RequestBudget, secrets: Secrets) {
        self.options = options
        self.budget = budget
        self.secrets = secrets
        var configuration = HTTPClient.Configuration(
            timeout: .init(
                connect: .nanoseconds(Int64(options.connectTimeout * 1e9)),
                read: .nanoseconds(Int64(options.readTimeout * 1e9))))
        configuration.decompression = .enabled(limit: .ratio(50))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// A sync's whole run: `body` to its end or to a stop (kept in the summary, scrubbed of secrets),
    /// then the client shut down and the requests and retries counted into the summary. Any other
    /// error is thrown, after the shutdown.
    func run(_ body: (inout SyncSummary) async throws -> Void) async throws -> SyncSummary {
        var summary = SyncSummary()
        do {
            try await body(&summary)
        } catch let stop as SyncStop {
            summary.stop = secrets.scrub(stop)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try? await client.shutdown()
        summary.requests = tally.requests
        summary.retries = tally.retries
        return summary
    }

    /// Fetches `url` until `judge` accepts the answer, retrying transient failures; throws `SyncStop`
    /// for a fatal answer, when the retries are spent, or when the budget is.
    ///
    /// `ahead`, when it is `url`'s, is its first attempt (`ahead(_:headers:)`), already sent and counted.
    func get(
        _ url: String, headers: [(String, String)] = [], ahead: Ahead? = nil, judge: (HTTPAnswer) -> Verdict
    ) async throws -> HTTPAnswer {
        var attempt = 0
        var sent = ahead?.url == url ? ahead : nil
        if sent == nil { ahead?.task.cancel() }
        while true {
            if sent == nil {
                try budget.spend()
                tally.requests += 1
            }
            let reason: String
            var retryAfter: Double?
            do {
                let answer: HTTPAnswer
                if let first = sent {
                    sent = nil
                    answer = try await first.task.value
                } else {
                    answer = try await fetch(url, headers: headers)
                }
                switch judge(answer) {
                case .ok: return answer
                case .fatal(let stop): throw secrets.scrub(stop)
                case .transient(let why, let after):
                    reason = why
                    retryAfter = after
                }
            } catch let stop as SyncStop {
                throw stop
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                reason = Self.describe(error)
            }
            attempt += 1
            let shown = secrets.redact(url)
            guard attempt <= options.retries else {
                throw SyncStop(
                    what: secrets.scrub("\(shown): \(reason), \(attempt) times"),
                    advice: "the service is failing; try again later (the next run continues where this one stopped)")
            }
            if let retryAfter, retryAfter > options.maxRetryAfter {
                throw SyncStop(
                    what: secrets.scrub("\(shown): \(reason), and the server asks to wait \(Int(retryAfter)) s"),
                    advice: "run again after that (the next run continues where this one stopped)")
            }
            let delay = max(retryAfter ?? 0, options.retryDelay(after: attempt))
            onRetry(shown, secrets.scrub(reason), delay)
            tally.retries += 1
            try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
        }
    }

    /// A request sent ahead of its turn (`ahead(_:headers:)`).
    struct Ahead {
        var url: String
        var task: Task<HTTPAnswer, any Error>
    }

    /// Sends `url`'s first attempt now, to be received by `get(_:ahead:)` after other work (a page is
    /// applied while the next is on its way): the request is counted against the budget here, on the
    /// caller's task, so the cache is written by that task only. Nil when the budget is spent (`get`
    /// then stops as it would). Retries, if it fails, are `get`'s.
    func ahead(_ url: String, headers: [(String, String)] = []) throws -> Ahead? {
        do { try budget.spend() } catch is SyncStop { return nil }
        tally.requests += 1
        return Ahead(url: url, task: Task { try await self.fetch(url, headers: headers) })
    }

    private func fetch(_ url: String, headers: [(String, String)]) async throws -> HTTPAnswer {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "nearby-sync")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        // The read timeout covers a stalled body too: the whole answer must arrive within the
        // connect and read timeouts plus a generous allowance for a large body.
        let deadline = options.connectTimeout + options.readTimeout * 4
        let response = try await client.execute(request, timeout: .nanoseconds(Int64(deadline * 1e9)))
        let body = try await response.body.collect(upTo: options.maxBodyBytes)
        return HTTPAnswer(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: Array(buffer: body))
    }

    /// A transport failure in a few words.
    static func describe(_ error: any Error) -> String {
        if let e = error as? HTTPClientError {
            switch e {
            case .connectTimeout: return "connect timeout"
            case .readTimeout: return "read timeout"
            case .deadlineExceeded: return "the answer did not arrive in time"
            case .remoteConnectionClosed: return "the connection was closed before the answer ended"
            default: return "HTTP client error: \(e)"
            }
        }
        if let e = error as? IOError { return "connection error: \(e.description)" }
        if let e = error as? HTTPParserError { return "the answer was cut or malformed (\(e))" }
        if error is NIOTooManyBytesError { return "the answer is larger than its limit" }
        return "\(error)"
    }

    /// Parses a `Retry-After` value: seconds, or an HTTP date.
    public static func retryAfter(_ value: String?) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSinceNow)
    }
}

/// The secrets of a run (service keys), as given and as they appear in URLs, and what hides them.
struct Secrets: Sendable {
    private var forms: [String] = []

    init(_ keys: [String]) {
        for key in keys where !key.isEmpty {
            forms.append(key)
            let encoded = TourAPIKey.queryValue(key)
            if encoded != key { forms.append(encoded) }
            if let decoded = key.removingPercentEncoding, decoded != key { forms.append(decoded) }
        }
        forms.sort { $0.count > $1.count }
    }

    /// `text` with every `serviceKey=` value, and every form of every secret (of 6 characters or more:
    /// a shorter one would blot out ordinary words), replaced by `REDACTED`.
    func redact(_ text: String) -> String {
        var text = text.replacingOccurrences(
            of: "serviceKey=[^&\\s\"]*", with: "serviceKey=REDACTED", options: .regularExpression)
        for form in forms where form.count >= 6 { text = text.replacingOccurrences(of: form, with: "REDACTED") }
        return text
    }

    func scrub(_ stop: SyncStop) -> SyncStop {
        SyncStop(what: redact(stop.what), advice: redact(stop.advice))
    }

    func scrub(_ text: String) -> String { redact(text) }
}

/// TourAPI's service key in a query string.
public enum TourAPIKey {
    /// data.go.kr shows each key twice: "Decoding" (raw, with `+`, `/`, `=`) and "Encoding" (already
    /// %-encoded). A key with a `%` is taken as encoded and sent as it is; any other is %-encoded.
    public static func queryValue(_ key: String) -> String {
        if key.contains("%") { return key }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return key.addingPercentEncoding(withAllowedCharacters: allowed) ?? key
    }
}

/// The daily request budget of a source, counted in the cache (`sync_requests`): each request is
/// counted before it is sent; when today's count has reached the budget, `spend` stops the sync.
final class RequestBudget: @unchecked Sendable {
    // @unchecked: used by one sync task at a time.
    private let cache: PlaceCache
    private let source: String
    private let limit: Int
    private let timeZone: TimeZone

    init(cache: PlaceCache, source: String, limit: Int, timeZone: TimeZone) {
        self.cache = cache
        self.source = source
        self.limit = limit
        self.timeZone = timeZone
    }

    /// Today in the API's time zone, `yyyyMMdd`.
    var today: String { SyncDay.string(Date(), timeZone: timeZone) }

    /// Requests counted today.
    func used() throws -> Int { try cache.syncRequests(day: today, source: source) }

    func spend() throws {
        let day = today
        let used = try cache.syncRequests(day: day, source: source)
        guard used < limit else {
            throw SyncStop(
                what: "the request budget is spent: \(used) of --max-requests \(limit) requests used today (\(day))",
                advice:
                    "run again tomorrow, or with a larger --max-requests if the key's quota allows; the next run continues where this one stopped"
            )
        }
        _ = try cache.countSyncRequest(day: day, source: source)
    }
}

/// Days as the APIs write them.
public enum SyncDay {
    /// TourAPI's days and quota are Korea's (KST, UTC+9, no daylight saving).
    public static let korea = TimeZone(secondsFromGMT: 9 * 3600)!

    public static func string(_ date: Date, timeZone: TimeZone = korea) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d%02d%02d", c.year!, c.month!, c.day!)
    }

    /// The date of a `yyyyMMdd` day at noon in `timeZone`.
    public static func date(_ day: String, timeZone: TimeZone = korea) -> Date? {
        guard day.count == 8, let n = Int(day) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(from: DateComponents(year: n / 10000, month: n / 100 % 100, day: n % 100, hour: 12))
    }

    /// The days from `first` to `last` inclusive, `yyyyMMdd`.
    public static func days(from first: String, through last: String) -> [String] {
        guard let start = date(first), let end = date(last), start <= end else { return [] }
        var out: [String] = []
        var d = start
        while d <= end {
            out.append(string(d))
            d += 86400
        }
        return out
    }

    /// The day before `day`.
    public static func dayBefore(_ day: String) -> String {
        guard let d = date(day) else { return day }
        return string(d - 86400)
    }
}
