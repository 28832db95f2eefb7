import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// Hardening: a cursor is exactly one this cache issued, or it is refused.
@Suite struct CursorForgeryTests {
    @Test func sipHashTestVectors() {
        // Aumasson and Bernstein, SipHash paper, Appendix A: key 00…0f; messages 00…(n−1).
        let k0: UInt64 = 0x0706_0504_0302_0100
        let k1: UInt64 = 0x0F0E_0D0C_0B0A_0908
        #expect(SipHash24.mac([UInt8](), k0: k0, k1: k1) == 0x726f_db47_dd0e_0e31)
        #expect(SipHash24.mac((0..<15).map(UInt8.init), k0: k0, k1: k1) == 0xa129_ca61_49be_45e5)
    }

    static func base64url(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    @Test func forgedCursorsAreRefused() throws {
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("c.sqlite"))
        let places = (0..<40).map {
            Place(id: "p\($0)", title: "t", lat: 37.5 + Double($0) * 0.001, lon: 127, category: 12)
        }
        try cache.write { w in for p in places { try w.upsert(p) } }
        let key = try cache.cursorKey()
        #expect(key != .unkeyed)
        #expect(try PlaceCache(path: dir.file("c.sqlite"), readOnly: true).cursorKey() == key)
        let engine = MemoryEngine(places: try cache.allPlaces(), generation: try cache.generation(), cursorKey: key)
        let q = PlaceQuery(center: Coordinate(lat: 37.5, lon: 127), shape: .radius(10_000), limit: 10)
        let first = try engine.run(q)
        let next = try #require(first.nextCursor)
        var resumed = q
        resumed.cursor = next
        let second = try engine.run(resumed)
        #expect(second.page == 2 && second.places.map(\.id) == (10..<20).map { "p\($0)" })
        #expect(try SQLiteEngine(cache: cache, cursorKey: key).run(resumed) == second)

        let real = try #require(PageCursor(decoding: next, key: key))
        let fp = String(real.fingerprint, radix: 16)
        let forgeries: [String] = [
            // Well-formed but signed with another key, or not signed (the old format).
            PageCursor(
                fingerprint: real.fingerprint, page: 9_223_372_036_854_775_807, distance: real.distance, id: real.id
            ).encoded(key: .unkeyed),
            PageCursor(fingerprint: real.fingerprint, page: 1, distance: 0, id: real.id).encoded(key: .random()),
            PageCursor(fingerprint: real.fingerprint, page: 1, distance: real.distance, id: "p3").encoded(
                key: .unkeyed),
            Self.base64url("1|\(fp)|9223372036854775807|\(String(real.distance.bitPattern, radix: 16))|\(real.id)"),
            Self.base64url("1|\(fp)|1|\(String(Double.nan.bitPattern, radix: 16))|\(real.id)"),
            Self.base64url("1|\(fp)|1|0|p3"),
            // The real cursor, edited: padding, case, a trailing byte.
            next + "=", next.uppercased(), next + "A", String(next.dropLast()),
        ]
        for text in forgeries where text != next {
            resumed.cursor = text
            #expect(throws: RequestError.self, "\(text)") { try engine.run(resumed) }
        }
        // Field ranges: even correctly signed, a page beyond maxPage or a NaN distance is not a cursor.
        for bad in [
            PageCursor(fingerprint: 1, page: PageCursor.maxPage + 1, distance: 0, id: "x"),
            PageCursor(fingerprint: 1, page: 0, distance: 0, id: "x"),
            PageCursor(fingerprint: 1, page: 1, distance: .nan, id: "x"),
            PageCursor(fingerprint: 1, page: 1, distance: -1, id: "x"),
            PageCursor(fingerprint: 1, page: 1, distance: .infinity, id: "x"),
        ] {
            #expect(PageCursor(decoding: bad.encoded(key: key), key: key) == nil)
        }
        let fine = PageCursor(fingerprint: 1, page: PageCursor.maxPage, distance: 12.5, id: "a|b")
        #expect(PageCursor(decoding: fine.encoded(key: key), key: key) == fine)
    }
}
