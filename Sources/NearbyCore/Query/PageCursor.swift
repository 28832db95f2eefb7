import Foundation

/// The opaque `nextCursor` of an answer: where the next page starts.
///
/// Text form: base64url of `1|<fingerprint>|<page>|<distance bits>|<id>`. The fingerprint hashes
/// the query (everything but page and cursor) with the cache generation, so a cursor is refused when
/// used with another query or after the cache changed (instead of silently skipping or repeating rows).
/// The last row's other sort-key values are read back from its row, found by id.
public struct PageCursor: Sendable, Hashable {
    public var fingerprint: UInt64
    /// 1-based page the cursor's rows are.
    public var page: Int
    /// Distance of the last row returned (0 without a centre).
    public var distance: Double
    /// Id of the last row returned.
    public var id: String

    public init(fingerprint: UInt64, page: Int, distance: Double, id: String) {
        self.fingerprint = fingerprint; self.page = page; self.distance = distance; self.id = id
    }

    public var encoded: String {
        let text = "1|\(String(fingerprint, radix: 16))|\(page)|\(String(distance.bitPattern, radix: 16))|\(id)"
        return Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public init?(decoding text: String) {
        var b64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        b64 += String(repeating: "=", count: (4 - b64.count % 4) % 4)
        guard let data = Data(base64Encoded: b64), let s = String(data: data, encoding: .utf8) else { return nil }
        let parts = s.split(separator: "|", maxSplits: 4, omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "1", let fp = UInt64(parts[1], radix: 16),
              let page = Int(parts[2]), page >= 1, let bits = UInt64(parts[3], radix: 16), !parts[4].isEmpty
        else { return nil }
        self.init(fingerprint: fp, page: page, distance: Double(bitPattern: bits), id: String(parts[4]))
    }

    /// FNV-1a 64 over the query's parameters as `QueryParameters.render` writes them (page and cursor
    /// left out: they say where, not what) and the cache generation. The request parser's field list is
    /// thus the fingerprint's: a parameter added there is covered here without a second list.
    public static func fingerprint(of q: PlaceQuery, generation: Int64) -> UInt64 {
        var h = FNV()
        h.add(UInt64(bitPattern: generation))
        for (name, value) in QueryParameters.render(q) where name != "page" && name != "cursor" {
            h.add(name); h.add(value)
        }
        return h.value
    }

    private struct FNV {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        mutating func add(_ v: UInt64) {
            for shift in stride(from: 0, to: 64, by: 8) { value = (value ^ (v >> UInt64(shift) & 0xFF)) &* 0x100_0000_01b3 }
        }
        mutating func add(_ s: String) {
            for byte in s.utf8 { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
            add(0x1F)
        }
    }
}
