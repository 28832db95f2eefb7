import Foundation
import Testing

@testable import NearbyCore

/// The cursor's text: base64url of its fields, written without Foundation, read back with it.
@Suite struct PageCursorTests {
    /// Every length from 0 to 300 (all three remainders), random bytes: Foundation's base64 with `+/`
    /// made `-_` and the padding dropped.
    @Test func base64urlIsFoundationsBase64MadeURLSafe() {
        var g = SplitMix64(seed: 7)
        for count in 0...300 {
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            let foundation = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(PageCursor.base64url(bytes) == foundation, "\(count) bytes")
        }
        #expect(PageCursor.base64url(Array("\u{FB}\u{FF}".utf8)) == "w7vDvw")
    }

    /// Random cursors (ids of every length mod 3, non-ASCII and `|` included) decode to themselves
    /// under their key and to nothing under another.
    @Test func cursorsRoundTripUnderTheirKeyOnly() {
        var g = SplitMix64(seed: 11)
        let key = PageCursor.Key(k0: g.next(), k1: g.next())
        let other = PageCursor.Key(k0: g.next(), k1: g.next())
        let pieces = ["a", "7", "|", "경복궁", "é", "-", "_", "="]
        for n in 0..<500 {
            let id = (0...(n % 7)).map { _ in pieces[Int(g.next() % UInt64(pieces.count))] }.joined()
            let cursor = PageCursor(
                fingerprint: g.next(), page: 1 + Int(g.next() % UInt64(PageCursor.maxPage)),
                distance: Double(g.next() % 20_000_000) / 1000, id: id)
            let text = cursor.encoded(key: key)
            #expect(PageCursor(decoding: text, key: key) == cursor, "\(text)")
            #expect(PageCursor(decoding: text, key: other) == nil)
        }
    }
}
