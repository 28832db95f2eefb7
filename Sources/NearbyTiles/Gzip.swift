import CZlib

/// gzip (RFC 1952) through zlib: tiles over HTTP with `Accept-Encoding: gzip` and in MBTiles files.
public enum Gzip {
    public struct Failure: Error, CustomStringConvertible {
        public var code: Int32
        public var description: String { "zlib failed (\(code))" }
    }

    /// `bytes` compressed as one gzip member (zlib's default level).
    public static func compress(_ bytes: [UInt8], level: Int32 = Z_DEFAULT_COMPRESSION) throws -> [UInt8] {
        var stream = z_stream()
        // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
        var rc = deflateInit2_(
            &stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)
        )
        guard rc == Z_OK else { throw Failure(code: rc) }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 32)
        var input = bytes
        rc = input.withUnsafeMutableBufferPointer { inBuffer in
            out.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = UInt32(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = UInt32(outBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard rc == Z_STREAM_END else { throw Failure(code: rc) }
        out.removeSubrange(Int(stream.total_out)...)
        return out
    }

    /// The bytes of a gzip stream (for tests and reading MBTiles back).
    public static func decompress(_ bytes: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        var rc = inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw Failure(code: rc) }
        defer { inflateEnd(&stream) }
        var input = bytes
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        try input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = UInt32(inBuffer.count)
            repeat {
                let produced = chunk.withUnsafeMutableBufferPointer { c -> Int in
                    stream.next_out = c.baseAddress
                    stream.avail_out = UInt32(c.count)
                    rc = inflate(&stream, Z_NO_FLUSH)
                    return c.count - Int(stream.avail_out)
                }
                guard rc == Z_OK || rc == Z_STREAM_END else { throw Failure(code: rc) }
                out.append(contentsOf: chunk[..<produced])
                if rc == Z_OK && produced == 0 && stream.avail_in == 0 { throw Failure(code: Z_BUF_ERROR) }
            } while rc != Z_STREAM_END
        }
        return out
    }
}
