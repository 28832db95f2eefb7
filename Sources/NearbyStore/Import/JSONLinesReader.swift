import NearbyCore

/// Canonical JSON lines: one `PlaceJSON` object per line; blank lines are skipped. A line that is not a
/// complete object (e.g. truncated by an interrupted write) is a bad record: `file:7: json: ...`.
enum JSONLinesReader {
    static func read(_ input: UnsafeRawBufferPointer, into sink: inout RecordSink) throws {
        // A line's end is looked for no further than the size limit: a line without one (a huge record,
        // or an input of zeros) is refused without reading the rest.
        try Lines.forEach(input, limit: sink.maxRecordBytes) { (line, number, end) throws in
            guard end >= 0 else { return try sink.checkSize(.max, line: number) }
            sink.advance(to: end)
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
            var place: Place
            do throws(PlaceJSON.DecodeError) { place = try PlaceJSON.decode(line) } catch {
                return try sink.reject(line: number, field: error.field, reason: error.reason)
            }
            try sink.upsert(&place, line: number)
        }
    }
}
