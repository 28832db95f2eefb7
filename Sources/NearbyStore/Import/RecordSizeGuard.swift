/// The record size limit, checked on an input as it arrives, before the reader sees any of it: what
/// lets an input that must be read to its end before it is parsed (standard input, a pipe) be refused
/// at the first record over the limit instead of at its end, which an endless input never reaches.
///
/// It sees a lower bound of each record's size, so it never refuses a record the reader would keep:
/// for JSON lines, CSV and TSV the longest line (a record holds at least one line; a CR alone ends a
/// line too, for CR-only files); for JSON documents (TourAPI, Kakao, GeoJSON) the longest run without
/// a structural character outside strings (`{}[],:`), that is the longest string, number or blank run,
/// which lies within one record or outside all of them. The reader then checks whole records.
/// Line and structural bytes are ASCII, which CP949 never uses inside a character.
public struct RecordSizeGuard {
    public let file: String
    public let maxRecordBytes: Int
    private let lines: Bool
    private var run = 0
    private var lf = 0
    private var cr = 0
    private var inString = false
    private var escaped = false

    public init(format: ImportFormat, file: String, maxRecordBytes: Int) {
        self.file = file
        self.maxRecordBytes = maxRecordBytes
        switch format {
        case .jsonl, .csv, .tsv: lines = true
        case .tourapi, .kakao, .geojson: lines = false
        }
    }

    /// Checks the next bytes of the input; throws the `file:line` error the reader would give.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(RecordError) {
        var run = self.run
        defer { self.run = run }
        for b in bytes {
            if b == 0x0A { lf += 1 } else if b == 0x0D { cr += 1 }
            if lines {
                run = b == 0x0A || b == 0x0D ? 0 : run + 1
            } else if inString {
                run += 1
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == 0x22 {
                    inString = false
                }
            } else {
                switch b {
                case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ","),
                    UInt8(ascii: ":"):
                    run = 0
                case 0x22:
                    inString = true
                    run += 1
                default: run += 1
                }
            }
            if run > maxRecordBytes {
                throw RecordTooLarge.error(
                    file: file, line: (lf > 0 ? lf : cr) + 1, field: "record", limit: maxRecordBytes)
            }
        }
    }
}
