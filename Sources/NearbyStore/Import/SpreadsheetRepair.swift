import NearbyCore

/// Undoes what spreadsheets do to TourAPI's `yyyyMMddHHmmss` times when a CSV passes through them.
///
/// Excel keeps 15 significant digits but shows (and, saved as CSV, writes) a 14-digit time as
/// `2.02501E+13`, or rounds it to `20250100000000`: the day, month or time fields become zeros that
/// are no date. Such a value is read as the first moment it can stand for — zero month or day fields
/// become 01 — so it stays a valid, comparable time no later than the true one (an undamaged record for
/// the same place still wins an upsert). A value that is neither form is left for the validator to report.
enum SpreadsheetRepair {
    static func dateTime(_ value: inout String?) {
        guard let text = value, !TourDate.isDateTime(text) else { return }
        var digits = text
        if let expanded = expandExponent(text) { digits = expanded }
        guard digits.utf8.count == 14, digits.utf8.allSatisfy({ $0 &- 0x30 < 10 }) else { return }
        var u = Array(digits.utf8)
        // Only trailing zeros are rounding: everything after the last non-zero digit must be 0.
        guard let lastNonZero = u.lastIndex(where: { $0 != 0x30 }), lastNonZero < 8 else { return }
        if u[4] == 0x30 && u[5] == 0x30 { u[5] = 0x31 }  // month 00 → 01
        if u[6] == 0x30 && u[7] == 0x30 { u[7] = 0x31 }  // day 00 → 01
        let repaired = String(decoding: u, as: UTF8.self)
        if TourDate.isDateTime(repaired) { value = repaired }
    }

    /// `2.02501E+13` → `20250100000000`: a decimal mantissa and a positive exponent, exactly.
    private static func expandExponent(_ s: String) -> String? {
        let parts = s.uppercased().split(separator: "E", omittingEmptySubsequences: false)
        guard parts.count == 2, let exponent = Int(parts[1].hasPrefix("+") ? parts[1].dropFirst() : parts[1]),
            (0...20).contains(exponent)
        else { return nil }
        let mantissa = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(mantissa.count),
            mantissa.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        else { return nil }
        let whole = String(mantissa[0])
        let fraction = mantissa.count == 2 ? String(mantissa[1]) : ""
        guard fraction.count <= exponent else { return nil }
        return whole + fraction + String(repeating: "0", count: exponent - fraction.count)
    }
}
