import Foundation
import NearbyCore

/// One line of coordinates, as `nearby distance` (lat1 lon1 lat2 lon2) and `nearby where` (lat lon)
/// read them from arguments, files and stdin: numbers split by spaces, tabs or commas, or a JSON
/// object with the same field names. Numbers are `DecimalNumber`s (no hexadecimal, no NUL). Latitudes
/// must lie in [-90, 90] and longitudes in [-540, 540], the ranges GeographicLib's GeodSolve accepts.
public struct CoordinateLine: Sendable {
    public struct Invalid: NearbyError {
        public let message: String
        init(_ message: String) { self.message = message }
        public var description: String { message }
        public var kind: ErrorKind { .usage }
    }

    /// The values in the order of `names`.
    public let values: [Double]

    /// From separate fields (command-line arguments, or a split line).
    public init<S: StringProtocol>(fields: [S], names: [String]) throws(Invalid) {
        guard fields.count == names.count else {
            throw Invalid(
                "expected \(names.count) numbers (\(names.joined(separator: " "))), found \(fields.count) fields")
        }
        var values: [Double] = []
        for (name, field) in zip(names, fields) {
            guard let value = DecimalNumber.double(field) else {
                throw Invalid("\(name) \(MessageText.quoted(field)) is not a number")
            }
            values.append(value)
        }
        try self.init(values: values, names: names)
    }

    public init(values: [Double], names: [String]) throws(Invalid) {
        for (name, value) in zip(names, values) {
            let limit = name.hasPrefix("lat") ? 90.0 : 540.0
            guard value.isFinite, abs(value) <= limit else {
                throw Invalid("\(name) \(value) is out of range [-\(Int(limit)), \(Int(limit))]")
            }
        }
        self.values = values
    }

    /// One line of text; nil for blank lines and lines starting with `#`.
    public init?(line: String, names: [String]) throws(Invalid) {
        let text = line.trimmingCharacters(in: .whitespaces)
        if text.isEmpty || text.hasPrefix("#") { return nil }
        guard text.hasPrefix("{") else {
            try self.init(fields: text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }), names: names)
            return
        }
        var bytes = Array(text.utf8)
        let parsed = bytes.withUnsafeMutableBytes { b in
            Result { () throws(JSONError) in try JSONValue.parse(UnsafeRawBufferPointer(b)) }
        }
        guard case .success(.object(let object)) = parsed else { throw Invalid("not a JSON object") }
        var values: [Double] = []
        for name in names {
            guard let member = object[name] else { throw Invalid("field \"\(name)\" is missing") }
            guard case .number(let n) = member, let v = DecimalNumber.double(n) else {
                throw Invalid("field \"\(name)\" is not a number")
            }
            values.append(v)
        }
        try self.init(values: values, names: names)
    }
}

/// Lines of a file or stdin, read in blocks as they arrive (`readLine` only reads stdin), so a live
/// pipe gets its answers line by line. A final CR before each LF is dropped, and a UTF-8 byte order
/// mark at the start of the input (as spreadsheet exports write it).
public struct LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var done = false
    private var atStart = true

    public init(handle: FileHandle) { self.handle = handle }

    /// Whether the handle is a pipe, terminal or socket rather than a regular file: answers to such
    /// input should be written out after every line.
    public var isLive: Bool {
        var status = stat()
        return fstat(handle.fileDescriptor, &status) == 0 && (status.st_mode & S_IFMT) != S_IFREG
    }

    public mutating func next() -> String? {
        while true {
            if atStart && (buffer.count >= 3 || done) {
                atStart = false
                if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
            }
            if atStart {
                let chunk = handle.availableData
                if chunk.isEmpty { done = true } else { buffer += chunk }
                continue
            }
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                defer { start = newline + 1 }
                var end = newline
                if end > start && buffer[end - 1] == 0x0D { end -= 1 }
                return String(decoding: buffer[start..<end], as: UTF8.self)
            }
            if done {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return String(decoding: buffer[start...], as: UTF8.self)
            }
            buffer.removeFirst(start)
            start = 0
            let chunk = handle.availableData
            if chunk.isEmpty { done = true } else { buffer += chunk }
        }
    }
}
