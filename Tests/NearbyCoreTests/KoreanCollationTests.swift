import Foundation
import Testing

@testable import NearbyCore

@Suite struct KoreanCollationTests {
    /// Sorts by sort key, the way the engine does (lexicographic bytes), keeping input order on ties.
    func sorted(_ titles: [String]) -> [String] {
        titles.map { (KoreanCollation.sortKey($0), $0) }
            .sorted { $0.0.lexicographicallyPrecedes($1.0) }
            .map(\.1)
    }

    @Test func handBuiltListInExactOrder() {
        let expected = [
            "",
            " 공원",  // whitespace first
            "(주)한국관광",  // ASCII punctuation (ICU sorts punctuation by DUCET, not code point: see the doc)
            "·중앙시장",  // other punctuation (U+00B7) after ASCII punctuation
            "10월 축제",  // digits by value, digit by digit, before Hangul
            "1박2일 펜션",
            "2층 카페",
            "ㄱ",  // a lone initial right before the syllables it begins
            "가",
            "가나",
            "각",
            "가A",  // Latin after every jamo, a final too (ko: [reorder Hang Hani])
            "경복궁",
            "景福宮",  // a Hanja weighs as its reading (경 복 궁) at level 1, after it at level 2 (ICU's ko)
            "경복궁 야간",  // shorter first; then a space before any syllable
            "경복궁1",
            "경복궁가",
            "경복궁A",
            "깋",
            "ㄲ",  // the double initial after every ㄱ syllable
            "까치",
            "나비",
            "힣",
            "ㅏ",  // lone vowels, then final-only clusters, after all syllables
            "ㄳ",
            "丂",  // Han without a Hangul reading in ICU's ko after Hangul
            "apple 카페",  // Latin after Hangul and Han, case-insensitive: lowercase first on a tie
            "Apple 카페",
            "BTS 거리",
            "cafe",
            "Cafe",
            "café",  // accents outrank case: cafe < Cafe < café
            "Zoo",
            "Ωmega",  // other scripts after Latin
        ]
        var shuffled = expected
        var rng = SplitMix64(seed: 7)
        shuffled.shuffle(using: &rng)
        #expect(sorted(shuffled) == expected)
        #expect(sorted(expected.reversed()) == expected)
    }

    @Test func hanjaSortWithTheirReadingAsInICU() {
        // ICU's order (DuckDB 2.0.1: ORDER BY icu_sort_key(s, 'ko')): 基 and 岐 read 기; they tie with 기 at
        // level 1 and follow it at level 2, 基 before 岐 (ko.xml's order), so a later level-1 difference wins.
        let expected = [
            "기", "基", "岐", "基 1", "기 2", "기암", "基岩", "岐岩",
            "기암(基岩)리 관광지 202", "기암(岐岩)리 관광지 238", "기암(基岩)리 관광지 312",  // the 1M workload's
            "기암리", "기A", "基A", "岐B", "암", "岩", "ㄳ", "丂", "apple 카페",
        ]
        #expect(sorted(expected.reversed()) == expected)
        for (a, b) in zip(expected, expected.dropFirst()) {
            #expect(KoreanCollation.sortKey(a).lexicographicallyPrecedes(KoreanCollation.sortKey(b)), "\(a) < \(b)")
        }
        // Level 2 only: a Hanja ties with its reading at level 1; its weight sits on the reading's last
        // jamo, after no accent and before any accent there (ICU: 기̀ < 基 < ᄀ́ᅵ, the mark on ㄱ).
        #expect(KoreanCollation.sortKey("基").prefix(5) == KoreanCollation.sortKey("기").prefix(5))
        #expect(KoreanCollation.sortKey("기\u{300}").lexicographicallyPrecedes(KoreanCollation.sortKey("基")))
        #expect(
            KoreanCollation.sortKey("基").lexicographicallyPrecedes(KoreanCollation.sortKey("\u{1100}\u{301}\u{1175}")))
    }

    @Test func hanWithoutAReadingInRadicalAndStrokeOrderAsInICU() {
        // ICU (DuckDB 2.0.1): CLDR root orders Han by radical, then stroke count, across the blocks, so
        // U+2A6D9 (radical 1, 0 strokes) comes first and U+20000 sits between U+4E04 and U+4E0C;
        // code points of the Han blocks that ICU weighs as unassigned come after every script.
        let expected = ["\u{2A6D9}", "丂", "丄", "𠀀", "丌", "丌 1", "apple", "Ωmega", "\u{3FFFD}"]
        #expect(sorted(expected.reversed()) == expected)
        #expect(HanOrder.rank(of: 0x2A6D9) == 0 && HanOrder.rank(of: 0x4E02) == 1)
        #expect(HanOrder.rank(of: 0x57FA) == nil)  // 基 has a reading: HanjaReadings weighs it
        #expect(HanOrder.rank(of: 0xF900) == nil)  // NFC maps it to 豈
        #expect(HanOrder.rank(of: 0x41) == nil && HanOrder.rank(of: 0x40000) == nil)
    }

    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func titlesWithHanjaInICUOrder() throws {
        // Recorded from ICU by scripts/fetch_hanja_readings.py: every neighbour pair strictly in order.
        let url = Self.root.appendingPathComponent("Tests/NearbyCoreTests/Fixtures/hanja-titles-icu-order.txt")
        let lines = try String(contentsOf: url, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        try #require(
            lines.first?.hasPrefix("# Generated by scripts/fetch_hanja_readings.py") == true && lines.last == "")
        let expected = lines.dropFirst().dropLast().map(String.init)  // the header line, the final newline
        #expect(expected.count > 500)
        var out: [String] = []
        for (a, b) in zip(expected, expected.dropFirst())
        where !KoreanCollation.sortKey(a).lexicographicallyPrecedes(KoreanCollation.sortKey(b)) {
            out.append("\(a) | \(b)")
        }
        #expect(out == [], "\(out.count) neighbours out of ICU order")
    }

    @Test func generatedTablesHoldTheDataFiles() throws {
        // HanjaReadings.swift and HanOrder.swift embed data/hanja-ko.tsv and data/han-order-ko.txt,
        // written from them by scripts/fetch_hanja_readings.py (--swift-only): an edit to one side only
        // fails here.
        /// The first line (from 1) where a file and its table differ, or nil (the texts are too long to print).
        func firstDifference(_ file: String, _ table: String) -> Int? {
            let a = file.split(separator: "\n", omittingEmptySubsequences: false)
            let b = (table + "\n").split(separator: "\n", omittingEmptySubsequences: false)
            for i in 0..<max(a.count, b.count) where i >= a.count || i >= b.count || a[i] != b[i] { return i + 1 }
            return nil
        }
        let readings = try String(contentsOf: Self.root.appendingPathComponent("data/hanja-ko.tsv"), encoding: .utf8)
        let readingsLine = firstDifference(readings, HanjaReadings.text)
        #expect(readingsLine == nil, "data/hanja-ko.tsv and HanjaReadings.text differ at line \(readingsLine ?? 0)")
        let order = try String(contentsOf: Self.root.appendingPathComponent("data/han-order-ko.txt"), encoding: .utf8)
        let orderLine = firstDifference(order, HanOrder.text)
        #expect(orderLine == nil, "data/han-order-ko.txt and HanOrder.text differ at line \(orderLine ?? 0)")
        var count: UInt32 = 0  // each line: a code point, then the run's length in hex when above 1
        for line in order.split(separator: "\n") {
            let fields = line.split(separator: " ")
            count += fields.count > 1 ? UInt32(fields[1], radix: 16)! : 1
        }
        #expect(HanOrder.count == count)
    }

    @Test func swiftStringOrderIsNotThisOrder() {
        // Code point order puts uppercase before lowercase and Hangul before fullwidth; collation does not.
        #expect("Zoo" < "apple")
        #expect(KoreanCollation.sortKey("apple").lexicographicallyPrecedes(KoreanCollation.sortKey("Zoo")))
    }

    @Test func identicalAndCanonicallyEquivalentTitlesGetEqualKeys() {
        let nfc = "경복궁 café"
        let nfd = nfc.decomposedStringWithCanonicalMapping
        #expect(Array(nfd.unicodeScalars).count > Array(nfc.unicodeScalars).count)
        #expect(KoreanCollation.sortKey(nfd) == KoreanCollation.sortKey(nfc))
        #expect(KoreanCollation.sortKey("서울\u{200B}숲") == KoreanCollation.sortKey("서울숲"))  // ZWSP ignored
    }

    @Test func variantsDifferOnlyAfterLevelOne() {
        func primary(_ s: String) -> ArraySlice<UInt8> {
            let k = KoreanCollation.sortKey(s)
            return k[..<k.firstIndex(of: 0)!]
        }
        #expect(primary("ＡＢＣ１") == primary("abc1"))
        #expect(KoreanCollation.sortKey("ＡＢＣ１") != KoreanCollation.sortKey("ABC1"))
        #expect(primary("Résumé") == primary("resume"))
        #expect(primary("ᄀ") == primary("ㄱ"))  // conjoining and compatibility initials
        #expect(primary("a\tb") == primary("a b"))
    }

    @Test func emptyInputGivesNoRanks() {
        #expect(KoreanCollation.ranks(of: []) == [])
        #expect(KoreanCollation.ranks(of: [""]) == [0])
    }

    @Test func ranksAreDenseAndAgreeWithSortKeys() {
        // Many shared prefixes longer than the 8-byte prefix the rank sort uses, and duplicates.
        var titles: [String] = []
        var rng = SplitMix64(seed: 2026)
        let parts = ["청운동", "신교동", "관광지", "음식점", "Cafe", "cafe", "café", " ", "1", "12", "ㄱ", "가"]
        for _ in 0..<2000 {
            let k = Int(rng.next() % 5)
            titles.append((0..<k).map { _ in parts[Int(rng.next() % UInt64(parts.count))] }.joined())
        }
        let ranks = KoreanCollation.ranks(of: titles)
        let keys = titles.map(KoreanCollation.sortKey)
        for _ in 0..<20_000 {
            let i = Int(rng.next() % 2000)
            let j = Int(rng.next() % 2000)
            #expect((ranks[i] < ranks[j]) == keys[i].lexicographicallyPrecedes(keys[j]))
            #expect((ranks[i] == ranks[j]) == (keys[i] == keys[j]))
        }
        #expect(Set(ranks).count == Set(keys).count)
        #expect(ranks.max()! == UInt32(Set(keys).count - 1))
    }
}
