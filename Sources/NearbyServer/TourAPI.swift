import Foundation
import Hummingbird
import NearbyKit

/// TourAPI 4.0's KorService2 list operations, answered from the cache: TourAPI's parameter names
/// mapped onto `QueryParameters`, TourAPI's JSON envelope with every item value a string.
/// Where this differs from the public service: docs/tourapi-compat.md.
struct TourAPI: Sendable {
    let engine: LiveEngine
    let options: ServerOptions
    let api: PlacesAPI

    static let prefix = "/B551011/KorService2/"
    static let operations = [
        "locationBasedList2", "areaBasedList2", "searchKeyword2", "searchFestival2", "detailCommon2",
    ]

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

    func answer(_ operation: String, _ request: Request) async throws -> Response {
        var pairs: [(name: String, value: String)] = []
        var given: [String: String] = [:]
        for (name, value) in try PlacesAPI.pairs(request) {
            guard given.updateValue(value, forKey: name) == nil else {
                throw APIError(.badRequest, parameter: name, "given twice")
            }
            if let nearby = Self.mapped[name], !value.isEmpty {
                pairs.append((nearby, value))
            }
        }
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
        if let type = given["_type"], !type.isEmpty, type.lowercased() != "json" {
            throw APIError(.badRequest, parameter: "_type", "only _type=json is served")
        }
        func require(_ names: String...) throws {
            for name in names where (given[name] ?? "").isEmpty {
                throw APIError(.badRequest, parameter: name, "missing (required by \(operation))")
            }
        }
        func defaultOrder(_ code: String) { if given["arrange"] == nil { pairs.append(("arrange", code)) } }
        switch operation {
        case "locationBasedList2":
            try require("mapX", "mapY", "radius")
            if let r = given["radius"].flatMap(DecimalNumber.double), r > 20_000 {
                throw APIError(.badRequest, parameter: "radius", "at most 20000 metres, as TourAPI")
            }
            defaultOrder("E")
        case "searchKeyword2":
            try require("keyword")
            defaultOrder("C")
        case "searchFestival2":
            try require("eventStartDate")
            pairs.removeAll { $0.name == "category" }
            pairs.append(("category", "15"))
            defaultOrder("C")
        case "detailCommon2":
            try require("contentId")
            return try await detail(given["contentId"]!)
        default:
            defaultOrder("C")
        }
        var query: PlaceQuery
        do { query = try api.parse(pairs) } catch let e as APIError {
            var e = e
            e.parameter = e.parameter.map { p in Self.mapped.first { $0.value == p }?.key ?? Self.combined[p] ?? p }
            throw e
        }
        query.countsTotal = true  // TourAPI's envelope always carries totalCount
        // A page of more than `PlacesAPI.streamAbove` rows streams as `/v1/places` does: its rows
        // without records, fetched a chunk at a time as the envelope is written, among the large answers.
        let (_, answer, ticket) = try await api.page(query)
        let withDistance = operation == "locationBasedList2"
        let eventDates = operation == "searchFestival2"
        let footer = Self.footer(numOfRows: query.limit, pageNo: answer.page, totalCount: answer.total ?? 0)
        let write: @Sendable (StdoutBlocks) throws -> Void = { blocks in
            var blocks = blocks
            blocks.bytes.append(contentsOf: Self.header)
            if answer.rows.isEmpty {
                Self.appendItems([], eventDates: eventDates, to: &blocks.bytes)
            } else {
                blocks.bytes.append(contentsOf: Self.itemsStart)
                try answer.rows.forEachRow { i, place in
                    if i > 0 { blocks.bytes.append(UInt8(ascii: ",")) }
                    Self.appendItem(
                        place.pointee, dist: withDistance ? answer.distance(at: i) : nil, eventDates: eventDates,
                        to: &blocks.bytes)
                    try blocks.flushIfFull()
                }
                blocks.bytes.append(contentsOf: Self.itemsEnd)
            }
            blocks.bytes.append(contentsOf: footer)
            try blocks.flush()
        }
        return PlacesAPI.response(
            headers: [.contentType: "application/json; charset=utf-8"], rows: answer.rows.count, ticket: ticket,
            write: write)
    }

    private func detail(_ id: String) async throws -> Response {
        let place = try await engine.current.place(id: id, timeout: options.requestTimeout)
        var out = Self.header
        Self.appendItems(place.map { [($0, nil)] } ?? [], eventDates: place?.category == 15, to: &out)
        out.append(contentsOf: Self.footer(numOfRows: 1, pageNo: 1, totalCount: place == nil ? 0 : 1))
        return PlacesAPI.json(out)
    }

    /// A page's envelope before its items (`appendItems`), and after them.
    static let header = Array(
        "{\"response\":{\"header\":{\"resultCode\":\"0000\",\"resultMsg\":\"OK\"},\"body\":{\"items\":".utf8)
    static func footer(numOfRows: Int, pageNo: Int, totalCount: Int) -> [UInt8] {
        Array(",\"numOfRows\":\(numOfRows),\"pageNo\":\(pageNo),\"totalCount\":\(totalCount)}}}\n".utf8)
    }
    private static let itemsStart = Array("{\"item\":[".utf8)
    private static let itemsEnd = Array("]}".utf8)

    /// `{"item":[…]}`, or `""` for none, as TourAPI writes an empty page.
    static func appendItems(_ items: [(Place, Double?)], eventDates: Bool, to out: inout [UInt8]) {
        guard !items.isEmpty else {
            out.append(contentsOf: "\"\"".utf8)
            return
        }
        out.append(contentsOf: itemsStart)
        for (n, (p, dist)) in items.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            appendItem(p, dist: dist, eventDates: eventDates, to: &out)
        }
        out.append(contentsOf: itemsEnd)
    }

    /// One item: every value a string, `dist` for a distance, the event dates for festivals.
    static func appendItem(_ p: Place, dist: Double?, eventDates: Bool, to out: inout [UInt8]) {
        var fields: [(String, String)] = [
            ("addr1", p.addr ?? ""), ("addr2", ""), ("areacode", p.areacode ?? ""),
            ("cat1", p.cat1 ?? ""), ("cat2", p.cat2 ?? ""), ("cat3", p.cat3 ?? ""),
            ("contentid", p.id), ("contenttypeid", String(p.category)),
            ("createdtime", p.created ?? ""), ("firstimage", p.image ?? ""), ("firstimage2", ""),
            ("cpyrhtDivCd", ""), ("mapx", "\(p.lon)"), ("mapy", "\(p.lat)"), ("mlevel", ""),
            ("modifiedtime", p.modified ?? ""), ("sigungucode", p.sigungucode ?? ""), ("tel", p.tel ?? ""),
            ("title", p.title), ("zipcode", ""),
            ("lDongRegnCd", p.lDongRegnCd ?? ""), ("lDongSignguCd", p.lDongSignguCd ?? ""),
            ("lclsSystm1", p.lclsSystm1 ?? ""), ("lclsSystm2", p.lclsSystm2 ?? ""),
            ("lclsSystm3", p.lclsSystm3 ?? ""),
        ]
        if let dist { fields.append(("dist", "\(dist)")) }
        if eventDates { fields += [("eventstartdate", p.eventStart ?? ""), ("eventenddate", p.eventEnd ?? "")] }
        out.append(UInt8(ascii: "{"))
        for (i, (k, v)) in fields.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(k, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONWriter.appendString(v, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// TourAPI's error envelope: `resultCode` 10 (a bad value), 11 (a required one missing), 30 (the
    /// service key), 04 (HTTP: unknown path, wrong method), 05 (the request timed out), 99 (anything else); `resultMsg` the code's
    /// name, then the parameter and why.
    static func errorResponse(_ error: APIError) -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        headers.append(contentsOf: error.headers)
        return Response(
            status: error.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: errorBody(error))))
    }

    /// The envelope's bytes (`errorResponse`; `RejectingHTTP1Channel` writes them itself).
    static func errorBody(_ error: APIError) -> [UInt8] {
        let (code, name): (String, String) =
            switch error.status {
            case .unauthorized: ("30", "SERVICE_KEY_IS_NOT_REGISTERED_ERROR")
            case .serviceUnavailable: ("05", "SERVICETIMEOUT_ERROR")
            case .badRequest, .conflict:
                error.reason.hasPrefix("missing")
                    ? ("11", "NO_MANDATORY_REQUEST_PARAMETERS_ERROR") : ("10", "INVALID_REQUEST_PARAMETER_ERROR")
            case .notFound, .methodNotAllowed, .uriTooLong, .requestHeaderFieldsTooLarge: ("04", "HTTP_ERROR")
            default: ("99", "UNKNOWN_ERROR")
            }
        var out: [UInt8] = Array("{\"response\":{\"header\":{\"resultCode\":\"\(code)\",\"resultMsg\":".utf8)
        JSONWriter.appendString(name + ": " + (error.parameter.map { "\($0): " } ?? "") + error.reason, to: &out)
        out.append(contentsOf: "}}}\n".utf8)
        return out
    }
}
