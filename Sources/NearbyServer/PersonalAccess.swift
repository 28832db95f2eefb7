import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NearbyKit
import NearbyPostGIS

/// The server's request context: Hummingbird's, the user a bearer token named (`identity`, set by
/// `BearerAuthenticator` on `/v1/me/…`), and the client's address (read only when a token is checked).
struct NearbyRequestContext: AuthRequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    var identity: PersonalUser?
    private let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    var remoteAddress: SocketAddress? { channel.remoteAddress }

    /// The address failed authentications are counted by (`AuthFailures`).
    var client: String { remoteAddress?.ipAddress ?? "unknown" }
}

/// A user a valid token named.
struct PersonalUser: Sendable, Equatable {
    let name: String
}

/// The server's side of the personal layer: who a token names (`TokenCheck`), failed attempts per
/// address (`AuthFailures`), connections for reads (`ReadConnections`) and the one writer
/// (`PersonalWriter`). The personal tables are those of what the server answers from: the cache file, or
/// the PostgreSQL database of `--engine postgis` (its `008_personal.sql`), both `PersonalStorage`s.
final class PersonalAccess: Sendable {
    let path: String
    let tokens: TokenCheck
    let failures: AuthFailures
    let readers: ReadConnections
    let writer: PersonalWriter
    /// Users' data kept between queries while the store's `itemsVersion` holds (`UserDataCache`).
    let userData: UserDataCache
    let logger: Logger

    init(engine: LiveEngine, options: ServerOptions, logger: Logger = Logger(label: "nearby.personal")) {
        path = engine.path
        let open = Self.opener(engine)
        tokens = TokenCheck(open: open)
        failures = AuthFailures(limit: options.authFailureLimit, window: options.authFailureWindow)
        readers = ReadConnections(open: open)
        userData = UserDataCache(open: open)
        writer = PersonalWriter(open: open, historyLength: options.historyLength)
        self.logger = logger
    }

    /// Opens a connection to the personal tables of `engine`'s data: a reader for the cache (a writer
    /// with `writable`), or a connection to the PostGIS database (whose schema a reader checks only).
    static func opener(_ engine: LiveEngine) -> StorageOpener {
        let path = engine.path
        if engine.isPostGIS { return { _ in try PostGISStore(url: path, readOnly: true) } }
        return { writable in try PlaceCache(path: path, readOnly: !writable) }
    }

    /// The one answer to a missing, malformed, unknown or revoked token: it does not say which, nor
    /// whether a user exists, and never repeats the token.
    static var unauthorized: APIError {
        var e = APIError(.unauthorized, "personal data needs a valid token: Authorization: Bearer TOKEN")
        e.headers[.wwwAuthenticate] = "Bearer realm=\"nearby\""
        return e
    }

    /// The user the request's `Authorization: Bearer TOKEN` names, or nil when it has no bearer token.
    /// Throws the 401 for a token that names no active user (and counts the failure against `client`),
    /// 429 while `client` has failed too often.
    func user(_ request: Request, client: String) throws -> PersonalUser? {
        guard let token = Self.bearerToken(request.headers) else { return nil }
        if let wait = failures.retryAfter(client) {
            var e = APIError(
                .tooManyRequests, "too many failed authentications from this address; retry after \(wait) s")
            e.headers[.retryAfter] = String(wait)
            throw e
        }
        guard let name = try tokens.user(forToken: token) else {
            failures.failed(client)
            throw Self.unauthorized
        }
        return PersonalUser(name: name)
    }

    /// The token of `Authorization: Bearer TOKEN` (the scheme in any case), or nil.
    static func bearerToken(_ headers: HTTPFields) -> String? {
        if let bearer = headers.bearer { return trimmed(bearer.token[...]) }
        guard let header = headers[.authorization], header.count > 7, header.prefix(7).lowercased() == "bearer "
        else { return nil }
        return trimmed(header.dropFirst(7))
    }

    /// `s` without the spaces and tabs around it (a token is ASCII; Foundation's trimming bridges
    /// through NSString on every personal request).
    private static func trimmed(_ s: Substring) -> String {
        var s = s
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }

    /// `query` with the data of the user the request's bearer token names (`/v1/places`, `/v1/clusters`
    /// with a personal parameter). Any refusal is `unauthorized`; the data is read from the cache as
    /// committed now, so a write (over `/v1/me`, by a command, a restore) is seen by the next query; the
    /// data is kept between queries while nothing was committed (`UserDataCache`).
    func personalized(_ query: PlaceQuery, _ request: Request, client: String) throws -> PlaceQuery {
        guard let user = try user(request, client: client) else { throw Self.unauthorized }
        var q = query
        q.personal.user = user.name
        let load = { (name: String) in try self.readers.with { try $0.personalData(user: name) } }
        let data = try userData.data(user: user.name, load: load)
        q.personalData = PersonalDataRef(data)
        return q
    }

    /// The user whose search history `query` (already `personalized` when it reads personal data)
    /// goes to: the bearer token's, when the query is a search (`PersonalLayer.recordsSearch`: a keyword,
    /// no `no-history`, the first page). Nil without a token, so an anonymous search records nothing
    /// and reads no header but this one; a token that names no active user is the one 401.
    func searcher(of query: PlaceQuery, _ request: Request, client: String) throws -> String? {
        guard PersonalLayer.recordsSearch(query) else { return nil }
        if query.personalData != nil { return query.personal.user }
        return try user(request, client: client)?.name
    }

    /// Records `query`'s keyword in `user`'s history through the one writer, committed before the
    /// answer goes out (the user's next `/v1/me/history` shows it). A failure is logged, never the
    /// answer's: the search was answered.
    func recordSearch(of query: PlaceQuery, user: String) async {
        var q = query
        q.personal.user = user
        let search = q
        do { try await writer.write { try $0.recordSearch(of: search) } } catch {
            logger.warning("the search history was not updated", metadata: ["error": "\(error)"])
        }
    }
}

/// Authenticates `/v1/me/…` through hummingbird-auth: the bearer token's user becomes the context's
/// identity; without one the request gets the 401 (`RequireUser`).
struct BearerAuthenticator: AuthenticatorMiddleware {
    typealias Context = NearbyRequestContext
    let access: PersonalAccess

    func authenticate(request: Request, context: NearbyRequestContext) async throws -> PersonalUser? {
        try access.user(request, client: context.client)
    }
}

/// Refuses a request no token authenticated, with the one 401 and `WWW-Authenticate: Bearer`.
struct RequireUser: RouterMiddleware {
    typealias Context = NearbyRequestContext

    func handle(
        _ request: Request, context: NearbyRequestContext,
        next: (Request, NearbyRequestContext) async throws -> Response
    ) async throws -> Response {
        guard context.identity != nil else { throw PersonalAccess.unauthorized }
        return try await next(request, context)
    }
}

/// Opens a connection to the personal tables; `true`: one that writes.
typealias StorageOpener = @Sendable (_ writable: Bool) throws -> any PersonalStorage

/// Who a token names: the active token hashes as a `UserTokens.Table`, reread when the store's
/// `tokenVersion` says users or tokens may have changed since (a command, this server's writer, another
/// server on the same database). The check compares the token's SHA-256 with every active hash, in
/// constant time each.
final class TokenCheck: @unchecked Sendable {
    let open: StorageOpener
    private let lock = NIOLock()
    private var store: (any PersonalStorage)?
    private var version: Int64 = .min
    private var table = UserTokens.Table([])

    init(open: @escaping StorageOpener) { self.open = open }

    func user(forToken token: String) throws -> String? {
        try lock.withLock {
            let cache = try self.store ?? open(false)
            self.store = cache
            let now = try cache.tokenVersion()
            if now != version {
                table = UserTokens.Table(try cache.activeTokenHashes())
                version = now
            }
            return table.user(forToken: token)
        }
    }
}

/// Users' data as their last queries read it, kept while the store's `itemsVersion` (on a connection of
/// its own) holds: a user's next query reuses the data and the rows it was mapped onto
/// (`PersonalData.rows`) instead of reading and mapping them again. The cache's version is SQLite's
/// `data_version`, which any commit of another connection moves (this server's writer, a command, a
/// restore, an import); PostgreSQL's is `user_items_version`, which a trigger bumps in the transaction
/// of every change of items, whichever server or command made it. Either way a write is seen by the
/// next query.
final class UserDataCache: @unchecked Sendable {
    let open: StorageOpener
    /// Users kept at most; when full, all are dropped.
    let capacity: Int
    private let lock = NIOLock()
    private var store: (any PersonalStorage)?
    private var version: Int64 = .min
    private var entries: [String: PersonalData] = [:]

    init(open: @escaping StorageOpener, capacity: Int = 64) {
        self.open = open
        self.capacity = capacity
    }

    /// `user`'s data: kept, or read by `load` (outside the lock) and kept when nothing was committed
    /// between the check and the read's end.
    func data(user: String, load: (String) throws -> PersonalData) throws -> PersonalData {
        let (checked, kept): (Int64, PersonalData?) = try lock.withLock {
            let store = try self.store ?? open(false)
            self.store = store
            let now = try store.itemsVersion()
            if now != version {
                entries.removeAll()
                version = now
            }
            return (now, entries[user])
        }
        if let kept { return kept }
        let data = try load(user)
        lock.withLock {
            // A commit since the check may or may not be in `data`: keep it only when there was none.
            guard (try? store?.itemsVersion()) == checked, version == checked else { return }
            if entries.count >= capacity { entries.removeAll() }
            entries[user] = data
        }
        return data
    }
}

/// Failed authentications per client address: after `limit` failures within `window`, the address
/// gets 429 (with `Retry-After`) without its token being checked until the window ends. At most
/// `capacity` addresses are remembered: when full, ended windows go first, then the oldest.
final class AuthFailures: @unchecked Sendable {
    let limit: Int
    let window: Duration
    let capacity: Int
    private let lock = NIOLock()
    private var entries: [String: (count: Int, start: ContinuousClock.Instant)] = [:]

    init(limit: Int, window: Duration, capacity: Int = 10_000) {
        self.limit = limit
        self.window = window
        self.capacity = capacity
    }

    /// Seconds until `client` may try again, or nil when it may now.
    func retryAfter(_ client: String, now: ContinuousClock.Instant = .now) -> Int? {
        lock.withLock {
            guard let e = entries[client], e.count >= limit else { return nil }
            let left = e.start + window - now
            guard left > .zero else {
                entries[client] = nil
                return nil
            }
            return max(
                1, Int((Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18).rounded(.up)))
        }
    }

    func failed(_ client: String, now: ContinuousClock.Instant = .now) {
        lock.withLock {
            if let e = entries[client], now - e.start < window {
                entries[client] = (e.count + 1, e.start)
                return
            }
            if entries[client] == nil && entries.count >= capacity {
                entries = entries.filter { now - $0.value.start < window }
                if entries.count >= capacity, let oldest = entries.min(by: { $0.value.start < $1.value.start }) {
                    entries[oldest.key] = nil
                }
            }
            entries[client] = (1, now)
        }
    }

    var count: Int { lock.withLock { entries.count } }
}

/// Connections for personal reads, kept between requests (a few at most): readers never wait for the
/// writer (the cache file is in WAL mode; PostgreSQL's readers take no locks), and each read sees what
/// was committed when it began.
final class ReadConnections: @unchecked Sendable {
    let open: StorageOpener
    private let lock = NIOLock()
    private var idle: [any PersonalStorage] = []
    private let keep = 8

    init(open: @escaping StorageOpener) { self.open = open }

    func with<T>(_ body: (any PersonalStorage) throws -> T) throws -> T {
        let cache = try lock.withLock { idle.popLast() } ?? open(false)
        defer { lock.withLock { if idle.count < keep { idle.append(cache) } } }
        return try body(cache)
    }
}

/// The server's one writer of personal data: a writable connection used by one write at a time, off
/// the event loops (NIO's thread pool), so concurrent writes each land in turn. A write's check of an
/// entity tag and the write itself are one transaction of the store (`PersonalStorage.conditionalWrite`),
/// whoever else writes.
final class PersonalWriter: @unchecked Sendable {
    let open: StorageOpener
    /// Searches a user's history keeps (`ServerOptions.historyLength`).
    let historyLength: Int
    private let lock = NIOLock()
    private var store: (any PersonalStorage)?

    init(open: @escaping StorageOpener, historyLength: Int = PersonalLayer.defaultHistoryLength) {
        self.open = open
        self.historyLength = historyLength
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (PersonalLayer) throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive { [self] in
            try lock.withLock {
                let store = try self.store ?? open(true)
                self.store = store
                return try body(PersonalLayer(store: store, historyLength: historyLength))
            }
        }
    }
}
