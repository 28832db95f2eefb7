import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A stand-in for TourAPI (KorService2, KorWithService2, KorPetTourService2, and the language services
/// such as EngService2, each from a catalog of its own: `languages`) and Kakao Local on a
/// loopback port, for the sync's tests and `scripts/bench-sync.sh`: real HTTP/1.1 over a socket, the
/// public services' answer shapes, and failures on demand.
///
/// It serves what `catalog` holds: `areaBasedList2` (shown places, newest `modifiedtime` first, ties by
/// content id), `locationBasedList2` (shown places within `radius` metres of `mapX`/`mapY`, nearest first,
/// with `dist`), `areaBasedSyncList2` (places whose `modifiedtime` starts with `modifiedtime`, hidden ones
/// with `showflag` 0, renamed ones with `oldContentid`), `detailCommon2`, `detailWithTour2`,
/// `detailPetTour2`, the code lists (`areaCode2`, `categoryCode2`, `ldongCode2`, `lclsSystmCode2`, from
/// `ReplayCatalog.codeLists`, with the parameters that walk their trees), and Kakao's `/v2/local/search/category.json` (`rect`, at most 45 documents a query
/// in pages of up to 15, `meta.total_count` the whole count). A key, when set, is checked: a wrong one
/// gets the gateway's XML with `returnReasonCode` 30.
///
/// `GET /replay/churn?count=N` changes N of KorService2's places as a day of publishing does
/// (`ReplayCatalog.churn`: changed, hidden, added, dated now) and answers what it did as JSON: how
/// `scripts/bench-sync.sh` makes changes in a `nearby replay` process for the next sync to fetch.
///
/// Failures: `fail` queues failures for the next requests (one each, in order); `quota` answers code 22
/// once that many requests were answered; `onRequest` runs before each answer (a test changes the
/// catalog there, as data changes while a crawl pages through it).
public final class ReplayServer: @unchecked Sendable {
    // @unchecked: every mutable field is behind `lock`.

    /// A failure the next request gets instead of its answer.
    public enum Failure: Sendable, Equatable {
        /// This status with a short text body, and a `Retry-After` when given.
        case status(Int, retryAfter: String?)
        /// The right answer's headers and half its body, then the connection is closed.
        case cutBody
        /// A status 200 JSON envelope whose `response.header.resultCode` is this code.
        case resultCode(String)
        /// The data.go.kr gateway's XML (`OpenAPI_ServiceResponse`) with this `returnReasonCode`.
        case gateway(String, status: Int)
        /// `{"resultCode":…,"resultMsg":…}` with status 200.
        case flat(String)
        /// A plain-text "Unexpected errors" page with status 200.
        case unexpected
        /// The answer after this many seconds.
        case stall(Double)
    }

    private let lock = NSLock()
    private var catalogStorage: ReplayCatalog
    /// The language services' catalogs by service name (`EngService2`); their list and detail operations
    /// answer as KorService2's do, from these places.
    private var languageStorage: [String: ReplayCatalog]
    private var queued: [Failure] = []
    private var answered = 0
    private var listener: Int32 = -1
    private var connections: Set<Int32> = []
    private var stopped = false
    private var log: [String] = []
    /// The TourAPI service key expected (raw, as the Decoding key), or nil to take any.
    public let serviceKey: String?
    /// Kakao's REST API key expected in `Authorization: KakaoAK …`, or nil to take any.
    public let kakaoKey: String?
    /// The loopback port it listens on.
    public private(set) var port = 0

    public init(
        catalog: ReplayCatalog, languages: [String: ReplayCatalog] = [:], serviceKey: String? = nil,
        kakaoKey: String? = nil
    ) {
        catalogStorage = catalog
        languageStorage = languages
        self.serviceKey = serviceKey
        self.kakaoKey = kakaoKey
    }

    /// `http://127.0.0.1:PORT/B551011`, the TourAPI base URL for `--base-url`.
    public var tourBaseURL: String { "http://127.0.0.1:\(port)/B551011" }
    /// `http://127.0.0.1:PORT`, Kakao's base URL for `--base-url`.
    public var kakaoBaseURL: String { "http://127.0.0.1:\(port)" }

    /// Answers code 22 (the gateway's XML) after this many requests were answered.
    public var quota: Int? {
        get { lock.withLock { quotaStorage } }
        set { lock.withLock { quotaStorage = newValue } }
    }
    private var quotaStorage: Int?

    /// Runs before each request is answered, with its number (1-based) and path.
    public var onRequest: (@Sendable (Int, String) -> Void)? {
        get { lock.withLock { onRequestStorage } }
        set { lock.withLock { onRequestStorage = newValue } }
    }
    private var onRequestStorage: (@Sendable (Int, String) -> Void)?

    /// The next requests get these failures, one each, in order.
    public func fail(_ failures: [Failure]) { lock.withLock { queued += failures } }

    /// Requests received, each as its path and query with the service key left out.
    public var requests: [String] { lock.withLock { log } }

    public func resetRequests() { lock.withLock { log = [] } }

    public var catalog: ReplayCatalog { lock.withLock { catalogStorage } }

    /// Changes the catalog between requests.
    public func mutate(_ body: (inout ReplayCatalog) -> Void) { lock.withLock { body(&catalogStorage) } }

    /// A language service's catalog (`EngService2`; empty when it has none).
    public func catalog(of service: String) -> ReplayCatalog {
        lock.withLock { languageStorage[service] ?? ReplayCatalog() }
    }

    /// Changes a language service's catalog between requests (made when it has none).
    public func mutate(service: String, _ body: (inout ReplayCatalog) -> Void) {
        lock.withLock { body(&languageStorage[service, default: ReplayCatalog()]) }
    }

    /// Listens on 127.0.0.1 at `port` (0: a free one) and answers on threads of its own. Throws when it
    /// cannot listen.
    public func start(port wanted: Int = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ReplayError("socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(wanted).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ReplayError("cannot listen on 127.0.0.1:\(wanted): \(reason)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let thread = Thread { [self] in acceptLoop(fd) }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Stops listening and closes every connection.
    public func stop() {
        let (fd, open) = lock.withLock { () -> (Int32, Set<Int32>) in
            stopped = true
            return (listener, connections)
        }
        if fd >= 0 {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
        for c in open { shutdown(c, Int32(SHUT_RDWR)) }
    }

    deinit { stop() }

    private func acceptLoop(_ fd: Int32) {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let keep = lock.withLock { () -> Bool in
                if stopped { return false }
                connections.insert(client)
                return true
            }
            guard keep else {
                close(client)
                return
            }
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let thread = Thread { [self] in serve(client) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer {
            lock.withLock { _ = connections.remove(fd) }
            close(fd)
        }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            var headEnd: Int?
            while true {
                if let end = Self.find(Array("\r\n\r\n".utf8), in: buffer) {
                    headEnd = end
                    break
                }
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { return }
                buffer += chunk[0..<n]
                if buffer.count > 1 << 20 { return }
            }
            guard let end = headEnd else { return }
            let head = String(decoding: buffer[0..<end], as: UTF8.self)
            buffer.removeFirst(end + 4)
            let lines = head.components(separatedBy: "\r\n")
            let parts = lines[0].split(separator: " ")
            guard parts.count >= 2 else { return }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                    in: .whitespaces)
            }
            let request = ReplayRequest(target: String(parts[1]), headers: headers)
            let keepAlive = headers["connection"]?.lowercased() != "close"
            guard respond(to: request, on: fd, keepAlive: keepAlive), keepAlive else { return }
        }
    }

    /// Writes the answer; false when the connection must close.
    private func respond(to request: ReplayRequest, on fd: Int32, keepAlive: Bool) -> Bool {
        let (number, hook, failure, overQuota) = lock.withLock {
            () -> (Int, (@Sendable (Int, String) -> Void)?, Failure?, Bool) in
            answered += 1
            var shown = request.path
            let kept = request.query.filter { $0.0 != "serviceKey" }.map { "\($0.0)=\($0.1)" }
            if !kept.isEmpty { shown += "?" + kept.joined(separator: "&") }
            log.append(shown)
            let failure = queued.isEmpty ? nil : queued.removeFirst()
            return (answered, onRequestStorage, failure, quotaStorage.map { answered > $0 } ?? false)
        }
        hook?(number, request.path)
        if overQuota, failure == nil {
            return write(fd, Self.gateway("22"), status: 200, type: "text/xml;charset=UTF-8", keepAlive: keepAlive)
        }
        var answer: (body: [UInt8], status: Int, type: String, extra: [(String, String)])
        switch failure {
        case .status(let status, let retryAfter)?:
            let extra = retryAfter.map { [("Retry-After", $0)] } ?? []
            answer = (Array("HTTP \(status)".utf8), status, "text/plain", extra)
        case .resultCode(let code)?:
            answer = (Self.envelope(code: code, message: "ERROR"), 200, Self.json, [])
        case .gateway(let code, let status)?:
            answer = (Self.gateway(code), status, "text/xml;charset=UTF-8", [])
        case .flat(let code)?:
            answer = (Array(#"{"resultCode":"\#(code)","resultMsg":"ERROR"}"#.utf8), 200, Self.json, [])
        case .unexpected?:
            answer = (Array("Unexpected errors".utf8), 200, "text/plain", [])
        case .stall(let seconds)?:
            Thread.sleep(forTimeInterval: seconds)
            answer = route(request)
        case .cutBody?:
            answer = route(request)
            let body = answer.body
            let head = "HTTP/1.1 200 OK\r\nContent-Type: \(answer.type)\r\nContent-Length: \(body.count)\r\n\r\n"
            _ = Self.send(fd, Array(head.utf8) + body.prefix(body.count / 2))
            return false
        case nil:
            answer = route(request)
        }
        return write(
            fd, answer.body, status: answer.status, type: answer.type, extra: answer.extra, keepAlive: keepAlive)
    }

    private func write(
        _ fd: Int32, _ body: [UInt8], status: Int, type: String, extra: [(String, String)] = [], keepAlive: Bool
    ) -> Bool {
        var head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status")\r\nContent-Type: \(type)\r\n"
        head += "Content-Length: \(body.count)\r\n"
        for (name, value) in extra { head += "\(name): \(value)\r\n" }
        head += keepAlive ? "\r\n" : "Connection: close\r\n\r\n"
        return Self.send(fd, Array(head.utf8) + body)
    }

    private static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + done, $0.count - done, Int32(MSG_NOSIGNAL))
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            done += n
        }
        return true
    }

    static let json = "application/json;charset=UTF-8"

    // MARK: Answers

    private func route(_ request: ReplayRequest) -> (
        body: [UInt8], status: Int, type: String, extra: [(String, String)]
    ) {
        if request.path == "/replay/churn" {
            // The catalog changed as a day of publishing changes it, for a process that cannot call `mutate`.
            let count = max(0, Int(request.value("count") ?? "") ?? 0)
            let done = lock.withLock { catalogStorage.churn(count) }
            let body = #"{"changed":\#(done.changed),"hidden":\#(done.hidden),"added":\#(done.added)}"#
            return (Array(body.utf8), 200, Self.json, [])
        }
        if request.path == "/v2/local/search/category.json" {
            if let kakaoKey, request.headers["authorization"] != "KakaoAK \(kakaoKey)" {
                let body = #"{"errorType":"AccessDeniedError","message":"wrong appKey format"}"#
                return (Array(body.utf8), 401, Self.json, [])
            }
            return (kakaoCategory(request), 200, Self.json, [])
        }
        let parts = request.path.split(separator: "/").map(String.init)
        guard parts.count == 3, parts[0] == "B551011" else {
            return (Self.gateway("12"), 200, "text/xml;charset=UTF-8", [])
        }
        if let serviceKey, request.value("serviceKey") != serviceKey {
            return (Self.gateway("30"), 200, "text/xml;charset=UTF-8", [])
        }
        // KorService2's lists and details from `catalog`, a language service's from its own catalog.
        let service = parts[1]
        let (catalog, ordered) = lock.withLock { () -> (ReplayCatalog, [ReplayPlace]) in
            if service != "KorService2", languageStorage[service] != nil {
                return (languageStorage[service]!, languageStorage[service]!.ordered)
            }
            return (catalogStorage, catalogStorage.ordered)
        }
        let list = service == "KorService2" || lock.withLock { languageStorage[service] != nil }
        switch (list ? "KorService2" : service, parts[2]) {
        case ("KorService2", "areaBasedList2"):
            let places = ordered.filter { !$0.hidden && request.matches($0) }
            return (Self.page(places, request) { $0.item(sync: false) }, 200, Self.json, [])
        case ("KorService2", "locationBasedList2"):
            guard let x = request.value("mapX").flatMap(Double.init),
                let y = request.value("mapY").flatMap(Double.init),
                let radius = request.value("radius").flatMap(Double.init)
            else {
                return (Self.envelope(code: "11", message: "NO_MANDATORY_REQUEST_PARAMETERS_ERROR"), 200, Self.json, [])
            }
            let near = ordered.compactMap { place -> (ReplayPlace, Double)? in
                guard !place.hidden, request.matches(place), let lon = place["mapx"].flatMap(Double.init),
                    let lat = place["mapy"].flatMap(Double.init)
                else { return nil }
                let d = Self.metres(lat1: y, lon1: x, lat2: lat, lon2: lon)
                return d <= radius ? (place, d) : nil
            }.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.id < $1.0.id }
            let body = Self.page(near, request) { $0.0.item(sync: false) + [("dist", String(format: "%.6f", $0.1))] }
            return (body, 200, Self.json, [])
        case ("KorService2", "areaBasedSyncList2"):
            let prefix = request.value("modifiedtime") ?? ""
            let places = ordered.filter {
                request.matches($0) && ($0["modifiedtime"] ?? "").hasPrefix(prefix)
            }
            return (Self.page(places, request) { $0.item(sync: true) }, 200, Self.json, [])
        case ("KorService2", "detailCommon2"):
            let id = request.value("contentId") ?? ""
            let items = catalog.places[id].flatMap { $0.hidden ? nil : [$0.commonItem] } ?? []
            return (Self.page(items, request), 200, Self.json, [])
        case ("KorWithService2", "detailWithTour2"):
            let items = catalog.places[request.value("contentId") ?? ""]?.barrierFree.map { [$0] } ?? []
            return (Self.page(items, request), 200, Self.json, [])
        case ("KorPetTourService2", "detailPetTour2"):
            let items = catalog.places[request.value("contentId") ?? ""]?.pet.map { [$0] } ?? []
            return (Self.page(items, request), 200, Self.json, [])
        case ("KorService2", "areaCode2"), ("KorService2", "categoryCode2"), ("KorService2", "ldongCode2"),
            ("KorService2", "lclsSystmCode2"):
            return (Self.codes(catalog.codeLists[parts[2]] ?? [], parts[2], request), 200, Self.json, [])
        default:
            return (Self.gateway("12"), 200, "text/xml;charset=UTF-8", [])
        }
    }

    /// A page of a code list as `operation` answers it: one level's codes (`rnum`, `code`, `name`) under
    /// the codes given, or with `lDongListYn` / `lclsSystmListYn` Y every lowest code with its parents.
    static func codes(_ codes: [ReplayCode], _ operation: String, _ request: ReplayRequest) -> [UInt8] {
        let byCode = Dictionary(codes.map { ($0.code, $0) }, uniquingKeysWith: { a, _ in a })
        func plain(_ shown: [ReplayCode]) -> [UInt8] {
            page(Array(shown.enumerated()), request) {
                [("rnum", String($0.0 + 1)), ("code", $0.1.code), ("name", $0.1.name)]
            }
        }
        /// The codes of the level below the deepest one given (`names` the parameters, level by level).
        func tree(_ names: [String]) -> [ReplayCode] {
            let given = names.map { request.value($0) ?? "" }
            guard let deepest = given.lastIndex(where: { !$0.isEmpty }) else { return codes.filter { $0.level == 1 } }
            if deepest == names.count - 1 {
                return codes.filter { $0.code == given[deepest] && $0.level == deepest + 1 }
            }
            return codes.filter { $0.level == deepest + 2 && $0.parent == given[deepest] }
        }
        switch operation {
        case "areaCode2":
            let area = request.value("areaCode") ?? ""
            return plain(codes.filter { area.isEmpty ? $0.level == 1 : $0.level == 2 && $0.parent == area })
        case "ldongCode2":
            let regn = request.value("lDongRegnCd") ?? ""
            let sigungu = codes.filter { $0.level == 2 && (regn.isEmpty || $0.parent == regn) }
            guard request.value("lDongListYn") == "Y" else {
                return plain(regn.isEmpty ? codes.filter { $0.level == 1 } : sigungu)
            }
            return page(Array(sigungu.enumerated()), request) { n, c in
                [
                    ("rnum", String(n + 1)), ("lDongRegnCd", c.parent), ("lDongRegnNm", byCode[c.parent]?.name ?? ""),
                    ("lDongSignguCd", c.code), ("lDongSignguNm", c.name),
                ]
            }
        case "lclsSystmCode2" where request.value("lclsSystmListYn") == "Y":
            return page(Array(codes.filter { $0.level == 3 }.enumerated()), request) { n, c in
                let two = byCode[c.parent]
                let one = two.flatMap { byCode[$0.parent] }
                return [
                    ("lclsSystm1Cd", one?.code ?? ""), ("lclsSystm1Nm", one?.name ?? ""),
                    ("lclsSystm2Cd", two?.code ?? ""), ("lclsSystm2Nm", two?.name ?? ""),
                    ("lclsSystm3Cd", c.code), ("lclsSystm3Nm", c.name), ("rnum", String(n + 1)),
                ]
            }
        case "lclsSystmCode2":
            return plain(tree(["lclsSystm1", "lclsSystm2", "lclsSystm3"]))
        default:
            return plain(tree(["cat1", "cat2", "cat3"]))
        }
    }

    /// The haversine distance in metres (TourAPI's `dist`).
    static func metres(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let r = Double.pi / 180
        let a =
            pow(sin((lat2 - lat1) * r / 2), 2) + cos(lat1 * r) * cos(lat2 * r) * pow(sin((lon2 - lon1) * r / 2), 2)
        return 2 * 6_371_008.8 * asin(min(1, sqrt(a)))
    }

    /// One page of `items` as TourAPI writes it (`"items": ""` when the page is empty).
    static func page(_ items: [[(String, String)]], _ request: ReplayRequest) -> [UInt8] {
        page(items, request) { $0 }
    }

    /// One page of `all`, each written as `item` makes it (only the page's are made).
    static func page<T>(_ all: [T], _ request: ReplayRequest, item: (T) -> [(String, String)]) -> [UInt8] {
        let rows = max(1, Int(request.value("numOfRows") ?? "") ?? 10)
        let page = max(1, Int(request.value("pageNo") ?? "") ?? 1)
        let start = min(all.count, (page - 1) * rows)
        let slice = all[start..<min(all.count, start + rows)].map(item)
        let items = all
        var out = #"{"response":{"header":{"resultCode":"0000","resultMsg":"OK"},"body":{"items":"#
        if slice.isEmpty {
            out += #""""#
        } else {
            out += #"{"item":["#
            out += slice.map(object).joined(separator: ",")
            out += "]}"
        }
        out += #","numOfRows":\#(rows),"pageNo":\#(page),"totalCount":\#(items.count)}}}"#
        return Array(out.utf8)
    }

    /// An item's JSON: every value a string but a code list's `rnum`, a number as TourAPI writes it.
    static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\(quote($0.0)):\($0.0 == "rnum" ? $0.1 : quote($0.1))" }.joined(separator: ",") + "}"
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if c.value < 0x20 { out += String(format: "\\u%04x", c.value) } else { out.unicodeScalars.append(c) }
            }
        }
        return out + "\""
    }

    static func envelope(code: String, message: String) -> [UInt8] {
        Array(#"{"response":{"header":{"resultCode":"\#(code)","resultMsg":"\#(message)"}}}"#.utf8)
    }

    static let gatewayMessages = [
        "12": "NO_OPENAPI_SERVICE_ERROR", "20": "SERVICE_ACCESS_DENIED_ERROR",
        "22": "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR", "30": "SERVICE_KEY_IS_NOT_REGISTERED_ERROR",
        "31": "DEADLINE_HAS_EXPIRED_ERROR", "32": "UNREGISTERED_IP_ERROR", "99": "UNKNOWN_ERROR",
    ]

    /// The gateway's own error answer, in XML whatever `_type` asked.
    static func gateway(_ code: String) -> [UInt8] {
        Array(
            """
            <OpenAPI_ServiceResponse>
            \t<cmmMsgHeader>
            \t\t<errMsg>SERVICE ERROR</errMsg>
            \t\t<returnAuthMsg>\(gatewayMessages[code] ?? "UNKNOWN_ERROR")</returnAuthMsg>
            \t\t<returnReasonCode>\(code)</returnReasonCode>
            \t</cmmMsgHeader>
            </OpenAPI_ServiceResponse>
            """.utf8)
    }

    private func kakaoCategory(_ request: ReplayRequest) -> [UInt8] {
        let code = request.value("category_group_code") ?? ""
        let rect = (request.value("rect") ?? "").split(separator: ",").compactMap { Double($0) }
        let size = min(15, max(1, Int(request.value("size") ?? "") ?? 15))
        let page = min(45, max(1, Int(request.value("page") ?? "") ?? 1))
        let all = lock.withLock { catalogStorage.kakao }.filter { doc in
            guard doc.group == code else { return false }
            guard rect.count == 4 else { return true }
            return doc.x >= rect[0] && doc.x <= rect[2] && doc.y >= rect[1] && doc.y <= rect[3]
        }
        let reachable = Array(all.prefix(45))
        let start = min(reachable.count, (page - 1) * size)
        let slice = reachable[start..<min(reachable.count, start + size)]
        let end = start + size >= reachable.count
        var out = #"{"meta":{"total_count":\#(all.count),"pageable_count":\#(reachable.count),"is_end":\#(end),"#
        out += #""same_name":null},"documents":["# + slice.map { Self.object($0.fields) }.joined(separator: ",") + "]}"
        return Array(out.utf8)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<i + needle.count]) == needle { return i }
        }
        return nil
    }
}

/// A request's path, query (%-decoded) and headers (lower-case names).
struct ReplayRequest {
    var path: String
    var query: [(String, String)]
    var headers: [String: String]

    init(target: String, headers: [String: String]) {
        let split = target.split(separator: "?", maxSplits: 1)
        path = split.first.map(String.init) ?? "/"
        query = (split.count > 1 ? split[1] : "").split(separator: "&").map { pair in
            let kv = pair.split(separator: "=", maxSplits: 1)
            let key = String(kv[0])
            let value = kv.count > 1 ? String(kv[1]) : ""
            return (key, value.removingPercentEncoding ?? value)
        }
        self.headers = headers
    }

    func value(_ name: String) -> String? { query.first { $0.0 == name }?.1 }

    /// Whether `place` passes the request's `contentTypeId`, `areaCode` and `lDongRegnCd` filters.
    func matches(_ place: ReplayPlace) -> Bool {
        for (param, field) in [
            ("contentTypeId", "contenttypeid"), ("areaCode", "areacode"), ("lDongRegnCd", "lDongRegnCd"),
            ("lDongSignguCd", "lDongSignguCd"),
        ] {
            if let wanted = value(param), !wanted.isEmpty, place[field] != wanted { return false }
        }
        return true
    }
}

public struct ReplayError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
