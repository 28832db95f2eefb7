/// The lines of a text, split at LF bytes with a CR before each LF dropped, so files written on
/// Windows read like any other. (Splitting a `String` on the Character `"\n"` misses CR LF, which
/// Swift reads as one grapheme: a CRLF file would be one long line.)
public enum TextLines {
    /// Every line, empty ones included; a final LF leaves an empty last line, as `split` does.
    public static func of(_ text: String) -> [String] {
        text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
        }
    }
}
