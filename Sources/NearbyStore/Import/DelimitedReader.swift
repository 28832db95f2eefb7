import NearbyCore

/// CSV (RFC 4180 quoting) and TSV (no quoting: a field never holds a tab or newline) with a header row.
///
/// Columns are matched to `Place` fields by name, Nearby's own or TourAPI's (`contentid`, `contenttypeid`,
/// `mapx` = lon, `mapy` = lat, `createdtime`, `modifiedtime`, `firstimage`, `eventstartdate`, `addr1`,
/// … with `addr2` joined to `addr1`; names compared ignoring case and surrounding spaces);
/// `id, title, lat, lon, category` are required (the workload's `created modified areacode sigungucode`
/// and every other field are optional), columns with other names are ignored, so files with extra
/// columns import as they are. `accessibility` is a `;`-separated list. Lines count the header as line 1;
/// a CSV record spanning lines is reported at the line where it starts; rows of nothing but separators
/// (a spreadsheet's empty trailing rows) are skipped.
///
/// Spreadsheet damage repaired (`SpreadsheetRepair`): values are trimmed of spaces, times written in
/// exponent form or rounded to `…00000000` are read as the first moment they can stand for. The TSV path copies nothing: fields are byte ranges of the input, numbers are
/// parsed from bytes, and only the kept text fields become Strings (BENCHMARKS.md, "Import and export", has the
/// times on the 1M-place workload TSV).
enum DelimitedReader {
    static let requiredColumns =
        "id, title, lat, lon, category (or TourAPI's contentid, title, mapy, mapx, contenttypeid)"

    /// One record's fields as byte ranges, of the input (TSV) or of `scratch` (CSV, quotes resolved).
    struct Row {
        var ranges: [Range<Int>] = []
        var scratch: [UInt8] = []
    }

    static func read(_ input: UnsafeRawBufferPointer, separator: UInt8, quoting: Bool, into sink: inout RecordSink)
        throws
    {
        var pos = 0
        var line = 1
        var row = Row()
        let limit = sink.maxRecordBytes
        /// The next record; throws past the size limit before its end is looked for further (a line
        /// with no end in sight, a quoted field that does not close).
        func next() throws -> Result<Void, FieldError> {
            let (start, first) = (pos, line)
            let rest = input.count - pos
            if rest > limit + 2, Lines.memchrIndex(input, from: pos, count: limit + 2) == nil {
                try sink.checkSize(.max, line: first)
            }
            do throws(FieldError) {
                if quoting {
                    try splitCSV(input, &pos, &line, separator, &row, limit: limit)
                } else {
                    splitTSV(input, &pos, &line, separator, &row)
                }
            } catch {
                if error.field == tooLarge { try sink.checkSize(.max, line: first) }
                return .failure(error)
            }
            try sink.checkSize(min(pos, input.count) - start, line: first)
            return .success(())
        }
        if case .failure(let error) = try next() {
            throw UnsupportedInputError(file: sink.file, message: "header row: \(error.reason)")
        }
        let (columns, names) = try headerColumns(row, base: quoting ? nil : input, file: sink.file)
        let addr2 = names.firstIndex { $0.lowercased() == "addr2" }
        /// A field as this file's header names it (`mapy`), for messages.
        func columnName(_ field: String) -> String {
            guard let f = PlaceField(name: field), let i = columns.firstIndex(of: f) else { return field }
            return names[i]
        }
        func bytes(of column: Int) -> [UInt8] {
            quoting
                ? Array(row.scratch[row.ranges[column]])
                : Array(UnsafeRawBufferPointer(rebasing: input[row.ranges[column]]))
        }
        while pos < input.count {
            sink.advance(to: pos)
            let start = line
            if case .failure(let error) = try next() {
                try sink.reject(line: start, field: error.field, reason: error.reason)
                continue
            }
            if row.ranges.allSatisfy(\.isEmpty) { continue }  // blank line, or a row of empty cells
            guard row.ranges.count == columns.count else {
                try sink.reject(
                    line: start, field: "row", reason: "\(row.ranges.count) fields, the header has \(columns.count)")
                continue
            }
            var draft = PlaceDraft()
            do throws(FieldError) {
                if quoting {
                    try row.scratch.withUnsafeBytes { base in
                        Result { () throws(FieldError) in try fill(&draft, columns, row.ranges, base) }
                    }.get()
                } else {
                    try fill(&draft, columns, row.ranges, input)
                }
            } catch {
                try sink.reject(line: start, field: columnName(error.field), reason: error.reason)
                continue
            }
            do throws(FieldError) { try draft.checkRequired() } catch {
                try sink.reject(line: start, field: columnName(error.field), reason: error.reason)
                continue
            }
            if let a = addr2,
                let more = String(validating: bytes(of: a), as: UTF8.self).map(TextNormalization.trimmingSpaces),
                !more.isEmpty
            {
                draft.place.addr = draft.place.addr.map { $0 + " " + more } ?? more
            }
            SpreadsheetRepair.dateTime(&draft.place.created)
            SpreadsheetRepair.dateTime(&draft.place.modified)
            try sink.upsert(&draft.place, line: start) { columnName($0) }
        }
    }

    @inline(__always)
    private static func fill(
        _ draft: inout PlaceDraft, _ columns: [PlaceField?], _ ranges: [Range<Int>], _ base: UnsafeRawBufferPointer
    ) throws(FieldError) {
        for i in 0..<columns.count {
            if let f = columns[i] { try draft.set(f, utf8: UnsafeRawBufferPointer(rebasing: base[ranges[i]])) }
        }
    }

    /// A header name → its field: Nearby's name or TourAPI's, ignoring case.
    static func field(named name: String) -> PlaceField? {
        if let f = PlaceField(name: name) ?? TourAPIReader.fields[name] { return f }
        if name == "addr1" { return .addr }
        let lower = name.lowercased()
        return byLowercaseName[lower]
    }

    private static let byLowercaseName: [String: PlaceField] = {
        var map: [String: PlaceField] = ["addr1": .addr]
        for f in PlaceField.allCases { map[f.name.lowercased()] = f }
        for (name, f) in TourAPIReader.fields { map[name.lowercased()] = f }
        return map
    }()

    private static func headerColumns(_ row: Row, base: UnsafeRawBufferPointer?, file: String)
        throws(UnsupportedInputError) -> ([PlaceField?], [String])
    {
        let names = row.ranges.map { r in
            let text =
                base.map { String(decoding: UnsafeRawBufferPointer(rebasing: $0[r]), as: UTF8.self) }
                ?? String(decoding: row.scratch[r], as: UTF8.self)
            return TextNormalization.trimmingSpaces(text)
        }
        let columns = names.map(field(named:))
        for f in PlaceField.allCases where columns.filter({ $0 == f }).count > 1 {
            let both = names.indices.filter { columns[$0] == f }.map { names[$0] }
            let shown =
                Set(both).count == 1
                ? "column \(f.name) appears twice" : "columns \(both.joined(separator: " and ")) both give \(f.name)"
            throw UnsupportedInputError(file: file, message: "header row: \(shown)")
        }
        let missing: [PlaceField] = [.id, .title, .lat, .lon, .category].filter { !columns.contains($0) }
        guard missing.isEmpty else {
            let shown = names.prefix(12).map { MessageText.oneLine($0, limit: MessageText.echoLimit) }.joined(
                separator: ", ")
            throw UnsupportedInputError(
                file: file,
                message:
                    "not a supported format: the header row lacks \(missing.map(\.name).joined(separator: ", ")) (CSV/TSV need a header naming at least \(requiredColumns); found: \(shown))"
            )
        }
        return (columns, names)
    }

    /// The field `splitCSV` throws for a record over the size limit (no column has this name).
    private static let tooLarge = "\u{0}record"

    /// Splits the line at `pos` on `separator`; fields are ranges of `input`.
    private static func splitTSV(
        _ input: UnsafeRawBufferPointer, _ pos: inout Int, _ line: inout Int, _ separator: UInt8, _ row: inout Row
    ) {
        let end = Lines.memchrIndex(input, from: pos) ?? input.count
        var lineEnd = end
        if lineEnd > pos, input[lineEnd - 1] == 0x0D { lineEnd -= 1 }
        row.ranges.removeAll(keepingCapacity: true)
        var fieldStart = pos
        for i in pos..<lineEnd where input[i] == separator {
            row.ranges.append(fieldStart..<i)
            fieldStart = i + 1
        }
        row.ranges.append(fieldStart..<lineEnd)
        pos = end + 1
        line += 1
    }

    /// Splits the RFC 4180 record at `pos` (quoted fields may hold separators, `""` and newlines); field
    /// bytes go to `row.scratch`. On a malformed record, skips to the end of its line and throws.
    /// A record longer than `limit` bytes throws `tooLarge` as its field.
    private static func splitCSV(
        _ input: UnsafeRawBufferPointer, _ pos: inout Int, _ line: inout Int, _ separator: UInt8, _ row: inout Row,
        limit: Int
    ) throws(FieldError) {
        let start = pos
        row.ranges.removeAll(keepingCapacity: true)
        row.scratch.removeAll(keepingCapacity: true)
        let quote = UInt8(ascii: "\"")
        func skipLine() {
            pos = (Lines.memchrIndex(input, from: pos) ?? input.count) + 1
            line += 1
        }
        while true {
            let fieldStart = row.scratch.count
            if pos < input.count, input[pos] == quote {
                pos += 1
                while true {
                    guard pos < input.count else { throw FieldError(field: "csv", reason: "unterminated quoted field") }
                    guard pos - start <= limit else { throw FieldError(field: tooLarge, reason: "") }
                    let b = input[pos]
                    pos += 1
                    if b == quote {
                        if pos < input.count, input[pos] == quote {
                            row.scratch.append(quote)
                            pos += 1
                        } else {
                            break
                        }
                    } else {
                        if b == 0x0A { line += 1 }
                        row.scratch.append(b)
                    }
                }
                if pos < input.count, input[pos] == 0x0D, pos + 1 < input.count, input[pos + 1] == 0x0A { pos += 1 }
                if pos < input.count, input[pos] != separator, input[pos] != 0x0A {
                    skipLine()
                    throw FieldError(field: "csv", reason: "text after a closing quote")
                }
            } else {
                while pos < input.count, input[pos] != separator, input[pos] != 0x0A {
                    if input[pos] == quote {
                        skipLine()
                        throw FieldError(field: "csv", reason: "a quote inside an unquoted field")
                    }
                    row.scratch.append(input[pos])
                    pos += 1
                }
                if pos <= input.count, row.scratch.count > fieldStart, row.scratch.last == 0x0D,
                    pos == input.count || input[pos] == 0x0A
                {
                    row.scratch.removeLast()
                }
            }
            row.ranges.append(fieldStart..<row.scratch.count)
            if pos < input.count, input[pos] == separator {
                pos += 1
                continue
            }
            pos += 1  // past the newline (or the end)
            line += 1
            return
        }
    }
}
