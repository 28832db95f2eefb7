import Foundation
import NearbyCore

/// Reads an import's input whole, whatever kind of file it is: a regular file, standard input (`-`), a
/// FIFO, process substitution (`<(cat f.tsv)`, a `/dev/fd/N` pipe) or a device such as `/dev/null`.
///
/// With POSIX `open`/`read` in a loop rather than `Data(contentsOf:)`, which refuses pipes and devices
/// with a misleading "permission" error. Problems are said plainly and fall in two classes: the path
/// names nothing readable (`problem(_:)`, checked before anything is read: a usage error, exit 2), or
/// reading failed part way (`InputFileError`: a failure, exit 1).
public enum InputFile {
    /// What is wrong with `path` as an input, or nil when it can be read. Does not open it (opening a
    /// FIFO would wait for its writer, and reading it here would consume it).
    public static func problem(_ path: String) -> String? {
        if path == "-" { return nil }
        var status = stat()
        guard stat(path, &status) == 0 else {
            return errno == ENOENT || errno == ENOTDIR ? "no such file" : String(cString: strerror(errno))
        }
        if status.st_mode & S_IFMT == S_IFDIR { return "is a folder, not a file" }
        if access(path, R_OK) != 0 { return "not readable (permission denied)" }
        return nil
    }

    /// The whole content of `path` (`-`: standard input).
    public static func read(_ path: String) throws(InputFileError) -> [UInt8] {
        let fd = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputFileError(file: path, reason: "cannot open: " + String(cString: strerror(errno))) }
        defer { if fd != 0 { close(fd) } }
        var status = stat()
        if fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw InputFileError(file: path, reason: "is a folder, not a file")
        }
        var bytes: [UInt8] = []
        if status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 { bytes.reserveCapacity(Int(status.st_size)) }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if n == 0 { return bytes }
            if n < 0 {
                if errno == EINTR { continue }
                throw InputFileError(file: path == "-" ? "<stdin>" : path, reason: "read failed: " + String(cString: strerror(errno)))
            }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }
}

/// Reading an input failed after it was found readable.
public struct InputFileError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var reason: String
    public var description: String { MessageText.oneLine("\(file): \(reason)") }
}
