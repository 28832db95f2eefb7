/// Hangul syllable arithmetic and the initial consonants (초성) used by collation and keyword search.
///
/// Source: The Unicode Standard 15.1, §3.12 "Conjoining Jamo Behavior": a precomposed syllable
/// U+AC00…U+D7A3 is `SBase + (L·VCount + V)·TCount + T` with L < 19 initials, V < 21 vowels and
/// T < 28 finals (T = 0: no final). The jamo inside each of L, V and T are numbered in the South Korean
/// dictionary order of KS X 1026-1 (ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ for initials, double consonants
/// right after their single ones), so syllable code point order is already dictionary (가나다) order.
public enum Hangul {
    public static let syllableBase: UInt32 = 0xAC00
    public static let syllableCount: UInt32 = 11_172
    /// Syllables that share one initial consonant: VCount · TCount = 21 · 28.
    public static let syllablesPerInitial: UInt32 = 588
    public static let initialCount = 19

    /// The Hangul Compatibility Jamo (U+3131…) that can be initials, in L-index order.
    /// These are what a keyboard types when a consonant stands alone, e.g. `ㄱㅂㄱ`.
    public static let compatibilityInitials: [Unicode.Scalar] = [
        "\u{3131}", "\u{3132}", "\u{3134}", "\u{3137}", "\u{3138}", "\u{3139}", "\u{3141}",
        "\u{3142}", "\u{3143}", "\u{3145}", "\u{3146}", "\u{3147}", "\u{3148}", "\u{3149}",
        "\u{314A}", "\u{314B}", "\u{314C}", "\u{314D}", "\u{314E}",
    ]

    /// True for a precomposed Hangul syllable U+AC00…U+D7A3.
    @inlinable public static func isSyllable(_ v: UInt32) -> Bool {
        v &- syllableBase < syllableCount
    }

    /// L index (0..<19) of a precomposed syllable's initial consonant; the caller checks `isSyllable`.
    @inlinable public static func initialIndex(ofSyllable v: UInt32) -> UInt32 {
        (v &- syllableBase) / syllablesPerInitial
    }

    /// L index of a compatibility jamo that can be an initial (ㄱ → 0 … ㅎ → 18), or of a conjoining
    /// choseong U+1100…U+1112 (what NFD makes of a syllable's initial); nil for anything else,
    /// including the final-only clusters (ㄳ ㄵ …) and the vowels.
    @inlinable public static func initialIndex(ofJamo v: UInt32) -> UInt32? {
        if v &- 0x1100 < 19 { return v &- 0x1100 }
        guard v &- 0x3131 < 0x1E else { return nil }
        let l = compatibilityInitialIndex[Int(v &- 0x3131)]
        return l < 0 ? nil : UInt32(l)
    }

    /// For U+3131…U+314E: the L index, or -1 for a final-only cluster (ㄳ ㄵ ㄶ ㄺ…ㅀ ㅄ).
    @usableFromInline static let compatibilityInitialIndex: [Int8] = [
        0, 1, -1, 2, -1, -1, 3, 4, 5, -1, -1, -1, -1, -1, -1, -1,  // ㄱ ㄲ ㄳ ㄴ ㄵ ㄶ ㄷ ㄸ ㄹ ㄺ…ㅀ
        6, 7, 8, -1, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,  // ㅁ ㅂ ㅃ ㅄ ㅅ ㅆ ㅇ ㅈ ㅉ ㅊ ㅋ ㅌ ㅍ ㅎ
    ]

    /// The initial consonants of a string's syllables as compatibility jamo (`경복궁` → `ㄱㅂㄱ`);
    /// other characters are kept as they are. Handy for showing what an initial search matches.
    public static func initials(of s: String) -> String {
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            let v = u.value
            out.append(isSyllable(v) ? compatibilityInitials[Int(initialIndex(ofSyllable: v))] : u)
        }
        return String(out)
    }
}
