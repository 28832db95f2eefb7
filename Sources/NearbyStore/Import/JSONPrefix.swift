import NearbyCore

/// The part of a JSON value that a prefix of the input holds, made a complete value: what format
/// detection judges when the value goes on past the bytes it looks at.
enum JSONPrefix {
    /// The first JSON value of `prefix` (which ends inside it), cut after its last complete member or
    /// element and closed: `{"a":1,"b":[{"c":2},{"d"` becomes `{"a":1,"b":[{"c":2}]}`. A string value
    /// the prefix cuts is kept as an empty string (`{"title":"abc` becomes `{"title":""}`), so an
    /// object is still known by its keys. Nil when the prefix is not the start of a JSON object or
    /// array (e.g. it has a syntax error before its end).
    static func close(_ prefix: UnsafeRawBufferPointer) -> [UInt8]? {
        struct Frame {
            var object: Bool
            /// Offset just after the last complete member or element (or after the opening bracket).
            var safe: Int
            /// Object: a key is expected next (else a value or a separator).
            var wantsKey: Bool
        }
        var stack: [Frame] = []
        var inString = false
        var escaped = false
        var stringStart = 0
        var stringIsKey = false
        var inScalar = false
        var started = false
        var i = 0
        func completed(at end: Int) {
            guard !stack.isEmpty else { return }
            stack[stack.count - 1].safe = end
        }
        while i < prefix.count {
            let b = prefix[i]
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == 0x22 {
                    inString = false
                    if !stringIsKey { completed(at: i + 1) }
                }
                i += 1
                continue
            }
            let structural =
                b == 0x22 || b == UInt8(ascii: "{") || b == UInt8(ascii: "[") || b == UInt8(ascii: "}")
                || b == UInt8(ascii: "]") || b == UInt8(ascii: ",") || b == UInt8(ascii: ":")
            let space = b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
            if inScalar, structural || space {
                inScalar = false
                completed(at: i)
            }
            switch b {
            case _ where space: break
            case 0x22:
                guard !stack.isEmpty else { return nil }
                inString = true
                stringStart = i
                stringIsKey = stack[stack.count - 1].object && stack[stack.count - 1].wantsKey
                if stringIsKey { stack[stack.count - 1].wantsKey = false }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard !started || !stack.isEmpty, stack.count < JSONValue.maxDepth else { return nil }
                started = true
                stack.append(Frame(object: b == UInt8(ascii: "{"), safe: i + 1, wantsKey: b == UInt8(ascii: "{")))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard let top = stack.popLast(), top.object == (b == UInt8(ascii: "}")) else { return nil }
                guard !stack.isEmpty else { return nil }  // the whole value is complete: nothing to close
                completed(at: i + 1)
            case UInt8(ascii: ","):
                guard !stack.isEmpty else { return nil }
                stack[stack.count - 1].wantsKey = stack[stack.count - 1].object
            case UInt8(ascii: ":"):
                guard !stack.isEmpty else { return nil }
            default:
                guard !stack.isEmpty else { return nil }
                inScalar = true
            }
            i += 1
        }
        guard let top = stack.last else { return nil }
        var out: [UInt8]
        if inString && !stringIsKey {
            out = Array(prefix[..<stringStart])
            out += [0x22, 0x22]
        } else {
            out = Array(prefix[..<top.safe])
        }
        for frame in stack.reversed() { out.append(frame.object ? UInt8(ascii: "}") : UInt8(ascii: "]")) }
        return out
    }
}
