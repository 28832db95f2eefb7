import Foundation
import NearbyCore
import NearbyStore

/// The bytes of one import input, as one buffer however the input comes.
///
/// Every input is judged by its first `PlaceParser.detectionPrefix` bytes when it is opened: one in
/// no supported format is refused then, before more of it is read. A regular file is mapped (nothing
/// copied; pages already parsed are given back as the reader moves on, so a large file does not stay
/// resident). Anything else that can be read — standard input, a pipe, process substitution `<(…)`, a
/// FIFO, a character device — is then copied in chunks to an unlinked temporary file, each chunk
/// checked against the record size limit (`RecordSizeGuard`) as it arrives, and that file is mapped
/// like a regular one: memory stays at a chunk whatever the input's size, and an endless input of
/// zeros or of one endless record ends at its first check.
final class InputFile {
    /// How the input is named in messages: the path, or `<stdin>` for `-`.
    let name: String
    /// The input's format: the one asked for, else detected from its prefix when it was opened.
    let format: ImportFormat
    private let base: UnsafeMutableRawPointer?
    private let count: Int
    private let mapped: Bool
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
    /// Bytes read (and written to the temporary file) at a time.
    private static let chunkSize = 1 << 20

    /// Opens `path` (`-` is standard input). For a non-regular input, `format` and `encoding` (nil:
    /// detected from the prefix) and `maxRecordBytes` are checked as it is read.
    init(
        path: String, format: ImportFormat? = nil, encoding: TextEncoding? = nil,
        maxRecordBytes: Int = PlaceParser.defaultMaxRecordBytes
    ) throws {
        name = path == "-" ? "<stdin>" : path
        let fd = path == "-" ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw UnreadableInputError(name: name, reason: Self.reason(errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw UnreadableInputError(name: name, reason: Self.reason(errno)) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw UnreadableInputError(
                name: name, reason: "is a folder, not a file; name the files in it (\(path)/*.json)")
        case S_IFREG where info.st_size > 0:
            let count = Int(info.st_size)
            let base = try Self.map(fd, count: count, name: name)
            let prefix = UnsafeRawBufferPointer(start: base, count: min(count, PlaceParser.detectionPrefix))
            do {
                self.format = try PlaceParser.detectPrefix(
                    prefix, truncated: prefix.count < count, file: name, format: format, encoding: encoding)
            } catch {
                munmap(base, count)
                throw error
            }
            (self.base, self.count, mapped) = (base, count, true)
        default:
            // Empty regular files, pipes, FIFOs, devices.
            (base, count, mapped, self.format) = try Self.spill(
                fd, name: name, format: format, encoding: encoding, maxRecordBytes: maxRecordBytes)
        }
    }

    /// Bytes already in memory (a page a sync fetched), named `name` in messages; copied.
    init(name: String, bytes: [UInt8], format: ImportFormat? = nil) throws {
        self.name = name
        let prefix = bytes.prefix(PlaceParser.detectionPrefix)
        self.format = try prefix.withUnsafeBytes {
            try PlaceParser.detectPrefix(
                $0, truncated: prefix.count < bytes.count, file: name, format: format, encoding: nil)
        }
        let copy = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        (base, count, mapped) = (copy, bytes.count, false)
    }

    private static func map(_ fd: Int32, count: Int, name: String) throws -> UnsafeMutableRawPointer {
        guard let p = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            throw UnreadableInputError(name: name, reason: Self.reason(errno))
        }
        _ = madvise(p, count, MADV_SEQUENTIAL)
        return p
    }

    /// Reads `fd` to its end: kept in memory when it ends within the prefix, else copied to an unlinked
    /// temporary file (in `TMPDIR`, else /tmp) that is then mapped.
    private static func spill(
        _ fd: Int32, name: String, format: ImportFormat?, encoding: TextEncoding?, maxRecordBytes: Int
    ) throws -> (UnsafeMutableRawPointer?, Int, Bool, ImportFormat) {
        let prefixSize = PlaceParser.detectionPrefix
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: max(chunkSize, prefixSize), alignment: 16)
        defer { chunk.deallocate() }
        /// Fills `chunk` from its start up to `want` bytes or the end of the input; returns the count.
        func fill(_ want: Int) throws -> Int {
            var got = 0
            while got < want {
                let n = read(fd, chunk.baseAddress! + got, want - got)
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else { throw UnreadableInputError(name: name, reason: Self.reason(errno)) }
                if n == 0 { break }
                got += n
            }
            return got
        }
        let head = try fill(prefixSize)
        let prefix = UnsafeRawBufferPointer(rebasing: chunk[..<head])
        let ended = head < prefixSize
        let format = try PlaceParser.detectPrefix(
            prefix, truncated: !ended, file: name, format: format, encoding: encoding)
        var guardian = RecordSizeGuard(format: format, file: name, maxRecordBytes: maxRecordBytes)
        try guardian.feed(prefix)
        if ended {
            guard head > 0 else { return (nil, 0, false, format) }
            let copy = UnsafeMutableRawPointer.allocate(byteCount: head, alignment: 16)
            copy.copyMemory(from: chunk.baseAddress!, byteCount: head)
            return (copy, head, false, format)
        }
        let tmp = try TemporaryFile(name: name)
        defer { close(tmp.fd) }
        var total = 0
        var n = head
        while n > 0 {
            try tmp.append(UnsafeRawBufferPointer(rebasing: chunk[..<n]))
            total += n
            n = try fill(chunkSize)
            try guardian.feed(UnsafeRawBufferPointer(rebasing: chunk[..<n]))
        }
        return (try map(tmp.fd, count: total, name: name), total, true, format)
    }

    deinit {
        guard let base else { return }
        if mapped { munmap(base, count) } else { base.deallocate() }
    }

    /// The bytes; valid while this object lives.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// The reader will not look before `offset` again: a mapped file's pages there stop counting
    /// towards this process's memory (they are read back from the file if touched after all).
    func consumed(upTo offset: Int) {
        guard mapped, let base else { return }
        let end = min(offset, count) / Self.pageSize * Self.pageSize
        if end > 0 { _ = madvise(base, end, MADV_DONTNEED) }
    }

    private static func reason(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case EACCES, EPERM: "permission denied"
        default: String(cString: strerror(code))
        }
    }
}

/// An unlinked temporary file: it is gone from the file system as soon as it is made, and its space
/// is given back when its descriptor and mappings are closed, however the process ends.
private struct TemporaryFile {
    let fd: Int32
    let name: String

    init(name: String) throws {
        self.name = name
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(folder)/nearby-import-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw UnreadableInputError(
                name: name, reason: "cannot make a temporary file in \(folder): \(String(cString: strerror(errno)))")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.fd = fd
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw UnreadableInputError(
                    name: name, reason: "cannot write its temporary copy: \(String(cString: strerror(errno)))")
            }
            done += n
        }
    }
}

/// An import input that cannot be read, in words (a folder, no such file, no permission): a usage error.
public struct UnreadableInputError: NearbyError {
    public var name: String
    public var reason: String
    public var description: String { "\(name): \(reason)" }
    public var kind: ErrorKind { .usage }
}
