import Foundation
import Hummingbird
import NearbyKit

/// TourAPI 4.0's operations (`TourAPI.served`: KorService2's and KorService1's lists and details,
/// KorWithService2's and KorPetTourService2's, the language services', the code lists), answered from
/// the cache: TourAPI's parameter names mapped onto `QueryParameters`, TourAPI's envelope with every
/// item value a string: XML unless the request asks `_type=json`, as the public service answers.
/// Where this differs from the public service: docs/tourapi-compat.md.
struct TourAPI: Sendable {
    let engine: LiveEngine
    let options: ServerOptions
    let api: PlacesAPI

    /// TourAPI name → `QueryParameters` name.
    static let mapped: [String: String] = [
        "mapX": "lon", "mapY": "lat", "radius": "radius", "arrange": "arrange", "contentTypeId": "category",
        "areaCode": "areacode", "sigunguCode": "sigungucode", "keyword": "keyword",
        "eventStartDate": "from", "eventEndDate": "to", "numOfRows": "limit", "pageNo": "page",
    ]
    /// Classification levels, most specific first, → the `QueryParameters` code filter: the most
    /// specific level given is the filter (its code starts with its parents', `CodeFamily`).
    static let levels: [(names: [String], parameter: String)] = [
        (["cat3", "cat2", "cat1"], "cat"), (["lclsSystm3", "lclsSystm2", "lclsSystm1"], "lcls"),
    ]
    /// `QueryParameters` names built from several TourAPI ones → the name errors show.
    static let combined = ["cat": "cat1", "lcls": "lclsSystm1", "ldong": "lDongRegnCd"]
    /// Accepted and ignored (the app's identity; `serviceKey` is checked only with `--service-key`).
    static let ignored: Set<String> = ["MobileOS", "MobileApp", "serviceKey", "_type", "listYN", "showflag"]
    /// KorService1's popularity orders (B, and P with an image only) → the order answered instead: the
    /// cache keeps no view counts, so modified time (C, Q), TourAPI's own default.
    static let popularOrders = ["B": "C", "P": "Q"]

    func answer(_ operation: TourOperation, _ request: Request) async throws -> Response {
        var pairs: [(name: String, value: String)] = []
        var given: [String: String] = [:]
        for (name, value) in try PlacesAPI.pairs(request) {
            guard given.updateValue(value, forKey: name) == nil else {
                throw APIError(.badRequest, parameter: name, "given twice")
            }
            if let nearby = Self.mapped[name], !value.isEmpty {
                let popular = operation.generation == .one && name == "arrange"
                var sent = popular ? Self.popularOrders[value.uppercased()] ?? value : value
                // (The festival and stay lists ignore it: they answer their one type.)
                if name == "contentTypeId", operation.language != .ko,
                    operation.kind != .festivalList, operation.kind != .stayList
                {
                    sent = try Self.storedContentTypes(sent, operation.language)
                }
                pairs.append((nearby, sent))
            }
        }
        if operation.language != .ko { pairs.append(("lang", operation.language.code)) }
        // KorWithService2's and KorPetTourService2's places: those with the service's detail, a filter of
        // the one request parser, so every engine answers it as it answers the others.
        if let kind = operation.detail { pairs.append(("has-detail", kind.name)) }
        for (names, parameter) in Self.levels {
            if let code = names.lazy.compactMap({ given[$0] }).first(where: { !$0.isEmpty }) {
                pairs.append((parameter, code))
            }
        }
        switch (given["lDongRegnCd"] ?? "", given["lDongSignguCd"] ?? "") {
        case ("", ""): break
        case ("", _): throw APIError(.badRequest, parameter: "lDongRegnCd", "missing (lDongSignguCd needs it)")
        case (let regn, let signgu): pairs.append(("ldong", regn + signgu))
        }
        if let key = options.serviceKey {
            let sent = given["serviceKey"]
            guard sent == key || sent.flatMap({ QueryString.decode(Substring($0)) }) == key else {
                throw APIError(.unauthorized, parameter: "serviceKey", sent == nil ? "missing" : "not registered")
            }
        }
        guard let format = Self.format(given["_type"]) else {
            throw APIError(.badRequest, parameter: "_type", "json or xml (absent or empty: xml)")
        }
        for name in operation.required where (given[name] ?? "").isEmpty {
            throw APIError(.badRequest, parameter: name, "missing (required by \(operation.name))")
        }
        func defaultOrder(_ code: String) { if given["arrange"] == nil { pairs.append(("arrange", code)) } }
        func only(_ category: String) {
            pairs.removeAll { $0.name == "category" }
            pairs.append(("category", category))
        }
        switch operation.kind {
        case .locationList:
            if let r = given["radius"].flatMap(DecimalNumber.double), r > 20_000 {
                throw APIError(.badRequest, parameter: "radius", "at most 20000 metres, as TourAPI")
            }
            defaultOrder("E")
        case .festivalList:
            only("15")
            defaultOrder("C")
        case .stayList:
            only("32")
            defaultOrder("C")
        case .areaList, .keywordList:
            defaultOrder("C")
        case .common, .intro, .info, .image, .barrierFree, .pet:
            return try await detail(operation, given["contentId"]!, given: given, format: format)
        case .syncList:
            return try await changes(operation, given: given, pairs: pairs, format: format)
        case .areaCodes:
            return try areaCodes(try await codes(operation, .areas), given, format: format)
        case .legalDongCodes:
            return try legalDongCodes(try await codes(operation, .legalDongs), given, format: format)
        case .classificationCodes:
            return try classificationCodes(try await codes(operation, .classification), given, format: format)
        case .serviceCategoryCodes:
            return try serviceCategoryCodes(try await codes(operation, .serviceCategories), given, format: format)
        }
        var query = try parse(pairs)
        query.countsTotal = true  // TourAPI's envelope always carries totalCount
        var partial: UpstreamAreas.Partial?
        // The upstream fallback fetches KorService2's lists, not details: no help to a detail service.
        if operation.kind == .locationList, operation.language == .ko, operation.detail == nil {
            partial = await api.cover(query)
        }
        // A page of more than `PlacesAPI.streamAbove` rows streams as `/v1/places` does: its rows
        // without records, fetched a chunk at a time as the envelope is written, among the large answers.
        let (_, answer, ticket) = try await api.page(query)
        let withDistance = operation.kind == .locationList
        let eventDates = operation.kind == .festivalList
        let generation = operation.generation
        let language = operation.language
        let footer = Self.footer(
            numOfRows: query.limit, pageNo: answer.page, totalCount: answer.total ?? 0, format: format)
        let write: @Sendable (StdoutBlocks) throws -> Void = { blocks in
            var blocks = blocks
            blocks.bytes.append(contentsOf: Self.header(format))
            if answer.rows.isEmpty {
                Self.appendItems([], format: format, to: &blocks.bytes)
            } else {
                blocks.bytes.append(contentsOf: Self.itemsStart(format))
                try answer.rows.forEachRow { i, place in
                    if i > 0, format == .json { blocks.bytes.append(UInt8(ascii: ",")) }
                    Self.appendItem(
                        Self.fields(
                            place.pointee, generation, language,
                            dist: withDistance ? answer.distance(at: i) : nil, eventDates: eventDates),
                        format: format, to: &blocks.bytes)
                    try blocks.flushIfFull()
                }
                blocks.bytes.append(contentsOf: Self.itemsEnd(format))
            }
            blocks.bytes.append(contentsOf: footer)
            try blocks.flush()
        }
        var headers: HTTPFields = [.contentType: format.contentType]
        if let partial { headers[.nearbyPartial] = partial.rawValue }
        return PlacesAPI.response(headers: headers, rows: answer.rows.count, ticket: ticket, write: write)
    }

    /// The query of `pairs` (`QueryParameters` names), its errors naming the TourAPI parameter.
    func parse(_ pairs: [(name: String, value: String)]) throws -> PlaceQuery {
        do { return try api.parse(pairs) } catch let e as APIError {
            var e = e
            e.parameter = e.parameter.map { p in Self.mapped.first { $0.value == p }?.key ?? Self.combined[p] ?? p }
            throw e
        }
    }

    /// A language service's `contentTypeId` (its own numbers, `TourLanguage.serviceContentTypeIDs`; a
    /// list of them too) as the stored Korean ones; another number is refused (`10`), saying the service's.
    static func storedContentTypes(_ value: String, _ language: TourLanguage) throws -> String {
        var out: [String] = []
        for item in value.split(separator: ",", omittingEmptySubsequences: false) {
            let text = item.trimmingCharacters(in: .whitespaces)
            guard let n = Int(text), language.serviceContentTypeIDs.contains(n) else {
                let known = language.serviceContentTypeIDs.map(String.init).joined(separator: ", ")
                throw APIError(
                    .badRequest, parameter: "contentTypeId",
                    "\(MessageText.quoted(text)) is not one of \(language.service)'s content types (\(known))")
            }
            out.append(String(language.storedContentType(n)))
        }
        return out.joined(separator: ",")
    }

    /// The envelope's two forms: TourAPI's JSON (`_type=json`) and its XML (`_type` absent, empty or
    /// `xml`), the same header, items and footer in each.
    enum Format: Sendable {
        case json, xml

        var mediaType: String {
            switch self {
            case .json: "application/json"
            case .xml: "application/xml"
            }
        }
        var contentType: String { mediaType + "; charset=utf-8" }
    }

    /// The values `_type` takes (`format`), as the OpenAPI document lists them.
    static let typeValues = ["xml", "json"]

    /// The format `_type` asks for (case-insensitive; absent or empty is XML, as the public service),
    /// or nil for any other value.
    static func format(_ type: String?) -> Format? {
        switch type?.lowercased() ?? "" {
        case "", "xml": .xml
        case "json": .json
        default: nil
        }
    }

    /// The format of an error's envelope: JSON when the request's `_type` is `json`, else XML (also
    /// for a `_type` refused, or a query that cannot be read).
    static func errorFormat(_ request: Request) -> Format {
        let pairs = (try? PlacesAPI.pairs(request)) ?? []
        return pairs.contains { $0.name == "_type" && $0.value.lowercased() == "json" } ? .json : .xml
    }

    static let xmlDeclaration = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#

    /// A page's envelope before its items (`appendItems`), and after them.
    static func header(_ format: Format) -> [UInt8] {
        switch format {
        case .json:
            Array(
                #"{"response":{"header":{"resultCode":"0000","resultMsg":"OK"},"body":{"items":"#.utf8)
        case .xml:
            Array(
                (xmlDeclaration + "<response><header><resultCode>0000</resultCode><resultMsg>OK</resultMsg>"
                    + "</header><body>").utf8)
        }
    }
    static func footer(numOfRows: Int, pageNo: Int, totalCount: Int, format: Format) -> [UInt8] {
        switch format {
        case .json:
            Array(",\"numOfRows\":\(numOfRows),\"pageNo\":\(pageNo),\"totalCount\":\(totalCount)}}}\n".utf8)
        case .xml:
            Array(
                ("<numOfRows>\(numOfRows)</numOfRows><pageNo>\(pageNo)</pageNo><totalCount>\(totalCount)"
                    + "</totalCount></body></response>\n").utf8)
        }
    }
    private static func itemsStart(_ format: Format) -> [UInt8] {
        Array((format == .json ? #"{"item":["# : "<items>").utf8)
    }
    private static func itemsEnd(_ format: Format) -> [UInt8] { Array((format == .json ? "]}" : "</items>").utf8) }

    /// `{"item":[…]}` / `<items><item>…</item>…</items>`, or for none `""` / `<items/>`, as TourAPI
    /// writes an empty page.
    static func appendItems(_ items: [[(String, String)]], format: Format, to out: inout [UInt8]) {
        guard !items.isEmpty else {
            out.append(contentsOf: (format == .json ? "\"\"" : "<items/>").utf8)
            return
        }
        out.append(contentsOf: itemsStart(format))
        for (n, fields) in items.enumerated() {
            if n > 0, format == .json { out.append(UInt8(ascii: ",")) }
            appendItem(fields, format: format, to: &out)
        }
        out.append(contentsOf: itemsEnd(format))
    }

    /// One item, in either format from the one field list (`fields`, `detailItems`). Every value is a
    /// JSON string but a code list's `rnum`, a number as TourAPI writes it (`{"rnum": 1, "code": "1",
    /// "name": "서울"}`: the saved `areaCode2` answer data/README.md cites).
    static func appendItem(_ fields: [(String, String)], format: Format, to out: inout [UInt8]) {
        switch format {
        case .json:
            out.append(UInt8(ascii: "{"))
            for (i, (k, v)) in fields.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(k, to: &out)
                out.append(UInt8(ascii: ":"))
                // (The length first: a list page writes some thousands of fields.)
                if k.utf8.count == 4, k == "rnum", !v.isEmpty, v.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
                    out.append(contentsOf: v.utf8)
                } else {
                    JSONWriter.appendString(v, to: &out)
                }
            }
            out.append(UInt8(ascii: "}"))
        case .xml:
            out.append(contentsOf: "<item>".utf8)
            for (k, v) in fields {
                out.append(UInt8(ascii: "<"))
                out.append(contentsOf: k.utf8)
                out.append(UInt8(ascii: ">"))
                appendXMLText(v, to: &out)
                out.append(contentsOf: "</".utf8)
                out.append(contentsOf: k.utf8)
                out.append(UInt8(ascii: ">"))
            }
            out.append(contentsOf: "</item>".utf8)
        }
    }

    /// Text as XML 1.0 character data: `& < > " '` as entities, a carriage return as `&#13;` (a parser
    /// would read a raw one as a line feed), and the characters XML 1.0 cannot carry at all (controls
    /// below U+0020 other than tab, line feed and carriage return; U+FFFE, U+FFFF) as U+FFFD.
    static func appendXMLText(_ text: String, to out: inout [UInt8]) {
        for u in text.unicodeScalars {
            switch u.value {
            case 0x26: out.append(contentsOf: "&amp;".utf8)
            case 0x3C: out.append(contentsOf: "&lt;".utf8)
            case 0x3E: out.append(contentsOf: "&gt;".utf8)
            case 0x22: out.append(contentsOf: "&quot;".utf8)
            case 0x27: out.append(contentsOf: "&apos;".utf8)
            case 0x0D: out.append(contentsOf: "&#13;".utf8)
            case 0x09, 0x0A: out.append(UInt8(u.value))
            case 0..<0x20, 0xFFFE, 0xFFFF: out.append(contentsOf: [0xEF, 0xBF, 0xBD])
            case 0x20..<0x80: out.append(UInt8(u.value))
            default: UTF8.encode(u) { out.append($0) }
            }
        }
    }

    /// One list item's fields, in TourAPI's order: every value a string, `dist` for a distance, the
    /// event dates for festivals (searchFestival, detailCommon2, the sync list). KorService2 writes the
    /// legal-dong and new classification codes after the common fields; KorService1 has `booktour` (empty
    /// here: the cache does not keep it) and not those.
    static func fields(
        _ p: Place, _ generation: TourOperation.Generation = .two, _ language: TourLanguage = .ko, dist: Double?,
        eventDates: Bool
    ) -> [(String, String)] {
        var fields: [(String, String)] = [
            ("addr1", p.addr ?? ""), ("addr2", ""), ("areacode", p.areacode ?? ""),
        ]
        if generation == .one { fields.append(("booktour", "")) }
        fields += [
            ("cat1", p.cat1 ?? ""), ("cat2", p.cat2 ?? ""), ("cat3", p.cat3 ?? ""),
            ("contentid", language.contentID(p.id)), ("contenttypeid", String(language.serviceContentType(p.category))),
            ("createdtime", p.created ?? ""), ("firstimage", p.image ?? ""), ("firstimage2", ""),
            ("cpyrhtDivCd", ""), ("mapx", "\(p.lon)"), ("mapy", "\(p.lat)"), ("mlevel", ""),
            ("modifiedtime", p.modified ?? ""), ("sigungucode", p.sigungucode ?? ""), ("tel", p.tel ?? ""),
            ("title", p.title), ("zipcode", ""),
        ]
        if generation == .two {
            // The legal-dong codes as the source gave them: codes the import derived from the coordinates
            // (`lDongSource` `coordinates`) are left out, so a cache that syncs from these lists derives
            // the same ones and stores what this cache stores.
            let given = p.lDongSource != "coordinates"
            fields += [
                ("lDongRegnCd", given ? p.lDongRegnCd ?? "" : ""),
                ("lDongSignguCd", given ? p.lDongSignguCd ?? "" : ""),
                ("lclsSystm1", p.lclsSystm1 ?? ""), ("lclsSystm2", p.lclsSystm2 ?? ""),
                ("lclsSystm3", p.lclsSystm3 ?? ""),
            ]
        }
        if let dist { fields.append(("dist", "\(dist)")) }
        if eventDates { fields += [("eventstartdate", p.eventStart ?? ""), ("eventenddate", p.eventEnd ?? "")] }
        return fields
    }

    /// TourAPI's error envelope: `resultCode` 10 (a bad value), 11 (a required one missing), 12 (no such
    /// service or operation, HTTP 404; or one Nearby knows and does not answer, HTTP 501), 30 (the service key), 04 (HTTP: wrong method, a URL too long), 05 (the
    /// request timed out), 99 (anything else); `resultMsg` the code's name, then the parameter and why;
    /// in the format the request asked for.
    static func errorResponse(_ error: APIError, format: Format) -> Response {
        var headers: HTTPFields = [.contentType: format.contentType]
        headers.append(contentsOf: error.headers)
        return Response(
            status: error.status, headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: errorBody(error, format: format))))
    }

    /// The envelope's bytes (`errorResponse`; `RejectingHTTP1Channel` writes them itself).
    static func errorBody(_ error: APIError, format: Format = .json) -> [UInt8] {
        let (code, name): (String, String) =
            switch error.status {
            case .unauthorized: ("30", "SERVICE_KEY_IS_NOT_REGISTERED_ERROR")
            case .serviceUnavailable: ("05", "SERVICETIMEOUT_ERROR")
            case .badRequest, .conflict:
                error.reason.hasPrefix("missing")
                    ? ("11", "NO_MANDATORY_REQUEST_PARAMETERS_ERROR") : ("10", "INVALID_REQUEST_PARAMETER_ERROR")
            case .notFound, .notImplemented: ("12", "NO_OPENAPI_SERVICE_ERROR")
            case .methodNotAllowed, .uriTooLong, .requestHeaderFieldsTooLarge: ("04", "HTTP_ERROR")
            default: ("99", "UNKNOWN_ERROR")
            }
        let message = name + ": " + (error.parameter.map { "\($0): " } ?? "") + error.reason
        switch format {
        case .json:
            var out: [UInt8] = Array("{\"response\":{\"header\":{\"resultCode\":\"\(code)\",\"resultMsg\":".utf8)
            JSONWriter.appendString(message, to: &out)
            out.append(contentsOf: "}}}\n".utf8)
            return out
        case .xml:
            var out = Array(
                (xmlDeclaration + "<response><header><resultCode>\(code)</resultCode><resultMsg>").utf8)
            appendXMLText(message, to: &out)
            out.append(contentsOf: "</resultMsg></header></response>\n".utf8)
            return out
        }
    }
}
