/// The one number grammar for text from outside (query parameters, URLs, TourAPI values, coordinate
/// lines, batch files), the one import uses for its files too (`JSONNumber.parseDouble`): surrounding
/// spaces and tabs trimmed (`TextNormalization.trimmingSpaces`), then an optional sign, decimal digits
/// with an optional decimal point (at least one digit), and an optional exponent (`e` or `E`, an
/// optional sign, digits). Nothing else: no hexadecimal, no `nan` or `inf`, no NUL or other control
/// character, no text before or after. docs/query.md, "Numbers and dates", says the same.
///
/// Not Swift's `Double(String)`: that is C's `strtod`, which reads `0x25` as 37 and stops at a NUL
/// byte, so `37\u{0}abc` would read as 37.
public enum DecimalNumber {
    /// A finite `Double`, or nil when `text` is not a decimal number or is too large for one.
    public static func double(_ text: some StringProtocol) -> Double? {
        var t = TextNormalization.trimmingSpaces(text)
        guard let v = t.withUTF8({ JSONNumber.parseDouble(UnsafeRawBufferPointer($0)) }), v.isFinite else { return nil }
        return v
    }

    /// An `Int`: an optional sign and decimal digits (no point, no exponent), nil when out of range.
    public static func integer(_ text: some StringProtocol) -> Int? {
        var t = TextNormalization.trimmingSpaces(text)
        return t.withUTF8 { JSONNumber.parseInt(UnsafeRawBufferPointer($0)) }
    }
}
