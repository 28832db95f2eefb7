#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// An unnamed temporary file that `SnapshotWriter` appends its columns to while places come in, so
/// that they wait in the page cache (which is not the process's resident memory) instead of the heap,
/// and are read back one column at a time when the snapshot is written. Made beside the snapshot (the
/// same file system) and unlinked at once, so nothing is left behind, not even by a killed process.
///
/// Appends are plain `pwrite`s at the end; a failure (a full disk) is kept in `failure`, later appends
/// are skipped, and `SnapshotWriter.write` throws it, so that collecting places never throws.
final class SpillFile: @unchecked Sendable {
    // @unchecked: appends come from one thread; reads (`pread`) may come from several once appends end.
    private let fd: Int32
    private var length = 0
    private(set) var failure: String?

    /// A new spill file in the folder of `path` (the snapshot's path).
    init(beside path: String) throws(IndexSnapshot.Problem) {
        var template = Array("\(path).spill-XXXXXX".utf8CString)
        fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let name = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard fd >= 0 else { throw .unreadable("\(name): \(String(cString: strerror(errno)))") }
        unlink(name)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    deinit { close(fd) }

    /// Appends `raw` at the end of the file and returns the offset it went to.
    func append(_ raw: UnsafeRawBufferPointer) -> Int {
        let offset = length
        guard failure == nil, raw.count > 0 else { return offset }
        if writeAll(fd, raw, at: offset) {
            length += raw.count
        } else {
            failure = String(cString: strerror(errno))
        }
        return offset
    }

    /// Fills `raw` from `offset`; false when it cannot.
    func read(into raw: UnsafeMutableRawBufferPointer, at offset: Int) -> Bool {
        raw.count == 0 || readAll(fd, raw, at: offset)
    }
}

/// A column of fixed-size values appended one at a time into a `SpillFile`, in chunks of 64 KiB:
/// only the chunk being filled is in memory.
struct SpillColumn<T: BitwiseCopyable> {
    private var pending: [T] = []
    private var chunks: [(offset: Int, count: Int)] = []
    /// Values appended so far.
    private(set) var count = 0

    private static var chunkLength: Int { max(1, (64 << 10) / MemoryLayout<T>.stride) }

    mutating func append(_ value: T, to file: SpillFile) {
        pending.append(value)
        count += 1
        if pending.count >= Self.chunkLength { flush(to: file) }
    }

    mutating func append(contentsOf values: some Collection<T>, to file: SpillFile) {
        pending.append(contentsOf: values)
        count += values.count
        if pending.count >= Self.chunkLength { flush(to: file) }
    }

    /// Writes the chunk being filled; call it before `values`.
    mutating func flush(to file: SpillFile) {
        guard !pending.isEmpty else { return }
        let offset = pending.withUnsafeBytes { file.append($0) }
        chunks.append((offset, pending.count))
        pending.removeAll(keepingCapacity: true)
    }

    /// Every value appended, read back from `file` (after `flush`).
    func values(in file: SpillFile) throws(IndexSnapshot.Problem) -> [T] {
        precondition(pending.isEmpty, "SpillColumn read before its last chunk was flushed")
        var complete = true
        let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            var start = 0
            for (offset, n) in chunks where complete {
                let size = MemoryLayout<T>.stride
                complete = file.read(
                    into: UnsafeMutableRawBufferPointer(rebasing: raw[start * size..<(start + n) * size]), at: offset)
                start += n
            }
            initialized = complete ? count : 0
        }
        guard complete else { throw .unreadable("spill file: \(String(cString: strerror(errno)))") }
        return values
    }
}

extension SpillColumn: Sendable where T: Sendable {}
