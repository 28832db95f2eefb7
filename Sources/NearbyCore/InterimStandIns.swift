// INTERIM — deleted as soon as the data branch lands. Minimal stand-ins with the
// names and signatures the query engine is written against, so the engine can be built and tested
// against brute force before the real pieces exist. Not part of the product.
import Foundation

public enum KoreanCollation {
    public static func ranks(of titles: [String]) -> [UInt32] {
        let order = titles.indices.sorted { Array(titles[$0].unicodeScalars.map(\.value)).lexicographicallyPrecedes(titles[$1].unicodeScalars.map(\.value)) }
        var ranks = [UInt32](repeating: 0, count: titles.count)
        var r: UInt32 = 0
        for (n, i) in order.enumerated() {
            if n > 0 && titles[order[n - 1]] != titles[i] { r += 1 }
            ranks[i] = r
        }
        return ranks
    }
}

public struct KeywordMatcher: Sendable {
    let k: String
    public init(_ keyword: String) { k = keyword.lowercased() }
    public func matches(_ title: String) -> Bool { title.lowercased().contains(k) }
}
