/// UTF-8 checking for text read from files (JSON requires UTF-8; so do Nearby's CSV and TSV inputs).
///
/// Why not `String(validating:as:)`: it is generic over the encoding and, unspecialised across modules,
/// costs a metadata lookup per call; this loop skips ASCII eight bytes at a time and checks the rest
/// against RFC 3629's table (no overlongs, no surrogates, nothing above U+10FFFF).
public enum JSONUTF8 {
    /// `bytes` as a String, or nil when they are not valid UTF-8.
    @inline(__always) public static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        isValid(bytes) ? String(decoding: bytes, as: UTF8.self) : nil
    }

    public static func isValid(_ s: UnsafeRawBufferPointer) -> Bool {
        let n = s.count
        var i = 0
        while i < n {
            if i + 8 <= n, s.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
                continue
            }
            let b0 = s[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            let len: Int
            var lo: UInt8 = 0x80
            var hi: UInt8 = 0xBF  // allowed range of the second byte
            switch b0 {
            case 0xC2...0xDF: len = 2
            case 0xE0:
                len = 3
                lo = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: len = 3
            case 0xED:
                len = 3
                hi = 0x9F
            case 0xF0:
                len = 4
                lo = 0x90
            case 0xF1...0xF3: len = 4
            case 0xF4:
                len = 4
                hi = 0x8F
            default: return false
            }
            guard i + len <= n, (lo...hi).contains(s[i + 1]) else { return false }
            for k in 2..<len where s[i + k] & 0xC0 != 0x80 { return false }
            i += len
        }
        return true
    }
}
