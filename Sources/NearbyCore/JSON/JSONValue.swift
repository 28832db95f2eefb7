/// A parsed JSON document, for the inputs that are whole documents (TourAPI responses, GeoJSON).
/// Place lines never go through this tree: `PlaceJSON.decode` reads them straight off the bytes.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number's literal text, kept so nothing is rounded before a field decides its type.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Deeper documents are refused rather than risking the stack.
    public static let maxDepth = 512

    /// Parses one complete document; only whitespace may follow it.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> JSONValue {
        var scanner = JSONScanner(bytes)
        let value = try scanner.readValue()
        guard scanner.atEnd() else { throw scanner.error("unexpected text after the JSON value") }
        return value
    }

    /// The member `key` of an object; nil for other values or a missing key.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The text of a string or number value.
    public var text: String? {
        switch self {
        case .string(let s), .number(let s): return s
        default: return nil
        }
    }
}

/// A JSON object: members in input order, and where it started in the input (for line numbers).
public struct JSONObject: Equatable, Sendable {
    public struct Member: Equatable, Sendable {
        public var key: String
        public var value: JSONValue
    }
    public var members: [Member]
    /// Byte offset of the object's `{` in the parsed input.
    public var offset: Int
    /// Byte offset just after the object's `}`: `end - offset` is its size in the input.
    public var end: Int

    /// The first member named `key` (objects here are small: a linear scan is fastest).
    public subscript(key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }
}

extension JSONScanner {
    /// Reads one value of any kind into a tree.
    public mutating func readValue(depth: Int = 0) throws(JSONError) -> JSONValue {
        guard depth < JSONValue.maxDepth else { throw error("nesting too deep") }
        switch peek() {
        case UInt8(ascii: "{"):
            let start = offset
            var members: [JSONObject.Member] = []
            if try beginObject() {
                repeat {
                    let key = try string(readKey())
                    members.append(.init(key: key, value: try readValue(depth: depth + 1)))
                } while try nextMember()
            }
            return .object(JSONObject(members: members, offset: start, end: offset))
        case UInt8(ascii: "["):
            var elements: [JSONValue] = []
            if try beginArray() {
                repeat { elements.append(try readValue(depth: depth + 1)) } while try nextElement()
            }
            return .array(elements)
        case 0x22: return .string(try readString())
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try readBool())
        case UInt8(ascii: "n"):
            guard consumeNull() else { throw error("expected a value") }
            return .null
        default:
            let r = try readNumberRange()
            return .number(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[r]), as: UTF8.self))
        }
    }
}
