import NearbyKit

/// `application/x-www-form-urlencoded` query strings, as browsers and TourAPI apps send them: `+` is a
/// space, `%XX` a byte, names decoded too; every pair kept in order (repeats are the parser's business).
enum QueryString {
    struct Malformed: NearbyError {
        let parameter: String
        var description: String { "\(parameter): bad %-escape or not UTF-8" }
        var kind: ErrorKind { .usage }
    }

    static func pairs(_ query: Substring?) throws(Malformed) -> [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        var out: [(name: String, value: String)] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let eq = part.firstIndex(of: "=")
            let rawName = eq.map { part[..<$0] } ?? part
            let rawValue = eq.map { part[part.index(after: $0)...] } ?? ""
            guard let name = decode(rawName) else { throw Malformed(parameter: String(rawName)) }
            guard let value = decode(rawValue) else { throw Malformed(parameter: name) }
            out.append((name, value))
        }
        return out
    }

    /// nil for a bad `%` escape or bytes that are not UTF-8. `plusIsSpace`: a query string's `+`;
    /// in a path a `+` is itself.
    static func decode(_ s: Substring, plusIsSpace: Bool = true) -> String? {
        // Most names and values have nothing to decode: the text as it is (a short one needs no allocation).
        if !s.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) {
            return String(s)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count)
        var it = s.utf8.makeIterator()
        while let b = it.next() {
            switch b {
            case UInt8(ascii: "+") where plusIsSpace: bytes.append(0x20)
            case UInt8(ascii: "%"):
                guard let h = it.next().flatMap(hex), let l = it.next().flatMap(hex) else { return nil }
                bytes.append(h << 4 | l)
            default: bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
