import NearbyCore

/// The one output layer: query answers and exported places in every `OutputFormat`, appended to a
/// byte sink in blocks (`StdoutBlocks`), without Foundation's JSON coders (the batch hot path).
///
/// Usage: `write` each answer (or `append` each place), then `finish` once.
public struct PlaceWriter {
    public let format: OutputFormat
    public let fields: PlaceJSON.Selection
    /// Write a meta line (total, page, limit, returned, nextCursor, tookMs) before each answer.
    public let meta: Bool
    private var out: StdoutBlocks
    private var geoJSON: GeoJSONWriter
    private var wroteHeader = false
    /// The personal fields `--fields` named (`bookmarks`, `rating`, `memo`, `visits`); nil: those each
    /// query's personal parameters use (`PersonalField.used`). Written in JSON and JSON lines.
    public var personalFields: [PersonalField]?

    public init(
        format: OutputFormat, fields: PlaceJSON.Selection = .all, meta: Bool = false,
        to out: StdoutBlocks = StdoutBlocks()
    ) {
        self.format = format
        self.fields = fields
        self.meta = meta
        self.out = out
        geoJSON = GeoJSONWriter(fields: fields)
        if format == .geojson { geoJSON.begin(to: &self.out.bytes) }
    }

    /// Whether an answer in `format` with `fields` is written from the rows' ids alone (JSON or JSON
    /// lines of ids and distances): the engine need not give the rows' records (`QueryEngine.run(_:records:)`).
    public static func writesOnlyIDs(format: OutputFormat, fields: PlaceJSON.Selection) -> Bool {
        (format == .json || format == .jsonl) && fields.writesOnlyID
    }

    /// Writes one answer; `qid` leads each line in batch mode. Rows are borrowed from the engine's table
    /// (`forEachRow`), not copied, and a JSON array goes out in blocks as it grows, like the other formats.
    /// Ids and distances are written from the table's id column (`forEachID`), the records untouched.
    public mutating func write(_ a: QueryAnswer, query: PlaceQuery, qid: JSONScalar? = nil, tookMs: Double) throws {
        let leading = qid.map { [(key: "qid", value: $0)] } ?? []
        let idsAlone = qid == nil && Self.writesOnlyIDs(format: format, fields: fields)
        let personalFields = query.personalData == nil ? [] : (self.personalFields ?? PersonalField.used(by: query))
        let items = query.personalData?.data.items ?? [:]
        func personal(_ id: String) {
            guard !personalFields.isEmpty else { return }
            out.bytes.removeLast()
            PersonalJSON.appendMembers(items[id], personalFields, to: &out.bytes)
            out.bytes.append(UInt8(ascii: "}"))
        }
        switch format {
        case .jsonl:
            if let e = a.explanation { appendExplanation(e, qid) }
            if meta {
                appendMeta(a, query, qid, tookMs)
                out.bytes.append(0x0A)
            }
            if idsAlone {
                try a.rows.forEachID { i, id in
                    PlaceJSON.append(id: id, distance: a.distance(at: i), fields: fields, to: &out.bytes)
                    if !personalFields.isEmpty { personal(String(decoding: id, as: UTF8.self)) }
                    out.bytes.append(0x0A)
                    try out.flushIfFull()
                }
            } else {
                try a.rows.forEachRow { i, p in
                    PlaceJSON.append(
                        at: p, leading: leading, distance: a.distance(at: i), fields: fields, to: &out.bytes)
                    personal(p.pointee.id)
                    out.bytes.append(0x0A)
                    try out.flushIfFull()
                }
            }
        case .json:
            if meta {
                appendMeta(a, query, qid, tookMs)
                out.bytes.removeLast()
                out.bytes.append(contentsOf: ",\"places\":".utf8)
            }
            out.bytes.append(UInt8(ascii: "["))
            if idsAlone {
                try a.rows.forEachID { i, id in
                    if i > 0 { out.bytes.append(UInt8(ascii: ",")) }
                    PlaceJSON.append(id: id, distance: a.distance(at: i), fields: fields, to: &out.bytes)
                    if !personalFields.isEmpty { personal(String(decoding: id, as: UTF8.self)) }
                    try out.flushIfFull()
                }
            } else {
                try a.rows.forEachRow { i, p in
                    if i > 0 { out.bytes.append(UInt8(ascii: ",")) }
                    PlaceJSON.append(at: p, distance: a.distance(at: i), fields: fields, to: &out.bytes)
                    personal(p.pointee.id)
                    try out.flushIfFull()
                }
            }
            out.bytes.append(UInt8(ascii: "]"))
            if meta { out.bytes.append(UInt8(ascii: "}")) }
            out.bytes.append(0x0A)
        case .geojson:
            try a.rows.forEachRow { i, p in
                geoJSON.append(p.pointee, distance: a.distance(at: i), to: &out.bytes)
                try out.flushIfFull()
            }
        case .table:
            out.bytes.append(contentsOf: PlaceTableText.render(a, hasCentre: query.center != nil, tookMs: tookMs).utf8)
        case .tsv:
            try a.rows.forEachRow { i, p in
                appendTSV(p.pointee, qid: qid, distance: a.distance(at: i))
                try out.flushIfFull()
            }
        }
    }

    /// Writes one place (export): all its fields, no distance.
    public mutating func append(_ place: Place) throws {
        switch format {
        case .jsonl, .json:
            if format == .json {
                out.bytes.append(contentsOf: (wroteHeader ? ",\n" : "[").utf8)
                wroteHeader = true
            }
            PlaceJSON.append(place, fields: fields, to: &out.bytes)
            if format == .jsonl { out.bytes.append(0x0A) }
        case .geojson:
            geoJSON.append(place, distance: nil, to: &out.bytes)
        case .table, .tsv:
            appendTSV(place, qid: nil, distance: nil)
        }
        try out.flushIfFull()
    }

    /// Ends the document (GeoJSON, a JSON export) and writes what is buffered.
    public mutating func finish() throws {
        if format == .geojson { geoJSON.end(to: &out.bytes) }
        if format == .json && wroteHeader { out.bytes.append(contentsOf: "]\n".utf8) }
        try out.flush()
    }

    private mutating func appendMeta(_ a: QueryAnswer, _ q: PlaceQuery, _ qid: JSONScalar?, _ tookMs: Double) {
        out.bytes.append(UInt8(ascii: "{"))
        if let qid {
            out.bytes.append(contentsOf: "\"qid\":".utf8)
            qid.append(to: &out.bytes)
            out.bytes.append(UInt8(ascii: ","))
        }
        out.bytes.append(contentsOf: "\"total\":".utf8)
        JSONNumber.appendOrNull(a.total, to: &out.bytes)
        out.bytes.append(contentsOf: ",\"page\":".utf8)
        JSONNumber.append(a.page, to: &out.bytes)
        out.bytes.append(contentsOf: ",\"limit\":".utf8)
        JSONNumber.append(q.limit, to: &out.bytes)
        out.bytes.append(contentsOf: ",\"returned\":".utf8)
        JSONNumber.append(a.rows.count, to: &out.bytes)
        out.bytes.append(contentsOf: ",\"nextCursor\":".utf8)
        (a.nextCursor.map(JSONScalar.string) ?? .null).append(to: &out.bytes)
        out.bytes.append(contentsOf: ",\"tookMs\":".utf8)
        JSONNumber.append((tookMs * 1000).rounded() / 1000, to: &out.bytes)
        out.bytes.append(UInt8(ascii: "}"))
    }

    /// `{"qid","plan","rowsTouched"}` and a line break (`--explain`).
    private mutating func appendExplanation(_ e: QueryExplanation, _ qid: JSONScalar?) {
        out.bytes.append(UInt8(ascii: "{"))
        if let qid {
            out.bytes.append(contentsOf: "\"qid\":".utf8)
            qid.append(to: &out.bytes)
            out.bytes.append(UInt8(ascii: ","))
        }
        out.bytes.append(contentsOf: "\"plan\":".utf8)
        JSONScalar.string(e.plan).append(to: &out.bytes)
        out.bytes.append(contentsOf: ",\"rowsTouched\":".utf8)
        JSONNumber.append(e.rowsTouched, to: &out.bytes)
        out.bytes.append(contentsOf: "}\n".utf8)
    }

    /// TSV: a header row first (qid when given, the selected fields in `PlaceField` order, distance),
    /// then one place a line. `accessibility` is `;`-separated as the TSV importer reads it; a tab or
    /// line break inside a value becomes a space (TSV has no quoting), so every line stays one record.
    private mutating func appendTSV(_ p: Place, qid: JSONScalar?, distance: Double?) {
        let columns = PlaceField.allCases.filter { fields.has($0) }
        let withQid = qid != nil && fields.hasExtra("qid")
        let withDistance = fields.hasDistance && distance != nil
        if !wroteHeader {
            wroteHeader = true
            let names = (withQid ? ["qid"] : []) + columns.map(\.name) + (withDistance ? ["distance"] : [])
            out.bytes.append(contentsOf: names.joined(separator: "\t").utf8)
            out.bytes.append(0x0A)
        }
        var first = true
        func separator() {
            if !first { out.bytes.append(0x09) }
            first = false
        }
        if withQid, let qid {
            separator()
            switch qid {
            case .string(let s): appendCell(s)
            default: qid.append(to: &out.bytes)
            }
        }
        for f in columns {
            separator()
            switch f {
            case .lat: JSONNumber.append(p.lat, to: &out.bytes)
            case .lon: JSONNumber.append(p.lon, to: &out.bytes)
            case .category: JSONNumber.append(p.category, to: &out.bytes)
            case .accessibility: appendCell(p.accessibility.joined(separator: ";"))
            default: if let s = p[text: f] { appendCell(s) }
            }
        }
        if withDistance {
            separator()
            if let distance { JSONNumber.append(distance, to: &out.bytes) }
        }
        out.bytes.append(0x0A)
    }

    private mutating func appendCell(_ s: String) {
        for b in s.utf8 { out.bytes.append(b == 0x09 || b == 0x0A || b == 0x0D ? 0x20 : b) }
    }
}
