import Foundation
import HTTPTypes
import Hummingbird
import NearbyKit

/// Nearby's own API, `/v1/…`: the parameters and rules of `nearby query`, through the one request
/// parser (`QueryParameters`), written by the one output layer (`PlaceWriter`).
struct PlacesAPI: Sendable {
    let engine: LiveEngine
    let options: ServerOptions
    /// The large answers being written and their queue (`--max-large-answers`).
    let largeAnswers: LargeAnswers
    /// Tokens, personal reads (`personalized`).
    let personal: PersonalAccess
    /// The background sync's state, shown by `/healthz` (`--sync`).
    var syncStatus: SyncStatus?
    /// Upstream, asked for the areas of circles the cache has never had (`--fallback`).
    var upstream: UpstreamAreas?

    /// Answers with more rows than this stream from a writer thread; smaller ones are written at once.
    static let streamAbove = 2_000

    /// Rows whose records a streaming writer fetches at once, with one lane taken for the time: some
    /// 100 KB of records, a millisecond or two of a lane, so that small requests run between chunks.
    static let chunkRows = 256

    /// `GET /v1/places`: `{"total","page","next","places":[…]}`, or any other `OutputFormat` asked
    /// by `format=` or `Accept` (total and next also in `X-Total-Count`/`X-Next-Cursor`).
    func places(_ request: Request, client: String) async throws -> Response {
        var pairs = try Self.pairs(request)
        var format = request.headers[.accept].flatMap(OutputFormat.init(accept:)) ?? .json
        var fields = PlaceJSON.Selection.all
        var seen: Set<String> = []
        for (name, value) in pairs where name == "format" || name == "fields" {
            guard seen.insert(name).inserted else { throw APIError(.badRequest, parameter: name, "given twice") }
            if name == "format" {
                guard let named = OutputFormat(named: value) else {
                    let known = OutputFormat.allCases.flatMap(\.names).joined(separator: ", ")
                    throw APIError(
                        .badRequest, parameter: "format", "\(RequestError.quoted(value)) is not one of \(known)")
                }
                format = named
            } else {
                fields = try Self.fields(value)
            }
        }
        pairs.removeAll { $0.name == "format" || $0.name == "fields" }
        let parsed = try parse(pairs)
        // A public query pays nothing for the personal layer: no header is read, but a search's
        // `Authorization` (its keyword goes to the history of the user a token names).
        let query = parsed.usesPersonalData ? try personal.personalized(parsed, request, client: client) : parsed
        let searcher = try personal.searcher(of: query, request, client: client)
        let records = !PlaceWriter.writesOnlyIDs(format: format, fields: fields)
        let partial = await cover(query)
        // The table format is rendered whole (column widths), so it takes its records at once.
        let (snapshot, answer, ticket) = try await page(query, records: records, streams: format != .table)
        if let searcher { await personal.recordSearch(of: query, user: searcher) }

        var headers: HTTPFields = [:]
        headers[.contentType] = format.mediaType
        if let total = answer.total { headers[.xTotalCount] = String(total) }
        headers[.xCacheGeneration] = String(snapshot.generation)
        let next = answer.nextCursor
        let (chosenFormat, chosenFields) = (format, fields)
        if let next { headers[.xNextCursor] = next }
        if let plan = answer.explanation { headers[.xQueryPlan] = plan.description }
        if let partial { headers[.nearbyPartial] = partial.rawValue }

        let write: @Sendable (StdoutBlocks) throws -> Void = { blocks in
            var blocks = blocks
            if chosenFormat == .json {
                blocks.bytes.append(contentsOf: "{\"total\":".utf8)
                JSONNumber.appendOrNull(answer.total, to: &blocks.bytes)
                blocks.bytes.append(contentsOf: ",\"page\":".utf8)
                JSONNumber.append(answer.page, to: &blocks.bytes)
                blocks.bytes.append(contentsOf: ",\"next\":".utf8)
                (next.map(JSONScalar.string) ?? .null).append(to: &blocks.bytes)
                blocks.bytes.append(contentsOf: ",\"places\":".utf8)
                try blocks.flush()
            }
            var writer = PlaceWriter(format: chosenFormat, fields: chosenFields, to: blocks)
            try writer.write(answer, query: query, tookMs: 0)
            try writer.finish()
            if chosenFormat == .json { try blocks.sink("}\n") }
        }
        return Self.response(headers: headers, rows: answer.rows.count, ticket: ticket, write: write)
    }

    /// With `--fallback`: makes sure the cache holds the area of a circle query (`UpstreamAreas.cover`),
    /// nil when it does, else why the answer is partial (`Nearby-Partial`). Other shapes are not asked.
    func cover(_ query: PlaceQuery) async -> UpstreamAreas.Partial? {
        // The upstream fills in the Korean places; another language's query is answered from the cache.
        guard let upstream, query.language == .ko, let center = query.center, case .radius(let r) = query.shape
        else { return nil }
        return await upstream.cover(lat: center.lat, lon: center.lon, radius: r)
    }

    /// `query`'s answer as a writer takes it (`/v1/places`, TourAPI's lists), the generation it was read
    /// from, and the answer's place among the large answers when it streams (`response`). A page that
    /// may stream (`streams`, more than `streamAbove` rows asked) is answered without its records (some
    /// 16 bytes a row, not a place's few hundred) unless it has at most `streamAbove` rows; the writer
    /// fetches a streamed page's records `chunkRows` at a time, from the same generation (`snapshot`
    /// stays open while it does).
    func page(_ query: PlaceQuery, records: Bool = true, streams: Bool = true) async throws
        -> (snapshot: EngineSnapshot, answer: QueryAnswer, ticket: LargeAnswers.Ticket?)
    {
        let snapshot = engine.current
        let start = ContinuousClock.now
        var answer =
            streams && query.limit > Self.streamAbove
            ? try await snapshot.runForStreaming(
                query, records: records, fetchUpTo: Self.streamAbove, timeout: options.requestTimeout)
            : try await snapshot.run(query, records: records, timeout: options.requestTimeout)
        var ticket: LargeAnswers.Ticket?
        if answer.rows.count > Self.streamAbove {
            ticket = try await largeAnswers.enter(timeout: options.requestTimeout - (ContinuousClock.now - start))
            if records {
                answer.rows = answer.rows.fetchingRecords(inChunksOf: Self.chunkRows) { ids in
                    try snapshot.places(ids: ids)
                }
            }
        }
        return (snapshot, answer, ticket)
    }

    /// `GET /v1/places/{id}`: the place, all its fields (or `fields=`).
    func place(_ request: Request, id: String) async throws -> Response {
        var fields = PlaceJSON.Selection.all
        for (name, value) in try Self.pairs(request) {
            guard name == "fields" else {
                throw APIError(.badRequest, parameter: name, "unknown parameter (known: fields)")
            }
            fields = try Self.fields(value)
        }
        guard let place = try await engine.current.place(id: id, timeout: options.requestTimeout) else {
            throw APIError(.notFound, parameter: "id", "no place has the id \(RequestError.quoted(id))")
        }
        var out: [UInt8] = []
        PlaceJSON.append(place, fields: fields, to: &out)
        out.append(0x0A)
        return Self.json(out)
    }

    /// `GET /v1/distance?lat1=&lon1=&lat2=&lon2=&distance=`: `{"distance":metres,"model":"…"}`.
    func distance(_ request: Request) throws -> Response {
        var values: [String: String] = [:]
        let names = ["lat1", "lon1", "lat2", "lon2", "distance"]
        for (name, value) in try Self.pairs(request) {
            guard names.contains(name) else {
                throw APIError(
                    .badRequest, parameter: name, "unknown parameter (known: \(names.joined(separator: ", ")))")
            }
            guard values.updateValue(value, forKey: name) == nil else {
                throw APIError(.badRequest, parameter: name, "given twice")
            }
        }
        var coordinates: [Double] = []
        for name in names.prefix(4) {
            guard let text = values[name] else { throw APIError(.badRequest, parameter: name, "missing") }
            let limit = name.hasPrefix("lat") ? 90.0 : 180.0
            guard let v = DecimalNumber.double(text), abs(v) <= limit else {
                throw APIError(
                    .badRequest, parameter: name,
                    "\(RequestError.quoted(text)) is not a number in -\(Int(limit))…\(Int(limit))")
            }
            coordinates.append(v)
        }
        let model: DistanceModel
        do { model = try DistanceModel(parsing: values["distance"] ?? "haversine") } catch {
            throw APIError(.badRequest, parameter: "distance", "\(error)")
        }
        let d: Double
        do {
            d = try model.distance(
                lat1: coordinates[0], lon1: coordinates[1], lat2: coordinates[2], lon2: coordinates[3])
        } catch {
            throw APIError(.badRequest, parameter: "distance", "\(error)")
        }
        var out: [UInt8] = Array("{\"distance\":".utf8)
        JSONNumber.append(d, to: &out)
        out.append(contentsOf: ",\"model\":".utf8)
        JSONWriter.appendString(model.description, to: &out)
        out.append(contentsOf: "}\n".utf8)
        return Self.json(out)
    }

    /// `GET /v1/where?lat=&lon=`: `nearby where`'s JSON for the point (the 시도, 시군구, 읍면동 and 리,
    /// or `"region":"unknown"` with the nearest region at sea or abroad: an answer, not an error).
    func whereAt(_ request: Request) throws -> Response {
        var values: [String: String] = [:]
        for (name, value) in try Self.pairs(request) {
            guard name == "lat" || name == "lon" else {
                throw APIError(.badRequest, parameter: name, "unknown parameter (known: lat, lon)")
            }
            guard values.updateValue(value, forKey: name) == nil else {
                throw APIError(.badRequest, parameter: name, "given twice")
            }
        }
        var point: [Double] = []
        // The ranges of `nearby where`: latitude within ±90, longitude within ±540 (wrapped).
        for (name, limit) in [("lat", 90.0), ("lon", 540.0)] {
            guard let text = values[name] else { throw APIError(.badRequest, parameter: name, "missing") }
            guard let v = DecimalNumber.double(text), abs(v) <= limit else {
                throw APIError(
                    .badRequest, parameter: name,
                    "\(RequestError.quoted(text)) is not a number in -\(Int(limit))…\(Int(limit))")
            }
            point.append(v)
        }
        let index: RegionIndex
        do { index = try RegionAreas.shared.index() } catch {
            throw APIError(.serviceUnavailable, "the region index cannot be loaded: \(error)")
        }
        var out = RegionJSON.whereLine(lat: point[0], lon: point[1], index.locate(lat: point[0], lon: point[1]))
        out.append(0x0A)
        return Self.json(out)
    }

    /// `GET /healthz`: `{"status":"ok","generation":g,"places":n}`, with `"sync":{…}` (`SyncStatus.json`)
    /// when the server syncs in the background.
    func health() -> Response {
        let s = engine.current
        var out = Array("{\"status\":\"ok\",\"generation\":\(s.generation),\"places\":\(s.count)".utf8)
        if let syncStatus { out += Array(",\"sync\":".utf8) + syncStatus.json() }
        out += Array("}\n".utf8)
        return Self.json(out)
    }

    /// Over HTTP the bearer token names the user (`personalized`), never a parameter.
    static func refuseUserParameter(_ pairs: [(name: String, value: String)]) throws {
        if pairs.contains(where: { $0.name == "user" }) {
            throw APIError(
                .badRequest, parameter: "user",
                "the user is named by the token (Authorization: Bearer), not a parameter")
        }
    }

    /// The request parser, with the server's page-size limit: 1…maxLimit rows a page.
    func parse(_ pairs: [(name: String, value: String)]) throws -> PlaceQuery {
        let query: PlaceQuery
        do { query = try QueryParameters.parse(pairs, areas: RegionAreas.shared) } catch { throw APIError(error) }
        try Self.refuseUserParameter(pairs)
        guard query.limit >= 1 && query.limit <= options.maxLimit else {
            throw APIError(
                .badRequest, parameter: "limit",
                "\(query.limit) is outside 1…\(options.maxLimit) (this server's page size limit; page with next)")
        }
        return query
    }

    /// `fields=id,title`: names of `PlaceJSON.Selection`, none empty.
    static func fields(_ value: String) throws -> PlaceJSON.Selection {
        let names = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !names.contains(where: { TextNormalization.trimmingSpaces($0).isEmpty }) else {
            throw APIError(.badRequest, parameter: "fields", "\(RequestError.quoted(value)) has an empty item")
        }
        do { return try PlaceJSON.Selection(names: names) } catch {
            throw APIError(.badRequest, parameter: "fields", "\(error)")
        }
    }

    /// A path segment (`/v1/places/{id}`) as the text it escapes: `%XX` decoded (`+` is a plus sign
    /// in a path), refused when an escape is malformed or the bytes are not UTF-8.
    static func pathSegment(_ raw: String, parameter: String) throws -> String {
        guard let text = QueryString.decode(Substring(raw), plusIsSpace: false) else {
            throw APIError(.badRequest, parameter: parameter, "\(RequestError.quoted(raw)): bad %-escape or not UTF-8")
        }
        return text
    }

    static func pairs(_ request: Request) throws -> [(name: String, value: String)] {
        do { return try QueryString.pairs(request.uri.query.map { Substring($0) }) } catch {
            throw APIError(.badRequest, parameter: error.parameter, "bad %-escape or not UTF-8")
        }
    }

    static func json(_ bytes: [UInt8]) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A 200 whose body `write` produces through a `StdoutBlocks`: at once for small answers, else
    /// streamed from a writer thread in 64 KiB blocks as the client reads them, at most two blocks
    /// ahead (`BlockChannel`). A streamed answer's `ticket` (its place among the large answers) is
    /// paused while the client does not read and ended when the writer stops.
    static func response(
        headers: HTTPFields, rows: Int, ticket: LargeAnswers.Ticket? = nil,
        write: @escaping @Sendable (StdoutBlocks) throws -> Void
    ) -> Response {
        if rows <= streamAbove {
            ticket?.end()
            final class Collected: @unchecked Sendable { var bytes: [UInt8] = [] }
            let collected = Collected()
            do {
                try write(StdoutBlocks(blockSize: 1 << 16) { collected.bytes.append(contentsOf: $0) })
            } catch {
                return APIError(.internalServerError, "cannot write the answer").response()
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: collected.bytes)))
        }
        let channel = BlockChannel()
        ticket?.attach(channel)
        let thread = Thread {
            defer { ticket?.end() }
            do {
                try write(
                    StdoutBlocks(blockSize: 1 << 16) { block in
                        try channel.put(block, pause: { ticket?.pause() }, resume: { try ticket?.resume() })
                    })
                channel.finish()
            } catch {
                channel.finish(error)
            }
        }
        thread.start()
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                do {
                    while let block = try await channel.next() { try await writer.write(ByteBuffer(bytes: block)) }
                } catch {
                    channel.cancel()
                    throw error
                }
                try await writer.finish(nil)
            })
    }
}

extension HTTPField.Name {
    /// The answer's headers, made once (a name is checked when it is made).
    static let xTotalCount = HTTPField.Name("X-Total-Count")!
    static let xCacheGeneration = HTTPField.Name("X-Cache-Generation")!
    static let xNextCursor = HTTPField.Name("X-Next-Cursor")!
    static let xQueryPlan = HTTPField.Name("X-Query-Plan")!
    /// Set when upstream could not fill in the query's area: `upstream-failed` or `upstream-slow`.
    static let nearbyPartial = HTTPField.Name("Nearby-Partial")!
}

extension StdoutBlocks {
    /// Sends `text` through the blocks (after what is buffered).
    mutating func sink(_ text: String) throws {
        bytes.append(contentsOf: text.utf8)
        try flush()
    }
}
