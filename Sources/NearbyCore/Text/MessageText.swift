/// Untrusted text made safe to print in a one-line message (`file:line: field: reason`).
///
/// Input bytes echoed raw into stderr can split a message into several lines (a newline inside a
/// quoted CSV field), drive the terminal (ESC sequences such as `\u{1B}[31m`, bidi overrides) or make a
/// 50 MB error out of a 50 MB header line. So every echoed value is quoted, cut to `echoLimit` Unicode
/// scalars (not Characters: one grapheme may hold thousands of combining marks) and has its control
/// characters written as visible JSON-style escapes.
public enum MessageText {
    /// How much of an echoed value a message shows.
    public static let echoLimit = 80
    /// The longest whole message `oneLine` lets through.
    public static let lineLimit = 2000

    /// `"value"` with `"` and `\` escaped and control characters visible (`\n`, `\u001b`), cut to
    /// `limit` scalars and then marked with `…` after the closing quote.
    public static func quoted(_ s: some StringProtocol, limit: Int = echoLimit) -> String {
        var out = "\""
        var shown = 0
        for u in s.unicodeScalars {
            if shown == limit { return out + "\"…" }
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default: append(u, to: &out)
            }
            shown += 1
        }
        return out + "\""
    }

    /// `s` with control characters written as escapes (`\` and `"` left as they are: the message's own
    /// quoting is already done), cut to `lineLimit` scalars: a last line of defence for whole messages.
    public static func oneLine(_ s: String, limit: Int = lineLimit) -> String {
        guard s.unicodeScalars.contains(where: needsEscape) || s.utf8.count > limit else { return s }
        var out = ""
        var shown = 0
        for u in s.unicodeScalars {
            if shown == limit { return out + "…" }
            append(u, to: &out)
            shown += 1
        }
        return out
    }

    /// C0 and C1 controls, DEL, line and paragraph separators, and the bidirectional formatting
    /// characters (which can reorder what a terminal shows).
    @inline(__always) static func needsEscape(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF: true
        default: false
        }
    }

    private static func append(_ u: Unicode.Scalar, to out: inout String) {
        guard needsEscape(u) else {
            out.unicodeScalars.append(u)
            return
        }
        switch u {
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            let hex = String(u.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }
}
