import Foundation
import NearbyCore

/// The bytes of one import input, read the cheapest way its kind allows: a regular file is mapped
/// (nothing copied; pages already parsed are given back as the reader moves on, so a large file does
/// not stay resident), anything else that can be read — standard input, a pipe, process substitution
/// `<(…)`, a FIFO, a character device — is read to its end.
final class InputFile {
    /// How the input is named in messages: the path, or `<stdin>` for `-`.
    let name: String
    private let base: UnsafeMutableRawPointer?
    private let count: Int
    private let mapped: Bool
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    init(path: String) throws(UnreadableInputError) {
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
            count = Int(info.st_size)
            guard let p = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
                throw UnreadableInputError(name: name, reason: Self.reason(errno))
            }
            _ = madvise(p, count, MADV_SEQUENTIAL)
            base = p
            mapped = true
        default:
            // Empty regular files, pipes, FIFOs, devices: read to the end.
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else { throw UnreadableInputError(name: name, reason: Self.reason(errno)) }
                if n == 0 { break }
                bytes.append(contentsOf: chunk[..<n])
            }
            let copy = bytes.isEmpty ? nil : UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 16)
            if let copy { bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
            count = bytes.count
            base = copy
            mapped = false
        }
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

/// An import input that cannot be read, in words (a folder, no such file, no permission): a usage error.
public struct UnreadableInputError: NearbyError {
    public var name: String
    public var reason: String
    public var description: String { "\(name): \(reason)" }
    public var kind: ErrorKind { .usage }
}
