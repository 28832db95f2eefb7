import Foundation

/// Unicode normalisation with a fast path for the text Nearby actually sees.
///
/// Most titles are ASCII, Hangul syllables and common punctuation, all of which are already in NFC;
/// for those `nfc` returns its input without calling Foundation (whose normaliser bridges through
/// NSString and costs about a microsecond per title). Everything else goes through Foundation's
/// `precomposedStringWithCanonicalMapping` (Unicode Standard Annex #15).
public enum TextNormalization {
    /// `s` without leading and trailing spaces: tab and Unicode's space separators, what Foundation's
    /// `CharacterSet.whitespaces` holds. Foundation's `trimmingCharacters` bridges through NSString, a
    /// fixed cost per call that outweighs the parsing of a small CSV or a batch line.
    public static func trimmingSpaces(_ s: some StringProtocol) -> String {
        let scalars = String(s).unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else {
            return ""
        }
        return String(scalars[first...last])
    }

    private static func isSpace(_ u: Unicode.Scalar) -> Bool {
        u.isASCII ? u == " " || u == "\t" : u.properties.generalCategory == .spaceSeparator
    }

    /// `s` in Normalization Form C.
    public static func nfc(_ s: String) -> String {
        isKnownNFC(s) ? s : s.precomposedStringWithCanonicalMapping
    }

    /// True when every scalar of `s` lies in a range whose characters have NFC_Quick_Check = Yes and
    /// canonical combining class 0 (UAX #15 §9): such a string is in NFC whatever follows what.
    /// False means "maybe not", never "not".
    public static func isKnownNFC(_ s: String) -> Bool {
        if let known = s.utf8.withContiguousStorageIfAvailable({ isASCII($0) || forEachStableScalar($0) { _ in true } })
        {
            return known
        }
        for u in s.unicodeScalars where !isStableScalar(u.value) { return false }
        return true
    }

    /// Decodes valid UTF-8 (a Swift string's) and calls `body` with each scalar while the scalars are
    /// NFC-stable (`isStableScalar`) and `body` returns true. Returns false when it stopped early: the
    /// text then needs the general path (`nfc`, or a per-scalar fallback).
    @inline(__always) static func forEachStableScalar(
        _ utf8: UnsafeBufferPointer<UInt8>, _ body: (UInt32) -> Bool
    ) -> Bool {
        var i = 0
        while i < utf8.count {
            let c = UInt32(utf8[i])
            var v = c
            var len = 1
            if c >= 0xF0 {
                v =
                    (c & 0x07) << 18 | (UInt32(utf8[i + 1]) & 0x3F) << 12 | (UInt32(utf8[i + 2]) & 0x3F) << 6
                    | (UInt32(utf8[i + 3]) & 0x3F)
                len = 4
            } else if c >= 0xE0 {
                v = (c & 0x0F) << 12 | (UInt32(utf8[i + 1]) & 0x3F) << 6 | (UInt32(utf8[i + 2]) & 0x3F)
                len = 3
            } else if c >= 0xC0 {
                v = (c & 0x1F) << 6 | (UInt32(utf8[i + 1]) & 0x3F)
                len = 2
            }
            guard isStableScalar(v), body(v) else { return false }
            i += len
        }
        return true
    }

    @inline(__always) static func isASCII(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var or: UInt8 = 0
        for x in b { or |= x }
        return or < 0x80
    }

    /// Ranges that NFC never changes and that never combine with a neighbour: ASCII and Latin up to
    /// U+02FF, general punctuation U+2010…U+205E, CJK symbols U+3000…U+3029, compatibility jamo,
    /// CJK unified ideographs, precomposed Hangul syllables, full- and halfwidth forms.
    @inline(__always) static func isStableScalar(_ v: UInt32) -> Bool {
        v < 0x300 || (v &- 0xAC00) < 11_172 || (v &- 0x3131) < 0x5E || (v &- 0x2010) < 0x4F
            || (v &- 0x3000) < 0x2A || (v &- 0x4E00) < 0x5200 || (v &- 0xFF01) < 0xDC
    }
}
