#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// A whole file mapped read-only into memory (`mmap`, `MAP_SHARED`): processes that map the same
/// file share its pages through the page cache, and only the pages a query touches are read.
///
/// The only place unsafe pointers into a snapshot are made: `bytes` and `column` check that every
/// range lies inside the mapping (and is aligned) before handing out a safe view of it. Unmapped
/// when the last column or view that keeps this object alive goes.
public final class MappedFile: @unchecked Sendable {
    public let path: String
    public let size: Int
    private let base: UnsafeRawPointer?
    private let fd: Int32
    /// Verifies the blocks of the columns made after it is set (`IndexSnapshot.engine` sets it once,
    /// before the first column).
    var verifier: BlockVerifier?

    /// Maps `path`; throws `MappedFile.Failure` with the system's reason when it cannot be opened.
    public init(path: String) throws {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(errno: errno) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            throw Failure(errno: errno)
        }
        size = Int(st.st_size)
        if size == 0 {
            base = nil
            return
        }
        let p = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0)
        guard let p, p != MAP_FAILED else {
            close(fd)
            throw Failure(errno: errno)
        }
        // Queries touch scattered pages: map only the pages touched, not their neighbours (keeps a
        // one-shot query on a 1M-place snapshot near 40 MB of resident memory instead of 60–140 MB).
        madvise(p, size, MADV_RANDOM)
        base = UnsafeRawPointer(p)
    }

    deinit {
        if let base { munmap(UnsafeMutableRawPointer(mutating: base), size) }
        close(fd)
    }

    /// Calls `body` with a copy of `count` bytes from `offset`, read with `pread`: for checks that
    /// look at scattered parts of the file, which would otherwise map whole large pages into this
    /// process. False when the range is not inside the file or cannot be read.
    public func withCopy(at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        guard offset >= 0, count >= 0, offset <= size - count else { return false }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, count), alignment: 8)
        defer { buffer.deallocate() }
        var done = 0
        while done < count {
            let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        return true
    }

    public struct Failure: NearbyError {
        public let errno: Int32
        public var description: String { String(cString: strerror(errno)) }
        public var kind: ErrorKind { .io }
    }

    /// `count` bytes from `offset`, or nil when the range is not inside the file.
    public func bytes(at offset: Int, count: Int) -> UnsafeRawBufferPointer? {
        guard offset >= 0, count >= 0, offset <= size - count else { return nil }
        guard let base else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: base + offset, count: count)
    }

    /// A little-endian integer at `offset` (nil when outside the file).
    public func load<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T? {
        bytes(at: offset, count: MemoryLayout<T>.size).map { T(littleEndian: $0.loadUnaligned(as: T.self)) }
    }

    /// `count` values of `T` from `offset`, used in place; nil when the range is outside the file or
    /// misaligned. The values are read with the machine's byte order: snapshots are little-endian and
    /// `IndexSnapshot` refuses to open on a big-endian machine.
    public func column<T: BitwiseCopyable>(_: T.Type, at offset: Int, count: Int) -> Column<T>? {
        let (bytes, overflow) = count.multipliedReportingOverflow(by: MemoryLayout<T>.stride)
        guard !overflow, let region = self.bytes(at: offset, count: bytes) else { return nil }
        guard let start = region.baseAddress else {
            return count == 0 ? Column([]) : nil
        }
        guard Int(bitPattern: start) % MemoryLayout<T>.alignment == 0 else { return nil }
        return Column(unsafeBase: start, count: count, owner: self, verifier: verifier)
    }
}
