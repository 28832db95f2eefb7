import Foundation
import Testing

@testable import NearbyCore

@Suite struct KeywordMatcherTests {
    @Test func initialConsonantSearch() {
        #expect(KeywordMatcher("ㄱㅂㄱ").matches("경복궁"))
        #expect(KeywordMatcher("ㄱㅂㄱ").matches("서울 경복궁 야간개장"))
        #expect(KeywordMatcher("경ㅂ궁").matches("경복궁"))
        #expect(KeywordMatcher("ㅂㄱ").matches("경복궁"))
        #expect(KeywordMatcher("ㄱㅂ").matches("경복궁"))
        #expect(!KeywordMatcher("ㄱㄱ").matches("경복궁"))  // not contiguous
        #expect(!KeywordMatcher("ㄱㅂㄱ").matches("경 복 궁"))  // spaces are characters too
        #expect(!KeywordMatcher("ㅂㄱㄱ").matches("경복궁"))
    }

    @Test func doubleInitialsMatchOnlyThemselves() {
        #expect(KeywordMatcher("ㄲㅊ").matches("까치"))
        #expect(!KeywordMatcher("ㄱㅊ").matches("까치"))
        #expect(!KeywordMatcher("ㄲ").matches("가치"))
        #expect(KeywordMatcher("ㅆ").matches("쌍계사"))
        #expect(!KeywordMatcher("ㅅ").matches("쌍계"))
    }

    @Test func finalsVowelsAndLiteralJamo() {
        #expect(!KeywordMatcher("ㄱ").matches("악"))  // a final is not an initial
        #expect(!KeywordMatcher("ㅏ").matches("가"))  // vowels match only themselves
        #expect(KeywordMatcher("ㅏ").matches("ㅏㅏ"))
        #expect(!KeywordMatcher("ㄳ").matches("넋"))  // final-only clusters too
        #expect(KeywordMatcher("ㄱ").matches("ㄱ자 골목"))  // the jamo itself, literally
        #expect(!KeywordMatcher("ㄱㅏ").matches("가"))  // no composing of typed jamo
    }

    @Test func wholeSyllablesAndSubstrings() {
        #expect(KeywordMatcher("복궁").matches("경복궁"))
        #expect(KeywordMatcher("경복궁").matches("경복궁"))
        #expect(!KeywordMatcher("경복궁 ").matches("경복궁"))
        #expect(!KeywordMatcher("보").matches("경복궁"))  // no partial-syllable matching
        #expect(KeywordMatcher("").matches("아무거나"))
        #expect(KeywordMatcher("").matches(""))
        #expect(!KeywordMatcher("가").matches(""))
    }

    @Test func caseAndCompatibilityFolding() {
        #expect(KeywordMatcher("bts").matches("BTS 거리"))
        #expect(KeywordMatcher("BTS").matches("bts 거리"))
        #expect(KeywordMatcher("ｂｔｓ").matches("BTS 거리"))  // fullwidth
        #expect(KeywordMatcher("CAFÉ").matches("시골 café"))
        #expect(KeywordMatcher("1").matches("① 전망대"))
        #expect(KeywordMatcher("(주)").matches("㈜한국관광"))
        #expect(KeywordMatcher("서울 숲").matches("서울\u{3000}숲"))  // ideographic space
        #expect(!KeywordMatcher("cafe").matches("café"))  // accents are not ignored
    }

    @Test func nfdTitlesAndKeywords() {
        let title = "경복궁 café"
        let nfd = title.decomposedStringWithCanonicalMapping
        #expect(nfd.unicodeScalars.count > title.unicodeScalars.count)
        #expect(KeywordMatcher("경복").matches(nfd))
        #expect(KeywordMatcher("ㄱㅂㄱ").matches(nfd))
        #expect(KeywordMatcher("café".decomposedStringWithCanonicalMapping).matches(title))
        #expect(KeywordMatcher("복궁".decomposedStringWithCanonicalMapping).matches(title))
        // A lone conjoining initial (what NFD leaves when no vowel follows) is an initial too.
        #expect(KeywordMatcher("\u{1100}\u{1107}").matches("경복궁"))
    }

    @Test func foldedTitlesAgreeWithPerTitleMatching() {
        let titles = ["경복궁", "", "BTS 거리", "까치산", "㈜한국관광", "시골 café", "ㄱ자 골목"]
        let store = FoldedTitles(titles)
        #expect(store.count == titles.count)
        for keyword in ["ㄱ", "ㄱㅂㄱ", "bts", "ㄲ", "(주)", "", "é", "ㄱㅈ"] {
            let m = KeywordMatcher(keyword)
            for (i, t) in titles.enumerated() {
                #expect(store.matches(m, at: i) == m.matches(t), "\(keyword) in \(t)")
            }
        }
    }

    @Test func initialsOfAString() {
        #expect(Hangul.initials(of: "경복궁 A1") == "ㄱㅂㄱ A1")
        #expect(Hangul.initials(of: "까치") == "ㄲㅊ")
    }
}
