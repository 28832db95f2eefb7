import NearbyCore

/// Canonical JSON lines: one `PlaceJSON` object per line; blank lines are skipped. A line that is not a
/// complete object (e.g. truncated by an interrupted write) is a bad record: `file:7: json: ...`.
enum JSONLinesReader {
    static func read(_ input: UnsafeRawBufferPointer, into sink: inout RecordSink) throws {
        try Lines.forEach(input) { (line, number, end) throws in
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
