import Foundation

/// Title keyword filter: Unicode-normalised, case-insensitive substring search with Hangul
/// initial-consonant (초성) search.
///
/// Both sides are folded the same way (`fold`): NFC, then per character ASCII and Unicode lowercase,
/// fullwidth forms to ASCII, the ideographic space to a space, conjoining initials (U+1100…) to
/// compatibility jamo, and other compatibility characters through NFKC (`①` → `1`, `ﬁ` → `fi`,
/// `㈜` → `(주)`). Compatibility jamo are *not* NFKC-folded: that would turn `ㄱㅏ` into `가`.
///
/// The rule: the folded keyword must occur in the folded title as a contiguous run where each keyword
/// character either equals the title character, or is a lone initial consonant (ㄱ ㄲ ㄴ ㄷ ㄸ ㄹ ㅁ
/// ㅂ ㅃ ㅅ ㅆ ㅇ ㅈ ㅉ ㅊ ㅋ ㅌ ㅍ ㅎ as compatibility jamo) and the title character is a syllable
/// beginning with that consonant. So `ㄱㅂㄱ`, `경ㅂ궁` and `복궁` match `경복궁`; `ㄲ` matches `까`
/// but not `가` (double initials match only themselves), `ㄱ` does not match `각`'s final, and vowels
/// or final-only clusters (`ㅏ`, `ㄳ`) match only themselves. An empty keyword matches every title.
///
/// Performance: fold titles once (`FoldedTitles`, or `fold` per place) and call `matches(folded:)`;
/// the check is a plain scan over UTF-16 units with no allocation (see BENCHMARKS.md for the cost).
public struct KeywordMatcher: Sendable, Hashable {
    /// The folded keyword.
    public let units: [UInt16]
    /// Per keyword unit: the L index (0..<19) when it is a lone initial consonant, else `exactOnly`.
    let initials: [UInt8]
    static let exactOnly: UInt8 = 0xFF

    public init(_ keyword: String) {
        units = Self.fold(keyword)
        initials = units.map { u in Hangul.initialIndex(ofJamo: UInt32(u)).map { UInt8($0) } ?? Self.exactOnly }
    }

    public var isEmpty: Bool { units.isEmpty }

    /// True when `title` contains the keyword (folds `title` first: for one-off checks).
    public func matches(_ title: String) -> Bool {
        matches(folded: Self.fold(title))
    }

    public func matches(folded title: [UInt16]) -> Bool {
        title.withUnsafeBufferPointer { matches(folded: $0) }
    }

    /// True when the folded title contains the keyword; `title` must come from `fold`.
    public func matches(folded title: UnsafeBufferPointer<UInt16>) -> Bool {
        let m = units.count, n = title.count
        if m == 0 { return true }
        if m > n { return false }
        return units.withUnsafeBufferPointer { p in
            initials.withUnsafeBufferPointer { cls in
                @inline(__always) func hit(_ j: Int, _ t: UInt16) -> Bool {
                    t == p[j] || (cls[j] != Self.exactOnly && Hangul.isSyllable(UInt32(t))
                        && Hangul.initialIndex(ofSyllable: UInt32(t)) == UInt32(cls[j]))
                }
                for i in 0...(n - m) where hit(0, title[i]) {
                    var j = 1
                    while j < m && hit(j, title[i + j]) { j += 1 }
                    if j == m { return true }
                }
                return false
            }
        }
    }

    /// The folded form of a title or keyword, as UTF-16 units (see the type's documentation).
    public static func fold(_ s: String) -> [UInt16] {
        var out: [UInt16] = []
        out.reserveCapacity(s.utf8.count)
        for u in TextNormalization.nfc(s).unicodeScalars {
            let v = u.value
            if v < 0x80 {
                out.append(UInt16(v &- 0x41 < 26 ? v | 0x20 : v))
            } else if Hangul.isSyllable(v) || v &- 0x3131 < 0x5E || v &- 0x4E00 < 0x5200
                || v &- 0x2010 < 0x18
            {
                out.append(UInt16(v))  // no case, no compatibility mapping: kept as is
            } else if v &- 0x1100 < 19 {
                out.append(UInt16(Hangul.compatibilityInitials[Int(v - 0x1100)].value))
            } else if v == 0x3000 {
                out.append(0x20)
            } else {
                out.append(contentsOf: String(u).precomposedStringWithCompatibilityMapping.lowercased().utf16)
            }
        }
        return out
    }
}

/// The folded titles of many places in one flat buffer, so a keyword filter over a million titles
/// scans contiguous memory: `matches(keyword, at: i)` tests the i-th title.
public struct FoldedTitles: Sendable {
    var units: [UInt16] = []
    /// `ends[i]` is where title i's units end (start: `ends[i-1]`, or 0).
    var ends: [UInt32] = []

    public init(_ titles: some Sequence<String>) {
        for t in titles { append(t) }
    }

    public mutating func append(_ title: String) {
        units.append(contentsOf: KeywordMatcher.fold(title))
        ends.append(UInt32(units.count))
    }

    public var count: Int { ends.count }

    public func matches(_ keyword: KeywordMatcher, at i: Int) -> Bool {
        let start = i == 0 ? 0 : Int(ends[i - 1])
        return units.withUnsafeBufferPointer {
            keyword.matches(folded: UnsafeBufferPointer(rebasing: $0[start..<Int(ends[i])]))
        }
    }
}
