import Foundation
import NearbyCore

/// Bytes bound for stdout, written in blocks of about 1 MB: one `write(2)` per block instead of one
/// per line is what keeps million-line outputs (export, generate, batch queries) fast. Given a sink,
/// the blocks go there instead (the server streams them into a response body).
public struct StdoutBlocks {
    public var bytes: [UInt8] = []
    private let blockSize: Int
    private let sink: (([UInt8]) throws -> Void)?

    public init() {
        blockSize = 1 << 20
        sink = nil
        bytes.reserveCapacity(blockSize + 4096)
    }

    /// Blocks of about `blockSize` bytes go to `sink` rather than stdout.
    public init(blockSize: Int, sink: @escaping ([UInt8]) throws -> Void) {
        self.blockSize = blockSize
        self.sink = sink
        bytes.reserveCapacity(blockSize + 4096)
    }

    /// Writes the block when it is full; call after each record.
    public mutating func flushIfFull() throws { if bytes.count >= blockSize { try flush() } }

    /// Writes everything buffered, retrying short and interrupted writes.
    public mutating func flush() throws {
        if let sink {
            if !bytes.isEmpty { try sink(bytes) }
            bytes.removeAll(keepingCapacity: true)
            return
        }
        try bytes.withUnsafeBytes { buf in
            var done = 0
            while done < buf.count {
                let n = write(STDOUT_FILENO, buf.baseAddress! + done, buf.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw StdoutError(reason: String(cString: strerror(errno))) }
                done += n
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// stdout refused the output (a full disk, a closed file): a runtime failure, exit code 1.
public struct StdoutError: NearbyError {
    public var reason: String
    public var description: String { "cannot write to stdout: \(reason)" }
    public var kind: ErrorKind { .io }
}
