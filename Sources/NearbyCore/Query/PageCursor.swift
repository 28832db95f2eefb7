import Foundation

/// The opaque `nextCursor` of an answer: where the next page starts.
///
/// Text form: base64url (no padding) of `2|<fingerprint>|<page>|<distance bits>|<mac>|<id>`, numbers in
/// lowercase hex except the decimal page. The fingerprint hashes the query (everything but page and
/// cursor) with the cache generation, so a cursor is refused when used with another query or after the
/// cache changed (instead of silently skipping or repeating rows). The last row's other sort-key values
/// are read back from its row, found by id.
///
/// Tamper-evident: `mac` is SipHash-2-4, under the cache's secret `Key`, of everything before it and
/// the id, so a cursor is either one this cache issued or refused (an edited page, distance or id, e.g.
/// page 2⁶³−1 or a NaN distance, cannot be made valid without the key). Decoding is strict on top: the
/// page is in 1...`maxPage`, the distance finite and ≥ 0, the id non-empty UTF-8, and the text must be
/// exactly the one `encoded(key:)` makes of the decoded fields.
public struct PageCursor: Sendable, Hashable {
    /// The secret a cache keeps (`PlaceCache.cursorKey`) to sign its cursors.
    public struct Key: Sendable, Hashable {
        public var k0: UInt64, k1: UInt64
        public init(k0: UInt64, k1: UInt64) {
            self.k0 = k0
            self.k1 = k1
        }
        /// For engines with no cache behind them (benchmarks, tests): cursors are still checked for
        /// corruption, but anyone can forge one.
        public static let unkeyed = Key(k0: 0, k1: 0)
        public static func random() -> Key {
            var g = SystemRandomNumberGenerator()
            return Key(k0: g.next(), k1: g.next())
        }
    }

    /// The deepest page a cursor may name: far beyond any real paging, small enough that page
    /// arithmetic (`page + 1`, `page × limit` for limits up to 2³¹) cannot overflow.
    public static let maxPage = Int(Int32.max)

    public var fingerprint: UInt64
    /// 1-based page the cursor's rows are.
    public var page: Int
    /// Distance of the last row returned (0 without a centre).
    public var distance: Double
    /// Id of the last row returned.
    public var id: String

    public init(fingerprint: UInt64, page: Int, distance: Double, id: String) {
        self.fingerprint = fingerprint
        self.page = page
        self.distance = distance
        self.id = id
    }

    public func encoded(key: Key) -> String {
        let head = "2|\(String(fingerprint, radix: 16))|\(page)|\(String(distance.bitPattern, radix: 16))|"
        let mac = SipHash24.mac(Array((head + "|" + id).utf8), k0: key.k0, k1: key.k1)
        return Self.base64url(Array((head + String(mac, radix: 16) + "|" + id).utf8))
    }

    /// base64url without padding (RFC 4648 §5), in one pass: every answer with a next page writes one,
    /// and Foundation's base64 and a pass replacing its `+`, `/` and `=` cost more than the MAC.
    static func base64url(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: (bytes.count * 4 + 2) / 3) { out in
            let digits = base64urlDigits
            func digit(_ v: UInt32) -> UInt8 { digits[Int(v & 63)] }
            var o = 0
            var i = 0
            while i + 3 <= bytes.count {
                let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                out[o] = digit(v >> 18)
                out[o + 1] = digit(v >> 12)
                out[o + 2] = digit(v >> 6)
                out[o + 3] = digit(v)
                o += 4
                i += 3
            }
            switch bytes.count - i {
            case 1:
                let v = UInt32(bytes[i]) << 16
                out[o] = digit(v >> 18)
                out[o + 1] = digit(v >> 12)
                o += 2
            case 2:
                let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
                out[o] = digit(v >> 18)
                out[o + 1] = digit(v >> 12)
                out[o + 2] = digit(v >> 6)
                o += 3
            default: break
            }
            return o
        }
    }

    private static let base64urlDigits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The cursor `text` encodes, or nil when it is not exactly a cursor made with `key`.
    public init?(decoding text: String, key: Key) {
        guard text.utf8.count <= 4096, text.utf8.allSatisfy({ Self.base64urlSet.contains($0) }) else { return nil }
        var b64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        b64 += String(repeating: "=", count: (4 - b64.count % 4) % 4)
        guard let data = Data(base64Encoded: b64), let s = String(validating: Array(data), as: UTF8.self) else {
            return nil
        }
        let parts = s.split(separator: "|", maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "2", let fp = UInt64(parts[1], radix: 16),
            let page = Int(parts[2]), (1...Self.maxPage).contains(page),
            let bits = UInt64(parts[3], radix: 16), UInt64(parts[4], radix: 16) != nil, !parts[5].isEmpty
        else { return nil }
        let distance = Double(bitPattern: bits)
        guard distance.isFinite, distance >= 0 else { return nil }
        self.init(fingerprint: fp, page: page, distance: distance, id: String(parts[5]))
        // Canonical text and a valid MAC: one cursor, one text, and only the key's holder makes them.
        guard encoded(key: key) == text else { return nil }
    }

    private static let base64urlSet = Set(base64urlDigits)

    /// FNV-1a 64 over the query's parameters as `QueryParameters.render` writes them (page and cursor
    /// left out: they say where, not what; explain and total too: they change no row) and the cache generation. The request parser's field list is
    /// thus the fingerprint's: a parameter added there is covered here without a second list.
    public static func fingerprint(of q: PlaceQuery, generation: Int64) -> UInt64 {
        var h = FNV()
        h.add(UInt64(bitPattern: generation))
        for (name, value) in QueryParameters.render(q)
        where name != "page" && name != "cursor" && name != "explain" && name != "total" && name != "no-history" {
            h.add(name)
            h.add(value)
        }
        return h.value
    }

    private struct FNV {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        mutating func add(_ v: UInt64) {
            for shift in stride(from: 0, to: 64, by: 8) {
                value = (value ^ (v >> UInt64(shift) & 0xFF)) &* 0x100_0000_01b3
            }
        }
        mutating func add(_ s: String) {
            for byte in s.utf8 { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
            add(0x1F)
        }
    }
}

extension RequestError {
    /// A cursor this cache did not issue, or one edited since.
    public static let malformedCursor = RequestError(
        parameter: "cursor", reason: "malformed cursor (not one this cache issued, or changed since)")
    /// A cursor of another query, or from before the cache changed: every engine refuses it alike.
    public static let staleCursor = RequestError(
        parameter: "cursor",
        reason: "the cursor belongs to another query or the cache changed since; start again from page 1", isStale: true
    )
}
