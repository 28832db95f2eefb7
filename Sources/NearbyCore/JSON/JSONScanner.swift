/// A JSON syntax error at a byte offset of the scanned input.
public struct JSONError: NearbyError, Equatable {
    /// Byte offset into the scanned buffer where the problem was found.
    public var offset: Int
    public var reason: String
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }
    public var description: String { "\(reason) at byte \(offset)" }
    public var kind: ErrorKind { .usage }
}

/// Reads JSON (RFC 8259) token by token straight from UTF-8 bytes, without building a tree.
///
/// Why hand-written: Foundation's `JSONSerialization`/`JSONDecoder` build boxed objects per value and are
/// far too slow for millions of lines (see `PlaceJSON`). The scanner borrows `bytes`:
/// use it only inside the `withUnsafeBytes` closure that produced them. Strings are checked to be valid
/// UTF-8 (an invalid sequence is a `JSONError`, never silently repaired).
public struct JSONScanner {
    public let bytes: UnsafeRawBufferPointer
    public var offset: Int

    public init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// A string token as it sits in the input: the bytes between the quotes, escapes not yet resolved.
    public struct RawString {
        public var start: Int
        public var end: Int
        public var hasEscapes: Bool
    }

    /// True when only whitespace is left.
    public mutating func atEnd() -> Bool {
        skipWhitespace()
        return offset >= bytes.count
    }

    @inline(__always) public mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    /// The next non-whitespace byte, not consumed; nil at the end.
    public mutating func peek() -> UInt8? {
        skipWhitespace()
        return offset < bytes.count ? bytes[offset] : nil
    }

    /// Consumes `byte` when it is the next non-whitespace byte.
    @inline(__always) public mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == byte else { return false }
        offset += 1
        return true
    }

    public func error(_ reason: String) -> JSONError {
        JSONError(offset: offset, reason: offset >= bytes.count ? "unexpected end of input" : reason)
    }

    // MARK: Objects and arrays

    /// Consumes `{`; returns false (having consumed `}` too) for an empty object.
    public mutating func beginObject() throws(JSONError) -> Bool {
        guard consume(UInt8(ascii: "{")) else { throw error("expected an object") }
        return !consume(UInt8(ascii: "}"))
    }

    /// Reads a member's key and the `:` after it.
    public mutating func readKey() throws(JSONError) -> RawString {
        let key = try readRawString()
        guard consume(UInt8(ascii: ":")) else { throw error("expected ':' after a key") }
        return key
    }

    /// After a member's value: consumes `,` (returns true) or `}` (returns false).
    public mutating func nextMember() throws(JSONError) -> Bool {
        if consume(UInt8(ascii: ",")) { return true }
        if consume(UInt8(ascii: "}")) { return false }
        throw error("expected ',' or '}'")
    }

    /// Consumes `[`; returns false (having consumed `]` too) for an empty array.
    public mutating func beginArray() throws(JSONError) -> Bool {
        guard consume(UInt8(ascii: "[")) else { throw error("expected an array") }
        return !consume(UInt8(ascii: "]"))
    }

    /// After an element: consumes `,` (returns true) or `]` (returns false).
    public mutating func nextElement() throws(JSONError) -> Bool {
        if consume(UInt8(ascii: ",")) { return true }
        if consume(UInt8(ascii: "]")) { return false }
        throw error("expected ',' or ']'")
    }

    /// Consumes `null` when it is next.
    public mutating func consumeNull() -> Bool {
        skipWhitespace()
        guard offset + 4 <= bytes.count, bytes[offset] == UInt8(ascii: "n"), bytes[offset + 1] == UInt8(ascii: "u"),
            bytes[offset + 2] == UInt8(ascii: "l"), bytes[offset + 3] == UInt8(ascii: "l")
        else { return false }
        offset += 4
        return true
    }

    // MARK: Strings

    /// Reads a string token without resolving escapes (checks only that it is terminated and has no raw
    /// control characters). Keys are matched on these bytes without allocating (`PlaceField(utf8:)`).
    public mutating func readRawString() throws(JSONError) -> RawString {
        guard consume(0x22) else { throw error("expected a string") }
        let start = offset
        var escaped = false
        while offset < bytes.count {
            let b = bytes[offset]
            if b == 0x22 {
                offset += 1
                return RawString(start: start, end: offset - 1, hasEscapes: escaped)
            }
            if b == 0x5C {
                escaped = true
                offset += 2
                continue
            }
            if b < 0x20 { throw error("control character in a string") }
            offset += 1
        }
        offset = bytes.count
        throw error("unterminated string")
    }

    /// Reads a string token and decodes it.
    public mutating func readString() throws(JSONError) -> String {
        try string(readRawString())
    }

    /// Decodes a raw string: resolves escapes (including UTF-16 surrogate pairs) and validates UTF-8.
    public func string(_ raw: RawString) throws(JSONError) -> String {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[raw.start..<raw.end])
        if !raw.hasEscapes {
            guard let s = JSONUTF8.string(slice) else {
                throw JSONError(offset: raw.start, reason: "invalid UTF-8")
            }
            return s
        }
        var out: [UInt8] = []
        out.reserveCapacity(slice.count)
        var i = 0
        while i < slice.count {
            let b = slice[i]
            guard b == 0x5C else {
                out.append(b)
                i += 1
                continue
            }
            let at = raw.start + i
            guard i + 1 < slice.count else { throw JSONError(offset: at, reason: "bad escape") }
            i += 2
            switch slice[i - 1] {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard var unit = Self.hex4(slice, i) else { throw JSONError(offset: at, reason: "bad \\u escape") }
                i += 4
                if (0xD800..<0xDC00).contains(unit) {
                    guard i + 6 <= slice.count, slice[i] == 0x5C, slice[i + 1] == UInt8(ascii: "u"),
                        let low = Self.hex4(slice, i + 2), (0xDC00..<0xE000).contains(low)
                    else {
                        throw JSONError(offset: at, reason: "unpaired UTF-16 surrogate")
                    }
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                guard let scalar = Unicode.Scalar(unit) else {
                    throw JSONError(offset: at, reason: "unpaired UTF-16 surrogate")
                }
                out.append(contentsOf: UTF8.encode(scalar)!)
            default: throw JSONError(offset: at, reason: "bad escape")
            }
        }
        guard let s = out.withUnsafeBytes(JSONUTF8.string) else {
            throw JSONError(offset: raw.start, reason: "invalid UTF-8")
        }
        return s
    }

    private static func hex4(_ s: UnsafeRawBufferPointer, _ i: Int) -> UInt32? {
        guard i + 4 <= s.count else { return nil }
        var v: UInt32 = 0
        for k in i..<(i + 4) {
            let c = s[k]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: return nil
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    // MARK: Numbers and literals

    /// Reads a number token, checking RFC 8259's grammar; returns its byte range.
    public mutating func readNumberRange() throws(JSONError) -> Range<Int> {
        skipWhitespace()
        let start = offset
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        let intStart = offset
        let intDigits = skipDigits()
        guard intDigits > 0 else {
            offset = start
            throw error("expected a number")
        }
        if intDigits > 1, bytes[intStart] == UInt8(ascii: "0") { throw error("leading zero in a number") }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard skipDigits() > 0 else { throw error("expected digits after '.'") }
        }
        if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard skipDigits() > 0 else { throw error("expected digits in an exponent") }
        }
        return start..<offset
    }

    private mutating func skipDigits() -> Int {
        let start = offset
        while offset < bytes.count, bytes[offset] &- 0x30 < 10 { offset += 1 }
        return offset - start
    }

    /// Reads a number token as a Double (correctly rounded; out-of-range magnitudes become ±infinity).
    public mutating func readDouble() throws(JSONError) -> Double {
        let r = try readNumberRange()
        return JSONNumber.parseDouble(UnsafeRawBufferPointer(rebasing: bytes[r]))!
    }

    /// Reads a number token that must be an integer fitting in `Int`.
    public mutating func readInt() throws(JSONError) -> Int {
        let start = offset
        let r = try readNumberRange()
        guard let v = JSONNumber.parseInt(UnsafeRawBufferPointer(rebasing: bytes[r])) else {
            offset = start
            throw error("expected an integer")
        }
        return v
    }

    /// Reads `true` or `false`.
    public mutating func readBool() throws(JSONError) -> Bool {
        if consumeWord("true") { return true }
        if consumeWord("false") { return false }
        throw error("expected true or false")
    }

    private mutating func consumeWord(_ word: StaticString) -> Bool {
        skipWhitespace()
        let n = word.utf8CodeUnitCount
        guard offset + n <= bytes.count else { return false }
        for i in 0..<n where bytes[offset + i] != word.utf8Start[i] { return false }
        offset += n
        return true
    }

    /// Skips one value of any kind, checking its syntax (strings are not UTF-8-validated).
    public mutating func skipValue(depth: Int = 0) throws(JSONError) {
        guard depth < JSONValue.maxDepth else { throw error("nesting too deep") }
        switch peek() {
        case UInt8(ascii: "{"):
            guard try beginObject() else { return }
            repeat {
                _ = try readKey()
                try skipValue(depth: depth + 1)
            } while try nextMember()
        case UInt8(ascii: "["):
            guard try beginArray() else { return }
            repeat { try skipValue(depth: depth + 1) } while try nextElement()
        case 0x22: _ = try readRawString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"): guard consumeNull() else { throw error("expected a value") }
        default: _ = try readNumberRange()
        }
    }
}
