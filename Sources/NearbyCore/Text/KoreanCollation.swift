import Foundation

/// Korean title order as binary sort keys: compare keys byte by byte (memcmp), or compare the dense
/// integer ranks from `ranks(of:)`; never compare titles with Swift's `<` (code point order, and slow).
///
/// The order is ICU's `ko` collation (CLDR common/collation/ko.xml: the CLDR root order — UTS #10,
/// the Unicode Collation Algorithm with DUCET allkeys.txt — with `[reorder Hang Hani]`, Hangul and Han
/// before the other scripts), checked against ICU's sort keys on every title of the default dataset
/// (`KoreanCollationICUTests`). Titles are NFC-normalised first. Level 1 (primary), groups in this order:
///
/// 1. whitespace (all one weight) — not ignored, as in ICU's default `alternate=non-ignorable`;
/// 2. punctuation and symbols: ASCII ones by code point, then all others by code point;
/// 3. digits, by value (`٣` and `３` weigh like `3`), digit by digit as ICU does by default
///    (`numericOrdering=off`): `10월` sorts before `2층`;
/// 4. Hangul, as DUCET weighs it: a syllable is its jamo (initial, vowel, optional final; Unicode
///    §3.12, see `Hangul`), every initial before every vowel before every final, each in KS X 1026-1
///    order; a lone compatibility jamo weighs as the jamo it stands for (`ㄱ` as an initial, `ㅏ` as a
///    vowel, `ㄳ` as a final), so the order runs `ㄱ 가 가나 각 … ㄲ 까 … 힣 ㅏ ㄳ`, and `가A` sorts
///    after `각` (Latin after every jamo). Archaic jamo after the modern ones of their kind, by code point.
///    A Hanja with a Hangul reading in ko.xml (7,476 of U+4E00…U+9FFF, `HanjaReadings`, derived from
///    ICU's keys) weighs as its reading: `基` and `岐` as `기`, so `기 < 基 < 岐 < 基 1 < 기 2`;
/// 5. Han ideographs without a reading, in ICU's order (`HanOrder`, derived from ICU's keys: CLDR
///    root's order by radical, then stroke count; the code points of the Han blocks that ICU does not
///    know are group 8's);
/// 6. Latin letters a–z, case-insensitive; accented letters weigh as their base letter (`é` like `e`);
/// 7. other scripts (Greek, Cyrillic, kana, other Latin letters like `ß` `ø`…), by code point;
/// 8. everything else by code point.
///
/// Control and format characters (ZWSP, soft hyphen, BOM) are ignored. Ties at level 1 are broken as
/// in the UCA: level 2, accents (`cafe < café`, from the combining mark of an accented Latin letter or
/// a lone combining mark; a Hanja ranks after its reading, in ko.xml's order, below any accent), then
/// level 3, compatibility form (fullwidth, non-space whitespace, compatibility jamo) and case,
/// lowercase first as with ICU's default `caseFirst=off`. So
/// `cafe < Cafe < café`, and `가 < ㄱㅏ`. Strings equal at all three levels get equal keys (no identical level).
///
/// Key layout: level-1 weights as big-endian UInt16 units (≥ 0x0100; weights for "by code point"
/// groups are a group unit followed by two units of code point, or of `HanOrder`'s rank for Han),
/// 0x00, one level-2 byte per character (≥ 1: 1 none, 2…121 a Hanja's rank on its reading's last
/// jamo, 122… an accent), 0x00, one level-3 byte per character. About 4 bytes per character (a syllable or a Hanja with a reading
/// counts as its 2–3 jamo).
public enum KoreanCollation {
    /// The binary sort key of `s`: `a` sorts before `b` exactly when `sortKey(a)` is
    /// lexicographically less than `sortKey(b)`; equal keys mean equal in this collation.
    public static func sortKey(_ s: String) -> [UInt8] {
        var b = Builder()
        appendSortKey(s, to: &b)
        return b.key
    }

    /// Dense ranks of `titles` in collation order: `ranks[i] < ranks[j]` exactly when title i sorts
    /// before title j, equal keys get equal ranks, and ranks run 0..<distinct count. One pass builds
    /// all keys in one flat buffer (`SortKeys`), then sorts them.
    public static func ranks(of titles: [String]) -> [UInt32] {
        SortKeys(count: titles.count, bytes: titles.reduce(0) { $0 + 4 * $1.utf8.count + 2 }) { i, b in
            appendSortKey(titles[i], to: &b)
        }.ranks()
    }

    /// The keys of n strings in one flat buffer.
    struct SortKeys {
        private var builder = Builder()
        private var ends: [Int]

        /// Keys of `n` strings whose keys `appendKey(i, &builder)` appends. `bytes` is room for
        /// all keys (about 4 per UTF-8 byte, plus 2): reserved, not touched, so a generous guess costs
        /// address space only, while growing the buffer would hold the old and new copy at once.
        init(count n: Int, bytes: Int, appendKey: (Int, inout Builder) -> Void) {
            builder.key.reserveCapacity(bytes)
            ends = [Int](repeating: 0, count: n)
            for i in 0..<n {
                appendKey(i, &builder)
                ends[i] = builder.key.count
            }
        }

        /// Keys already built: key i is `keys[ends[i − 1] ..< ends[i]]` (from 0 for i = 0).
        init(keys: [UInt8], ends: [Int]) {
            builder.key = keys
            self.ends = ends
        }

        /// Dense ranks of the keys (`ranks(of:)`).
        ///
        /// Performance: a most-significant-digit sort of the keys by 8-byte digits (BENCHMARKS.md,
        /// "Korean title order with Hanja", has the cost on the 1M workload).
        func ranks() -> [UInt32] {
            let n = ends.count
            return builder.key.withUnsafeBufferPointer { b in
                ends.withUnsafeBufferPointer { e in
                    func key(_ i: Int) -> UnsafeBufferPointer<UInt8> {
                        let start = i == 0 ? 0 : e[i - 1]
                        return UnsafeBufferPointer(rebasing: b[start..<e[i]])
                    }
                    // MSD by 8-byte digits: sort a group on (next 8 key bytes as a big-endian word, bytes
                    // left capped at 9), then each run that ties on a full word, 8 bytes deeper. Titles that
                    // share a long prefix (a town's name) have it read once per 8 bytes, not per comparison.
                    var entries = [(word: UInt64, left: UInt32, index: UInt32)](repeating: (0, 0, 0), count: n)
                    for i in 0..<n { entries[i].index = UInt32(i) }
                    entries.withUnsafeMutableBufferPointer { all in
                        var groups = [(lo: 0, hi: n, depth: 0)]
                        while let (lo, hi, depth) = groups.popLast() {
                            for i in lo..<hi {
                                let k = key(Int(all[i].index))
                                var w: UInt64 = 0
                                for j in depth..<depth + 8 { w = w << 8 | UInt64(j < k.count ? k[j] : 0) }
                                all[i].word = w
                                all[i].left = UInt32(min(max(k.count - depth, 0), 9))
                            }
                            var group = UnsafeMutableBufferPointer(rebasing: all[lo..<hi])
                            group.sort { ($0.word, $0.left) < ($1.word, $1.left) }
                            var i = lo
                            while i < hi {
                                var j = i + 1
                                while j < hi && all[j].word == all[i].word && all[j].left == all[i].left { j += 1 }
                                if j - i > 1 && all[i].left == 9 { groups.append((i, j, depth + 8)) }
                                i = j
                            }
                        }
                    }
                    var ranks = [UInt32](repeating: 0, count: n)
                    var rank: UInt32 = 0
                    for j in 0..<n {
                        if j > 0
                            && KoreanCollation.compare(key(Int(entries[j - 1].index)), key(Int(entries[j].index))) != 0
                        {
                            rank += 1
                        }
                        ranks[Int(entries[j].index)] = rank
                    }
                    return ranks
                }
            }
        }
    }

    /// memcmp order of two keys, shorter first on a common prefix: negative, zero or positive.
    public static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let m = min(a.count, b.count)
        if m > 0 {
            let c = memcmp(a.baseAddress!, b.baseAddress!, m)
            if c != 0 { return Int(c) }
        }
        return a.count - b.count
    }

    // MARK: - Weights

    static let whitespace: UInt16 = 0x0100
    static let asciiPunctuation: UInt16 = 0x0200  // + code point
    static let otherPunctuation: UInt16 = 0x0300  // then the code point in two units
    static let digit: UInt16 = 0x0400  // + value
    static let initial: UInt16 = 0x0500  // + L index; archaic initials from + 0x20
    static let vowel: UInt16 = 0x0600  // + V index; archaic vowels from + 0x20
    /// + T index (1…27); archaic finals from + 0x20, archaic compatibility jamo from + 0x80.
    static let final: UInt16 = 0x0700
    static let han: UInt16 = 0x0800  // then the rank in `HanOrder`
    static let latin: UInt16 = 0x0900  // + letter index
    static let otherLetter: UInt16 = 0x0A00  // then the code point
    static let other: UInt16 = 0x5000  // then the code point

    /// T index of the final-only compatibility jamo U+3131…U+3140 and U+3144 (ㄳ ㄵ ㄶ ㄺ…ㅀ ㅄ), else 0.
    static let compatibilityFinal: [UInt16: UInt16] = [
        0x3133: 3, 0x3135: 5, 0x3136: 6, 0x313A: 9, 0x313B: 10, 0x313C: 11, 0x313D: 12, 0x313E: 13,
        0x313F: 14, 0x3140: 15, 0x3144: 18,
    ]

    // Level-3 bits: compatibility form << 1 | uppercase.
    static let compatibilityBit: UInt8 = 2
    static let upperBit: UInt8 = 1

    /// Key under construction: level-1 units, and per character a level-2 accent byte (1 = none)
    /// and a level-3 variant byte. Reused between titles to avoid allocations.
    struct Builder {
        var key: [UInt8] = []
        var accents: [UInt8] = []
        var variants: [UInt8] = []

        @inline(__always) mutating func unit(_ w: UInt16) {
            key.append(UInt8(truncatingIfNeeded: w >> 8))
            key.append(UInt8(truncatingIfNeeded: w))
        }
        /// One character: its level-1 unit, no accent, and its variant bits.
        @inline(__always) mutating func char(_ w: UInt16, _ variant: UInt8 = 0) {
            unit(w)
            accents.append(1)
            variants.append(variant)
        }
        /// A character of a "by code point" group.
        mutating func codePoint(_ group: UInt16, _ v: UInt32, _ variant: UInt8 = 0) {
            unit(group)
            unit(UInt16(v >> 16))
            unit(UInt16(truncatingIfNeeded: v))
            accents.append(1)
            variants.append(variant)
        }
        /// Ends the title: separator, level 2, separator, level 3; clears the scratch levels.
        mutating func finish() {
            key.append(0)
            key.append(contentsOf: accents)
            key.append(0)
            key.append(contentsOf: variants)
            accents.removeAll(keepingCapacity: true)
            variants.removeAll(keepingCapacity: true)
        }
    }

    /// Appends the key of `s` to `b.key`.
    ///
    /// Fast path: decode the UTF-8 in place while every scalar is one NFC never changes
    /// (`TextNormalization.isStableScalar`); on the first other scalar, start over on the NFC form.
    static func appendSortKey(_ s: String, to b: inout Builder) {
        var s = s
        s.withUTF8 { appendSortKey(utf8: $0, to: &b) }
    }

    /// `appendSortKey` of a title given as valid UTF-8.
    static func appendSortKey(utf8: UnsafeBufferPointer<UInt8>, to b: inout Builder) {
        let mark = b.key.count
        let done = TextNormalization.forEachStableScalar(utf8) {
            appendScalar(Unicode.Scalar($0)!, to: &b)
            return true
        }
        if !done {
            b.key.removeSubrange(mark...)
            b.accents.removeAll(keepingCapacity: true)
            b.variants.removeAll(keepingCapacity: true)
            for u in TextNormalization.nfc(String(decoding: utf8, as: UTF8.self)).unicodeScalars {
                appendScalar(u, to: &b)
            }
        }
        b.finish()
    }

    /// Appends the weights of one scalar of an NFC string.
    @inline(__always) static func appendScalar(_ u: Unicode.Scalar, to b: inout Builder) {
        var v = u.value
        var compat: UInt8 = 0
        if v &- 0xFF01 < 0x5E {  // fullwidth ASCII: weigh as ASCII, mark as a compatibility form
            v -= 0xFEE0
            compat = compatibilityBit
        }
        if Hangul.isSyllable(v) {
            appendSyllable(v, to: &b)
        } else if v < 0x80 {
            switch v {
            case 0x61...0x7A: b.char(latin + UInt16(v - 0x61), compat)
            case 0x41...0x5A: b.char(latin + UInt16(v - 0x41), compat | upperBit)
            case 0x30...0x39: b.char(digit + UInt16(v - 0x30), compat)
            case 0x20: b.char(whitespace, compat)
            case 0x09...0x0D: b.char(whitespace, compatibilityBit)
            case 0x21...0x7E: b.char(asciiPunctuation + UInt16(v), compat)
            default: break  // other C0 controls and DEL are ignorable
            }
        } else if v &- 0x3131 < 0x5E {  // compatibility jamo: as the jamo they stand for
            if let l = Hangul.initialIndex(ofJamo: v) {
                b.char(initial + UInt16(l), compatibilityBit)
            } else if let t = compatibilityFinal[UInt16(v)] {
                b.char(final + t, compatibilityBit)
            } else if v &- 0x314F < 21 {
                b.char(vowel + UInt16(v - 0x314F), compatibilityBit)
            } else {
                b.char(final + 0x80 + UInt16(v - 0x3164), compatibilityBit)
            }
        } else if v &- 0x1100 < 0x100 {  // conjoining jamo (archaic ones: NFC composes the modern)
            switch v {
            case 0x1100..<0x1113: b.char(initial + UInt16(v - 0x1100))
            case 0x1113..<0x1161: b.char(initial + 0x20 + UInt16(v - 0x1113))
            case 0x1161..<0x1176: b.char(vowel + UInt16(v - 0x1161))
            case 0x1176..<0x11A8: b.char(vowel + 0x20 + UInt16(v - 0x1176))
            case 0x11A8..<0x11C3: b.char(final + UInt16(v - 0x11A7))
            default: b.char(final + 0x20 + UInt16(v - 0x11C3))
            }
        } else {
            appendRare(u, to: &b)
        }
    }

    /// Everything outside ASCII and Hangul: classified by Unicode properties (rare in titles).
    private static func appendRare(_ u: Unicode.Scalar, to b: inout Builder) {
        let v = u.value
        let p = u.properties
        switch p.generalCategory {
        case .control, .format, .surrogate:
            if p.isWhitespace { b.char(whitespace, compatibilityBit) }
        case .spaceSeparator, .lineSeparator, .paragraphSeparator:
            b.char(whitespace, compatibilityBit)
        case .nonspacingMark, .spacingMark, .enclosingMark:
            b.accents.append(accent(of: v))
            b.variants.append(0)
        case .decimalNumber:
            b.char(digit + UInt16(p.numericValue.map { Int($0) } ?? 0), compatibilityBit)
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
            .initialPunctuation, .finalPunctuation, .otherPunctuation,
            .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            b.codePoint(otherPunctuation, v)
        default:
            if (0xC0..<0x250).contains(v), let (base, mark) = latinBase(u) {
                b.unit(latin + UInt16((base | 0x20) - 0x61))
                b.accents.append(accent(of: mark))
                b.variants.append(base < 0x61 ? upperBit : 0)
            } else if let r = HanjaReadings.reading(of: v) {
                appendHanja(syllable: r.syllable, rank: r.rank, to: &b)
            } else if v &- 0x3400 < 0x1A00 || v &- 0x4E00 < 0x5200 || v &- 0xF900 < 0x200
                || v &- 0x20000 < 0x20000
            {
                if let rank = HanOrder.rank(of: v) { b.codePoint(han, rank) } else { b.codePoint(other, v) }
            } else if p.isAlphabetic || p.numericType != nil {
                b.codePoint(otherLetter, v, p.isUppercase ? upperBit : 0)
            } else {
                b.codePoint(other, v)
            }
        }
    }

    /// A Hanja with a Hangul reading: the syllable's jamo at levels 1 and 3; at level 2, the last jamo's
    /// byte is 1 + `rank` (2…121: after the syllable's 1, before every combining mark), as ICU's tailored
    /// secondary weight sits on the last of the reading's collation elements.
    private static func appendHanja(syllable v: UInt32, rank: UInt8, to b: inout Builder) {
        appendSyllable(v, to: &b)
        b.accents[b.accents.count - 1] = 1 + rank
    }

    /// A Hangul syllable as its jamo: initial, vowel and, when it has one, final.
    @inline(__always) private static func appendSyllable(_ v: UInt32, to b: inout Builder) {
        let s = v - Hangul.syllableBase
        let t = s % 28
        b.char(initial + UInt16(s / Hangul.syllablesPerInitial))
        b.char(vowel + UInt16(s % Hangul.syllablesPerInitial / 28))
        if t > 0 { b.char(final + UInt16(t)) }
    }

    /// The ASCII letter and first combining mark of a precomposed Latin letter (`É` → `E`, U+0301).
    private static func latinBase(_ u: Unicode.Scalar) -> (UInt32, UInt32)? {
        let d = Array(String(u).decomposedStringWithCanonicalMapping.unicodeScalars)
        guard d.count >= 2, d[0].isASCII, d[0].properties.isAlphabetic else { return nil }
        return (d[0].value, d[1].value)
    }

    /// Level-2 byte of a combining mark: 122… in code point order from U+0300 (clipped at 255, so
    /// U+0300…U+0385 are told apart); 1 is "no accent", 2…121 a Hanja's rank (`appendHanja`).
    private static func accent(of mark: UInt32) -> UInt8 {
        UInt8(122 + min(mark &- 0x300, 133))
    }
}
