import Foundation
import NearbyCore

/// `--format table`: aligned columns for a person — distance (when there is a centre), category, id,
/// title. Columns are as wide as their widest value (nothing is cut), measured in terminal columns.
/// Control characters in the data are shown escaped (`\u{1b}`), never sent to the terminal.
enum PlaceTableText {
    static func render(_ a: QueryAnswer, hasCentre: Bool, tookMs: Double) -> String {
        let matches = a.total.map { "\($0) match\($0 == 1 ? "" : "es"), " } ?? ""
        var text = "\(matches)page \(a.page), \(a.rows.count) shown (\(String(format: "%.1f", tookMs)) ms)\n"
        let rows = zip(a.rows, a.distances).map { p, d in
            (hasCentre
                ? [d.map { $0 >= 1000 ? String(format: "%.2f km", $0 / 1000) : String(format: "%.0f m", $0) } ?? "-"]
                : [])
                + [String(p.category), TerminalText.visible(p.id), TerminalText.visible(p.title)]
        }
        let header = (hasCentre ? ["distance"] : []) + ["cat", "id", "title"]
        let widths = header.indices.map { c in
            rows.reduce(TerminalText.width(header[c])) { max($0, TerminalText.width($1[c])) }
        }
        for row in [header] + rows {
            // Distances right-aligned, the other columns left-aligned; the last column is not padded.
            text +=
                row.indices.map { c in
                    c == row.count - 1 ? row[c] : TerminalText.pad(row[c], to: widths[c], right: hasCentre && c == 0)
                }.joined(separator: "  ") + "\n"
        }
        if let next = a.nextCursor { text += "next page: --cursor \(next)\n" }
        return text
    }
}

/// Text measured in terminal columns (after Unicode's East Asian Width, UAX #11, and wcwidth): wide
/// and fullwidth characters (Hangul syllables, CJK, fullwidth forms, most emoji) take two columns,
/// combining marks and Hangul medial/final jamo none, everything else one.
public enum TerminalText {
    public static func width(_ s: String) -> Int { s.unicodeScalars.reduce(0) { $0 + width($1) } }

    static func width(_ u: Unicode.Scalar) -> Int {
        switch u.value {
        case 0x0300...0x036F, 0x1160...0x11FF, 0x200B...0x200F, 0x20D0...0x20FF, 0xFE00...0xFE0F: return 0
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default: return 1
        }
    }

    /// `s` padded with spaces to `columns` terminal columns (never cut), on the left when `right`.
    public static func pad(_ s: String, to columns: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, columns - width(s)))
        return right ? fill + s : s + fill
    }

    /// `s` safe to print on a terminal: control, line-separator and bidi characters written as
    /// escapes (`MessageText`), so data cannot move the cursor, recolour or retitle the terminal.
    public static func visible(_ s: String) -> String { MessageText.oneLine(s, limit: .max) }
}
