/// A scalar JSON value, for the extra leading members of an output line (e.g. a query id `qid`).
public enum JSONScalar: Equatable, Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null

    public func append(to out: inout [UInt8]) {
        switch self {
        case .string(let s): JSONWriter.appendString(s, to: &out)
        case .int(let v): JSONNumber.append(v, to: &out)
        case .double(let v): JSONNumber.append(v, to: &out)
        case .bool(let v): out.append(contentsOf: (v ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        }
    }
}

/// Low-level JSON text output into a byte buffer.
public enum JSONWriter {
    private static let hex = Array("0123456789abcdef".utf8)

    /// Appends `s` as a JSON string: `"` and `\` escaped, control characters as `\n`, `\t`, ... or `\u00XX`;
    /// everything else (Korean, emoji) written as raw UTF-8.
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { appendString(utf8: $0, to: &out) }
    }

    /// `appendString` of text given as UTF-8 bytes (a string column's value, read in place).
    public static func appendString(utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(0x22)
        var runStart = 0
        for i in 0..<utf8.count {
            let b = utf8[i]
            guard b < 0x20 || b == 0x22 || b == 0x5C else { continue }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
            runStart = i + 1
            out.append(0x5C)
            switch b {
            case 0x22, 0x5C: out.append(b)
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            default: out.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
            }
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        out.append(0x22)
    }
}
