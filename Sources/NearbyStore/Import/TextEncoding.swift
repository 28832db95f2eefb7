#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The text encodings an input may be in. JSON is UTF-8 by definition (RFC 8259); CSV/TSV saved by
/// Korean Excel is CP949 (Microsoft's superset of EUC-KR; UHC in iconv).
public enum TextEncoding: String, CaseIterable, Sendable {
    case utf8 = "utf-8"
    /// CP949 / UHC, which reads EUC-KR too (EUC-KR is a subset).
    case cp949

    /// Also accepted for `--encoding`.
    public init?(name: String) {
        switch name.lowercased() {
        case "utf-8", "utf8": self = .utf8
        case "cp949", "euc-kr", "euckr", "uhc", "ms949": self = .cp949
        default: return nil
        }
    }

    /// The encoding of an input from its first bytes `head` (`cut` when the input goes on): UTF-8 when
    /// they are valid UTF-8 (a sequence cut at the end does not count against it); else CP949 when it decodes as CP949 and at least half
    /// of its non-ASCII characters are Hangul syllables (Korean text; a stray bad byte in a UTF-8 file
    /// decodes as some Hanja, not as Korean); nil for UTF-16 (its byte order mark); else
    /// UTF-8. Text read as UTF-8 that is not gets `invalid UTF-8` errors field by field, never garbled text.
    static func detect(_ head: UnsafeRawBufferPointer, cut: Bool) -> TextEncoding? {
        if head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) { return nil }
        if isUTF8(head, cutAtEnd: cut) { return .utf8 }
        if let utf8 = CP949.decode(head, cutAtEnd: cut) {
            var korean = 0
            var other = 0
            for scalar in String(decoding: utf8, as: UTF8.self).unicodeScalars where !scalar.isASCII {
                if (0xAC00...0xD7A3).contains(scalar.value) { korean += 1 } else { other += 1 }
            }
            if korean >= other { return .cp949 }
        }
        return .utf8
    }

    private static func isUTF8(_ bytes: UnsafeRawBufferPointer, cutAtEnd: Bool) -> Bool {
        var body = bytes
        if cutAtEnd {
            // Drop a multi-byte sequence the end of the prefix cut in two.
            var start = bytes.count
            while start > 0, bytes.count - start < 4, bytes[start - 1] & 0xC0 == 0x80 { start -= 1 }
            if start > 0, bytes[start - 1] >= 0xC0 { body = UnsafeRawBufferPointer(rebasing: bytes[..<(start - 1)]) }
        }
        return String(validating: body, as: UTF8.self) != nil
    }
}

/// CP949 → UTF-8 through glibc's iconv ("CP949" is UHC: EUC-KR plus the 8,822 extra Hangul syllables).
/// The iconv handle is the only unsafe state, opened and closed inside `decode`.
enum CP949 {
    /// The UTF-8 bytes of `input`, or nil when a byte sequence is not CP949. With `cutAtEnd`, an
    /// incomplete sequence at the very end is dropped instead of failing (a prefix of a longer file).
    static func decode(_ input: UnsafeRawBufferPointer, cutAtEnd: Bool = false) -> [UInt8]? {
        let cd = iconv_open("UTF-8", "CP949")
        guard cd != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(cd) }
        // Each CP949 byte becomes at most 3 UTF-8 bytes (a 2-byte Hangul syllable becomes 3).
        var output = [UInt8](repeating: 0, count: input.count * 3 / 2 + 4)
        guard let base = input.baseAddress else { return [] }
        var inLeft = input.count
        var outLeft = output.count
        let ok = output.withUnsafeMutableBytes { out -> Bool in
            var inPtr: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(
                mutating: base.assumingMemoryBound(to: CChar.self))
            var outPtr: UnsafeMutablePointer<CChar>? = out.baseAddress!.assumingMemoryBound(to: CChar.self)
            let r = iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
            return r != -1 || (cutAtEnd && errno == EINVAL)
        }
        guard ok else { return nil }
        output.removeLast(outLeft)
        return output
    }
}
