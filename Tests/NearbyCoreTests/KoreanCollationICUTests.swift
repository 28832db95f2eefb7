import Foundation
import NearbyCore
import NearbyTestSupport
import Testing
import _FoundationICU

/// ICU's collator for a locale, from the ICU that Foundation ships on Linux (`_FoundationICU`, whose C
/// functions carry a `swift_` prefix). Only sort keys are used: they are ICU's order by definition.
/// (`String.compare(_:options:range:locale:)` is not: on this toolchain it puts `각` before `가나`.)
/// Sendable: ICU collators are safe for concurrent const use (sort keys), per ICU's thread-safety notes.
final class ICUCollator: @unchecked Sendable {
    private let collator: OpaquePointer

    init(locale: String) throws {
        var status = U_ZERO_ERROR
        guard let c = swift_ucol_open(locale, &status), status.rawValue <= 0 else {
            throw CocoaError(
                .featureUnsupported, userInfo: [NSDebugDescriptionErrorKey: "ucol_open(\(locale)): \(status.rawValue)"])
        }
        collator = c
    }

    deinit { swift_ucol_close(collator) }

    /// ICU's sort key (tertiary strength, the default): compare keys bytewise.
    func sortKey(_ s: String) -> [UInt8] {
        let u = Array(s.utf16)
        let n = swift_ucol_getSortKey(collator, u, Int32(u.count), nil, 0)
        var key = [UInt8](repeating: 0, count: Int(n))
        _ = swift_ucol_getSortKey(collator, u, Int32(u.count), &key, n)
        return key
    }
}

/// `--sort title` against ICU's `ko` collation, the reference Korean apps expect. Every title of the default
/// dataset is ranked by `KoreanCollation.ranks`, and each pair of neighbours in that order must be in
/// the order of ICU's sort keys too (equal ranks: equal keys); with a total order on both sides,
/// agreeing on all neighbours means agreeing on every pair.
@Suite struct KoreanCollationICUTests {
    static let ko = try! ICUCollator(locale: "ko")

    static func icu(_ a: String, _ b: String) -> ComparisonResult {
        let x = ko.sortKey(a)
        let y = ko.sortKey(b)
        return x == y ? .orderedSame : x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
    }

    @Test func icuIsWhatFoundationHasHere() {
        // ICU puts Hangul before Latin after a common prefix.
        #expect(Self.icu("가고리 횟집", "가고리 ONE 기념관") == .orderedAscending)
        #expect(Self.icu("apple", "Zoo") == .orderedAscending)
    }

    @Test func everyDefaultDatasetTitleInICUOrder() throws {
        let titles = Array(Set(try RepositoryData.defaultPlaces().map(\.title)))
        #expect(titles.count > 10_000)
        let ranks = KoreanCollation.ranks(of: titles)
        let order = titles.indices.sorted { ranks[$0] < ranks[$1] }
        var disagreements: [String] = []
        for (i, j) in zip(order, order.dropFirst()) {
            let expected: ComparisonResult = ranks[i] == ranks[j] ? .orderedSame : .orderedAscending
            if Self.icu(titles[i], titles[j]) != expected { disagreements.append("\(titles[i]) | \(titles[j])") }
        }
        #expect(
            disagreements == [], "\(disagreements.count) neighbours out of ICU order, e.g. \(disagreements.prefix(5))")
    }

    @Test func handPickedHardCases() {
        let expected = [
            "", " 공원", "10월 축제", "2층 카페", "ㄱ", "가", "가가", "가고리 횟집", "가고리 ONE 기념관", "가나", "각",
            "가A", "경복궁", "景福宮", "경복궁 야간", "경복궁1", "경복궁가", "경복궁A", "깋", "ㄲ", "까치", "힣", "ㅏ", "ㄳ", "丂",
            "apple 카페", "Apple 카페", "BTS 거리", "cafe", "Cafe", "café", "Zoo", "Ωmega",
        ]
        for (a, b) in zip(expected, expected.dropFirst()) {
            #expect(Self.icu(a, b) == .orderedAscending, "ICU: \(a) < \(b)")
            #expect(KoreanCollation.sortKey(a).lexicographicallyPrecedes(KoreanCollation.sortKey(b)), "\(a) < \(b)")
        }
    }
}
