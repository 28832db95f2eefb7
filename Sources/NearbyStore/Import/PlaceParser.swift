import Foundation
import NearbyCore

/// Reads an input file in any supported format into import records.
///
/// Format detection looks at the content, never the file name: a first JSON value (object or array) holding
/// `response` (or a bare `resultCode`) or a TourAPI item at any depth is TourAPI, one holding a Kakao Local
/// document is Kakao (`PlaceDocumentFinder`), one with `"type": "FeatureCollection"` is GeoJSON, one with
/// place fields is JSON lines; otherwise the first line is a header, tab-separated (TSV) or comma-separated (CSV).
/// A UTF-8 byte order mark is skipped. An empty input is JSON lines with no records. Lines end with LF
/// or CRLF, or with CR alone in a file that has no LF.
public enum PlaceParser {
    /// Parses `bytes` (the whole file) into a list of records: `read` collecting what it streams, for
    /// tests and small inputs.
    public static func parse(
        _ bytes: [UInt8], file: String, format: ImportFormat? = nil, encoding: TextEncoding? = nil,
        strict: Bool = false
    ) throws -> ParsedInput {
        var records: [LineRecord] = []
        var errors: [RecordError] = []
        let format = try bytes.withUnsafeBytes { input in
            try read(
                input, file: file, format: format, encoding: encoding, strict: strict,
                emit: { records.append($0) }, reject: { errors.append($0) })
        }
        return ParsedInput(file: file, format: format, records: records, errors: errors)
    }

    /// Streams the records of `input` (one whole file) to `emit` as they are read, and bad records to
    /// `reject`; nothing is collected, so memory does not grow with the input. Detects the format
    /// unless `format` is given, and returns it. The text encoding is `encoding`, else detected
    /// (`TextEncoding.detect`): CP949 input is converted to UTF-8 first; input in neither is refused.
    ///
    /// With `strict` the first bad record is thrown as a `RecordError` instead. Throws
    /// `UnsupportedInputError` when the input is in no supported format or is a TourAPI error envelope,
    /// and whatever `emit` throws. `consumed(offset)` is told, now and then, that the bytes before
    /// `offset` will not be read again (a mapped file can give their pages back).
    public static func read(
        _ all: UnsafeRawBufferPointer, file: String, format: ImportFormat? = nil, encoding: TextEncoding? = nil,
        strict: Bool = false, maxRecordBytes: Int = defaultMaxRecordBytes,
        emit: @escaping (LineRecord) throws -> Void, reject: @escaping (RecordError) -> Void,
        consumed: @escaping (Int) -> Void = { _ in }
    ) throws -> ImportFormat {
        let prefix = UnsafeRawBufferPointer(rebasing: all.prefix(detectionPrefix))
        switch encoding ?? TextEncoding.detect(prefix, cut: prefix.count < all.count) {
        case .utf8?: break
        case .cp949?:
            // Refused on its prefix before the whole input is converted.
            let format =
                try format ?? detectPrefix(prefix, truncated: prefix.count < all.count, file: file, encoding: .cp949)
            guard let utf8 = CP949.decode(all) else {
                throw UnsupportedInputError(file: file, message: "not CP949 (EUC-KR) text; try --encoding utf-8")
            }
            return try utf8.withUnsafeBytes {
                try read(
                    $0, file: file, format: format, encoding: .utf8, strict: strict, maxRecordBytes: maxRecordBytes,
                    emit: emit, reject: reject)
            }
        case nil:
            throw UnsupportedInputError(
                file: file, message: "UTF-16 text (a spreadsheet's \"Unicode text\"); save it as UTF-8 (or CP949) CSV")
        }
        // Lines ended by CR alone (old Mac and Excel exports) would otherwise read as one long line:
        // a file with no LF at all has them read as LFs, so no line of it is silently lost. Judged from
        // the prefix; only an input whose prefix has CRs and no LF is searched further for a LF.
        if crOnly(prefix), let base = all.baseAddress, memchr(base, 0x0A, all.count) == nil {
            let format =
                try format ?? detectPrefix(prefix, truncated: prefix.count < all.count, file: file, encoding: .utf8)
            let lf = all.map { $0 == 0x0D ? 0x0A : $0 }
            return try lf.withUnsafeBytes {
                try read(
                    $0, file: file, format: format, encoding: .utf8, strict: strict, maxRecordBytes: maxRecordBytes,
                    emit: emit, reject: reject)
            }
        }
        var input = all
        let bom = input.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        input = UnsafeRawBufferPointer(rebasing: input[bom...])
        let format =
            try format ?? detectPrefix(prefix, truncated: prefix.count < all.count, file: file, encoding: .utf8)
        var sink = RecordSink(
            file: file, strict: strict, maxRecordBytes: maxRecordBytes, emit: emit, reject: reject
        ) { consumed($0 + bom) }
        switch format {
        case .jsonl: try JSONLinesReader.read(input, into: &sink)
        case .tsv: try DelimitedReader.read(input, separator: 0x09, quoting: false, into: &sink)
        case .csv: try DelimitedReader.read(input, separator: UInt8(ascii: ","), quoting: true, into: &sink)
        case .tourapi: try TourAPIReader.read(input, accepting: .tourItem, into: &sink)
        case .kakao: try TourAPIReader.read(input, accepting: .kakaoDocument, into: &sink)
        case .geojson: try GeoJSONReader.read(input, into: &sink)
        }
        return format
    }

    /// How many bytes of an input format detection (and text encoding detection) looks at: 64 KiB.
    /// Enough for every format read here, because each is recognised by how it begins: a TourAPI
    /// response names `response` (or `resultCode`) as its first key, a GeoJSON FeatureCollection its
    /// `type` or a first feature, a Kakao response its first document, a TourAPI item or a place object
    /// (a JSON line) its first keys, CSV/TSV their header row; a UTF-16 byte order mark is the first two
    /// bytes, and a CP949 export has Korean in its header or first rows. A JSON value the prefix cuts is
    /// judged by what the prefix holds of it (its members closed where they are complete). An input
    /// whose prefix is none of these is refused without reading further.
    public static let detectionPrefix = 64 << 10

    /// The largest record (a line of JSON lines or TSV, a CSV record, one item of a JSON or GeoJSON
    /// document) read by default: 1 MiB, some hundred times the largest real place (a TourAPI item
    /// with a long overview is a few KB), and small enough that one record costs a few MB to parse.
    public static let defaultMaxRecordBytes = 1 << 20

    /// The format of the input `prefix` is the first `detectionPrefix` bytes of (`truncated` when the
    /// input goes on), in the text encoding given or detected; throws `UnsupportedInputError` when it is
    /// in no supported format. What `read` decides before it reads records, for an input that must be
    /// judged before the rest of it is read (standard input, a pipe).
    public static func detectPrefix(
        _ prefix: UnsafeRawBufferPointer, truncated: Bool, file: String, format: ImportFormat? = nil,
        encoding: TextEncoding? = nil
    ) throws(UnsupportedInputError) -> ImportFormat {
        let prefix = UnsafeRawBufferPointer(rebasing: prefix.prefix(detectionPrefix))
        switch encoding ?? TextEncoding.detect(prefix, cut: truncated) {
        case .utf8?: break
        case .cp949?:
            if let format { return format }
            guard let utf8 = CP949.decode(prefix, cutAtEnd: truncated) else {
                throw UnsupportedInputError(file: file, message: "not CP949 (EUC-KR) text; try --encoding utf-8")
            }
            return try utf8.withUnsafeBytes { u in
                Result { () throws(UnsupportedInputError) in
                    try detectPrefix(u, truncated: truncated, file: file, encoding: .utf8)
                }
            }.get()
        case nil:
            throw UnsupportedInputError(
                file: file, message: "UTF-16 text (a spreadsheet's \"Unicode text\"); save it as UTF-8 (or CP949) CSV")
        }
        if let format { return format }
        if crOnly(prefix) {
            let lf = prefix.map { $0 == 0x0D ? 0x0A : $0 }
            return try lf.withUnsafeBytes { u in
                Result { () throws(UnsupportedInputError) in try detect(u, truncated: truncated, file: file) }
            }.get()
        }
        let bom = prefix.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        return try detect(UnsafeRawBufferPointer(rebasing: prefix[bom...]), truncated: truncated, file: file)
    }

    /// True when `prefix` has CR line ends and no LF.
    private static func crOnly(_ prefix: UnsafeRawBufferPointer) -> Bool {
        guard let base = prefix.baseAddress else { return false }
        return memchr(base, 0x0A, prefix.count) == nil && memchr(base, 0x0D, prefix.count) != nil
    }

    /// The format of `input`, judged from its first JSON value or its header line.
    ///
    /// JSON lines whose first lines are broken (truncated, not JSON, or JSON objects that are not places)
    /// are still JSON lines when any line of the file is a place object: detection does not depend on where
    /// the first good line falls, and the reader then reports every bad line and keeps the rest.
    public static func detect(_ input: UnsafeRawBufferPointer, truncated: Bool = false, file: String)
        throws(UnsupportedInputError) -> ImportFormat
    {
        var scanner = JSONScanner(input)
        let refuse = { (message: String) in UnsupportedInputError(file: file, message: message) }
        /// The first JSON value as far as the prefix holds it, when the prefix cuts it.
        func cutValue() -> JSONValue? {
            guard truncated, let closed = JSONPrefix.close(input) else { return nil }
            return closed.withUnsafeBytes { try? JSONValue.parse($0) }
        }
        let cut = "the first \(detectionPrefix >> 10) KiB hold"
        switch scanner.peek() {
        case nil:
            return .jsonl
        case UInt8(ascii: "{"):
            let firstLine = Lines.first(input)
            if case .object(let o)? = try? JSONValue.parse(firstLine), let format = try? classify(o, file: file) {
                return format
            }
            let first = Result { () throws(JSONError) in try scanner.readValue() }
            if case .success(.object(let o)) = first, let format = try? classify(o, file: file) { return format }
            if let format = placeLineFormat(input) { return format }
            if case .failure = first, case .object(let o)? = cutValue() {
                if let format = try? classify(o, file: file) { return format }
                // A FeatureCollection whose `type` comes after its features, past the prefix.
                if case .array(let features)? = o["features"], features.first?["type"] == .string("Feature") {
                    return .geojson
                }
                throw refuse("\(noPlace) (\(cut) a JSON object without one)")
            }
            switch first {
            case .success(.object(let o)): return try classify(o, file: file)
            case .success: throw refuse("not a supported format")
            case .failure(let e):
                throw refuse("not valid JSON: \(e.reason) at line \(Lines.lineNumber(input, at: e.offset))")
            }
        case UInt8(ascii: "["):
            let first = Result { () throws(JSONError) in try scanner.readValue() }
            let value: JSONValue
            switch first {
            case .success(let v): value = v
            case .failure(let e):
                guard let v = cutValue() else {
                    throw refuse("not valid JSON: \(e.reason) at line \(Lines.lineNumber(input, at: e.offset))")
                }
                value = v
            }
            if let kind = PlaceDocumentFinder.firstKind(in: value) { return format(of: kind) }
            if let envelope = PlaceDocumentFinder.errorHeader(in: value) { throw refuse(envelope) }
            if case .failure = first { throw refuse("\(noPlace) (\(cut) a JSON array without one)") }
            throw refuse("\(noPlace) (a JSON array; Nearby's own place objects go one per line, as JSON lines)")
        case UInt8(ascii: "<"):
            throw refuse(
                TourAPIReader.xmlErrorMessage(input)
                    ?? "XML is not a supported format; expected JSON lines, a TourAPI JSON response (_type=json), GeoJSON, CSV or TSV"
            )
        default:
            if let format = placeLineFormat(input) { return format }
            let header = Lines.first(input)
            if header.contains(0x09) { return .tsv }
            if header.contains(UInt8(ascii: ",")) { return .csv }
            throw refuse(
                "not a supported format: expected JSON lines, a TourAPI response, GeoJSON, or CSV/TSV with a header row naming \(DelimitedReader.requiredColumns)"
            )
        }
    }

    /// The format of the first line of `input` that is a JSON object holding a place: a TourAPI item, a
    /// Kakao Local document, or a place object (JSON lines). Lines not starting with `{` are passed over at
    /// the cost of finding their end, so a CSV/TSV costs one `memchr` pass.
    private static func placeLineFormat(_ input: UnsafeRawBufferPointer) -> ImportFormat? {
        var format: ImportFormat?
        _ = Lines.someLine(input) { line in
            guard let start = line.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }), line[start] == UInt8(ascii: "{"),
                case .object(let o)? = try? JSONValue.parse(line)
            else {
                return false
            }
            if let kind = PlaceDocumentFinder.firstKind(in: .object(o)) {
                format = Self.format(of: kind)
            } else if isPlaceLike(o) {
                format = .jsonl
            }
            return format != nil
        }
        return format
    }

    private static func format(of kind: PlaceDocumentFinder.Kind) -> ImportFormat {
        kind == .kakaoDocument ? .kakao : .tourapi
    }

    private static func isPlaceLike(_ o: JSONObject) -> Bool {
        o.members.contains { PlaceField(name: $0.key) != nil }
    }

    private static func classify(_ o: JSONObject, file: String) throws(UnsupportedInputError) -> ImportFormat {
        if o["response"] != nil || o["resultCode"] != nil { return .tourapi }
        if o["type"] == .string("FeatureCollection") { return .geojson }
        if let kind = PlaceDocumentFinder.firstKind(in: .object(o)) { return format(of: kind) }
        if isPlaceLike(o) { return .jsonl }
        if let envelope = PlaceDocumentFinder.errorHeader(in: .object(o)) {
            throw UnsupportedInputError(file: file, message: envelope)
        }
        let keys = o.members.prefix(8).map { MessageText.oneLine($0.key, limit: MessageText.echoLimit) }.joined(
            separator: ", ")
        throw UnsupportedInputError(file: file, message: "\(noPlace) (its keys: \(keys))")
    }

    /// Why a JSON document with nothing to import is refused.
    static let noPlace =
        "no place in this file: no TourAPI item (contentid with mapx/mapy, or a detailWithTour2/detailPetTour2 item), Kakao Local document (place_name with x/y) or place object (id, title, lat, lon, category) at any depth"
}

/// Passes one input's records on as they are read: runs the shared validator and, in strict mode,
/// stops at the first bad record. Duplicate ids are not this type's business: the writer applies the
/// same newest-wins rule to a repeat inside one file as to one across files.
struct RecordSink {
    let file: String
    let strict: Bool
    /// The largest record allowed, in bytes of the input (`--max-record-bytes`).
    let maxRecordBytes: Int
    private let emit: (LineRecord) throws -> Void
    private let rejected: (RecordError) -> Void
    private let consumed: (Int) -> Void
    private var reported = 0

    init(
        file: String, strict: Bool, maxRecordBytes: Int = PlaceParser.defaultMaxRecordBytes,
        emit: @escaping (LineRecord) throws -> Void, reject: @escaping (RecordError) -> Void,
        consumed: @escaping (Int) -> Void
    ) {
        self.file = file
        self.strict = strict
        self.maxRecordBytes = maxRecordBytes
        self.emit = emit
        rejected = reject
        self.consumed = consumed
    }

    /// Throws when a record of `size` bytes (at least) is larger than `maxRecordBytes`: the import
    /// stops, whatever the mode, since a record that large is a broken or hostile input, not a typo.
    func checkSize(_ size: Int, line: Int, field: String = "record") throws(RecordError) {
        guard size > maxRecordBytes else { return }
        throw RecordTooLarge.error(file: file, line: line, field: field, limit: maxRecordBytes)
    }

    /// Reports a bad record (or throws it, in strict mode).
    func reject(line: Int, field: String, reason: String) throws(RecordError) {
        let e = RecordError(file: file, line: line, field: field, reason: reason)
        if strict { throw e }
        rejected(e)
    }

    /// Validates `place` in place (normalising it) and passes it on. `name` spells a field the way the
    /// input does (e.g. `mapy`).
    func upsert(_ place: inout Place, line: Int, name: (String) -> String = { $0 }) throws {
        do {
            try PlaceValidator.validate(&place)
        } catch {
            return try reject(line: line, field: name(error.field), reason: error.reason)
        }
        try emit(LineRecord(line: line, record: .upsert(place)))
    }

    /// Passes a detail record on.
    func detail(_ detail: PlaceDetail, line: Int) throws {
        try emit(LineRecord(line: line, record: .detail(detail)))
    }

    /// Passes a delete record on.
    func delete(id: String, line: Int, idField: String) throws {
        try emit(LineRecord(line: line, record: .delete(id: id)))
    }

    /// The reader is past byte `offset`; said on to `consumed` every 4 MiB.
    mutating func advance(to offset: Int) {
        if offset - reported >= 1 << 22 {
            consumed(offset)
            reported = offset
        }
    }
}

/// The error for a record over the size limit, whoever finds it (a reader, or `RecordSizeGuard` as
/// standard input is read).
enum RecordTooLarge {
    static func error(file: String, line: Int, field: String, limit: Int) -> RecordError {
        RecordError(
            file: file, line: line, field: field,
            reason: "record larger than \(limit) bytes (the limit; --max-record-bytes raises it)")
    }
}

/// Line arithmetic over raw bytes (`\n` ends a line; a `\r` before it is dropped by the readers).
enum Lines {
    /// The first line, without its terminator.
    static func first(_ input: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let end = input.firstIndex(of: 0x0A) ?? input.count
        return trimCR(UnsafeRawBufferPointer(rebasing: input[..<end]))
    }

    static func trimCR(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        line.last == 0x0D ? UnsafeRawBufferPointer(rebasing: line.dropLast()) : line
    }

    /// Calls `body` with each line (terminator dropped), its 1-based number and the offset after it.
    /// A line longer than `limit` bytes is passed as far as `limit` with the offset -1, and ends the
    /// walk: its end is not looked for further.
    static func forEach<E: Error>(
        _ input: UnsafeRawBufferPointer, limit: Int = .max,
        _ body: (UnsafeRawBufferPointer, Int, Int) throws(E) -> Void
    ) throws(E) {
        var start = 0
        var number = 1
        while start < input.count {
            let rest = input.count - start
            let window = limit >= rest - 2 ? rest : limit + 2  // room for the CR LF after a line of `limit`
            let end = memchrIndex(input, from: start, count: window) ?? (window < rest ? -1 : input.count)
            let line = trimCR(UnsafeRawBufferPointer(rebasing: input[start..<(end < 0 ? start + window : end)]))
            guard end >= 0, line.count <= limit else {
                return try body(UnsafeRawBufferPointer(rebasing: line.prefix(limit)), number, -1)
            }
            try body(line, number, end)
            start = end + 1
            number += 1
        }
    }

    /// Index of the next `\n` at or after `from` (among the `count` bytes from there, when given).
    @inline(__always) static func memchrIndex(_ input: UnsafeRawBufferPointer, from: Int, count: Int? = nil) -> Int? {
        guard from < input.count, let base = input.baseAddress,
            let hit = memchr(base + from, 0x0A, min(count ?? .max, input.count - from))
        else { return nil }
        return UnsafeRawPointer(hit) - base
    }

    /// True when some line of `input` satisfies `test`.
    static func someLine(_ input: UnsafeRawBufferPointer, where test: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        var start = 0
        while start < input.count {
            let end = memchrIndex(input, from: start) ?? input.count
            if test(trimCR(UnsafeRawBufferPointer(rebasing: input[start..<end]))) { return true }
            start = end + 1
        }
        return false
    }

    /// The 1-based line holding byte `offset`.
    static func lineNumber(_ input: UnsafeRawBufferPointer, at offset: Int) -> Int {
        var counter = LineCounter(input)
        return counter.line(at: offset)
    }
}

/// Turns byte offsets into 1-based line numbers, counting forward (offsets asked for in increasing order
/// cost one pass over the input in total).
struct LineCounter {
    let input: UnsafeRawBufferPointer
    private var offset = 0
    private var line = 1

    init(_ input: UnsafeRawBufferPointer) { self.input = input }

    /// Where each element of a JSON array starts: its line, and the prefix that names it in errors
    /// (`item[3].`) when that line holds other elements too (a one-line response), else "".
    mutating func locate(_ elements: [JSONValue], name: String) -> [(line: Int, prefix: String)] {
        var lines: [Int] = []
        for e in elements {
            if case .object(let o) = e { lines.append(line(at: o.offset)) } else { lines.append(lines.last ?? line) }
        }
        return lines.indices.map { i in
            let shared = (i > 0 && lines[i - 1] == lines[i]) || (i + 1 < lines.count && lines[i + 1] == lines[i])
            return (lines[i], shared ? "\(name)[\(i)]." : "")
        }
    }

    mutating func line(at target: Int) -> Int {
        if target < offset {
            offset = 0
            line = 1
        }
        let end = min(target, input.count)
        while offset < end {
            if input[offset] == 0x0A { line += 1 }
            offset += 1
        }
        return line
    }
}
