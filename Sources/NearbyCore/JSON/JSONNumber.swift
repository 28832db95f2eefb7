import Foundation

/// Decimal numbers to and from UTF-8 bytes, exactly.
///
/// Parsing takes Clinger's fast path (W. D. Clinger, "How to Read Floating Point Numbers Accurately",
/// PLDI 1990): a mantissa of at most 2^53 scaled by 10^k with |k| ≤ 22 is one correctly rounded IEEE
/// multiplication or division of two exact values, so the result is exact-as-rounded. Everything else
/// (17-digit shortest forms, huge exponents) falls back to C's `strtod`, which rounds correctly.
/// Writing gives Swift's `description`, the shortest text that reads back to the same Double.
public enum JSONNumber {
    private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    /// Parses `[+-]digits[.digits][(e|E)[+-]digits]` (at least one mantissa digit, nothing else);
    /// nil for any other text. Overflowing magnitudes give ±infinity, as `strtod` does.
    public static func parseDouble(_ s: UnsafeRawBufferPointer) -> Double? {
        var i = 0
        let n = s.count
        var negative = false
        if i < n, s[i] == UInt8(ascii: "-") || s[i] == UInt8(ascii: "+") {
            negative = s[i] == UInt8(ascii: "-")
            i += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0  // significant digits accumulated in `mantissa`
        var exponent = 0  // decimal exponent to apply to `mantissa`
        var sawDigit = false
        var exact = true  // false when digits were dropped from the mantissa
        while i < n, s[i] &- 0x30 < 10 {
            sawDigit = true
            accumulate(s[i] &- 0x30, &mantissa, &digits, &exponent, &exact, fraction: false)
            i += 1
        }
        if i < n, s[i] == UInt8(ascii: ".") {
            i += 1
            while i < n, s[i] &- 0x30 < 10 {
                sawDigit = true
                accumulate(s[i] &- 0x30, &mantissa, &digits, &exponent, &exact, fraction: true)
                i += 1
            }
        }
        guard sawDigit else { return nil }
        if i < n, s[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var expNegative = false
            if i < n, s[i] == UInt8(ascii: "-") || s[i] == UInt8(ascii: "+") {
                expNegative = s[i] == UInt8(ascii: "-")
                i += 1
            }
            var e = 0
            var expDigits = 0
            while i < n, s[i] &- 0x30 < 10 {
                e = min(e * 10 + Int(s[i] &- 0x30), 100_000)
                i += 1
                expDigits += 1
            }
            guard expDigits > 0 else { return nil }
            exponent += expNegative ? -e : e
        }
        guard i == n else { return nil }
        if exact, mantissa <= 1 << 53, (-22...22).contains(exponent) {
            var v = Double(mantissa)
            v = exponent < 0 ? v / powersOfTen[-exponent] : v * powersOfTen[exponent]
            return negative ? -v : v
        }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: n + 1) { buf in
            for k in 0..<n { buf[k] = CChar(bitPattern: s[k]) }
            buf[n] = 0
            return strtod(buf.baseAddress!, nil)
        }
    }

    @inline(__always)
    private static func accumulate(
        _ d: UInt8, _ m: inout UInt64, _ digits: inout Int, _ exponent: inout Int,
        _ exact: inout Bool, fraction: Bool
    ) {
        if digits < 19 {
            m = m * 10 + UInt64(d)
            if m != 0 { digits += 1 }
            if fraction { exponent -= 1 }
        } else {
            if d != 0 { exact = false }
            if !fraction { exponent += 1 }
        }
    }

    /// Parses `[+-]digits` into an Int; nil for other text or on overflow.
    public static func parseInt(_ s: UnsafeRawBufferPointer) -> Int? {
        var i = 0
        var negative = false
        if i < s.count, s[i] == UInt8(ascii: "-") || s[i] == UInt8(ascii: "+") {
            negative = s[i] == UInt8(ascii: "-")
            i += 1
        }
        guard i < s.count else { return nil }
        var v = 0
        while i < s.count {
            let d = s[i] &- 0x30
            guard d < 10 else { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (a, o2) = negative ? m.subtractingReportingOverflow(Int(d)) : m.addingReportingOverflow(Int(d))
            guard !o1, !o2 else { return nil }
            v = a
            i += 1
        }
        return v
    }

    /// Appends the shortest decimal text that reads back to exactly `value` (finite values only):
    /// `description`'s text, handed over by `write(to:)` as bytes. `description` makes a `String` a
    /// number, a heap allocation for the 17 or 18 characters of most distances.
    public static func append(_ value: Double, to out: inout [UInt8]) {
        var sink = ByteSink()
        swap(&sink.bytes, &out)
        value.write(to: &sink)
        swap(&sink.bytes, &out)
    }

    /// A text stream into a byte array: the standard library's numbers write their ASCII text through
    /// `_writeASCII` (its default makes a `String` of it for `write`).
    private struct ByteSink: TextOutputStream {
        var bytes: [UInt8] = []
        mutating func write(_ text: String) {
            var text = text
            text.withUTF8 { bytes.append(contentsOf: $0) }
        }
        mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }
    }

    /// Appends an integer in decimal, or `null` for nil (a total the query did not count).
    public static func appendOrNull(_ value: Int?, to out: inout [UInt8]) {
        if let value { append(value, to: &out) } else { out.append(contentsOf: "null".utf8) }
    }

    /// Appends an integer in decimal.
    public static func append(_ value: Int, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var m = value.magnitude
        guard m >= 10 else {
            out.append(0x30 + UInt8(m))
            return
        }
        let start = out.count
        while m > 0 {
            out.append(0x30 + UInt8(m % 10))
            m /= 10
        }
        out[start...].reverse()
    }
}
