import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain HTTP/1.1 client over a loopback TCP socket, for tests that talk to a real server: the request
/// goes out byte for byte as written (a TourAPI app's exact string, a wrong method, an over-long URL),
/// and the response is read raw (status, headers, a chunked or sized body, when its first bytes came).
public struct LoopbackHTTP {
    public struct Response {
        public var status: Int
        /// Header names lower-cased.
        public var headers: [String: String]
        public var body: Data
        /// The body was sent in chunks (streamed), not with a Content-Length.
        public var chunked: Bool
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The body parsed as a JSON object (fails the caller's expectation when it is not one).
        public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public let port: Int
    public init(port: Int) { self.port = port }

    /// `GET target` (path and query as given).
    public func get(_ target: String, headers: [String: String] = [:]) throws -> Response {
        try send(method: "GET", target: target, headers: headers)
    }

    public func send(method: String, target: String, headers: [String: String] = [:], body: [UInt8]? = nil) throws
        -> Response
    {
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (k, v) in headers { request += "\(k): \(v)\r\n" }
        if let body { request += "Content-Length: \(body.count)\r\n" }
        request += "\r\n"
        return try raw(Array(request.utf8) + (body ?? []))
    }

    /// Sends `request` as is and reads the response to the end of the connection.
    public func raw(_ request: [UInt8]) throws -> Response {
        let exchange = try Exchange(fd: connect(), request: request)
        return try exchange.finish()
    }

    /// `GET target`, sent; the response is read when the caller says (a request held in flight).
    /// `receiveBuffer` fixes the socket's receive buffer (bytes, before it connects): a client that does
    /// not read then holds that much of the answer in the kernel, not the several MB that loopback's
    /// autotuning would take in.
    public func begin(_ target: String, receiveBuffer: Int? = nil) throws -> Exchange {
        let request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"
        return try Exchange(fd: connect(receiveBuffer: receiveBuffer), request: Array(request.utf8))
    }

    /// One request on its own connection.
    public final class Exchange {
        let fd: Int32
        var data: [UInt8] = []

        init(fd: Int32, request: [UInt8]) throws {
            self.fd = fd
            var sent = 0
            while sent < request.count {
                let n = request.withUnsafeBytes { write(fd, $0.baseAddress! + sent, request.count - sent) }
                guard n > 0 else {
                    close(fd)
                    throw Failure(description: "write failed: errno \(errno)")
                }
                sent += n
            }
        }

        deinit { close(fd) }

        /// Reads what has arrived, at least one byte; false at the end of the connection.
        @discardableResult
        public func readSome() throws -> Bool {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n < 0 { throw Failure(description: "read failed: errno \(errno)") }
                data.append(contentsOf: buffer[0..<n])
                return n > 0
            }
        }

        /// Bytes read so far.
        public var count: Int { data.count }

        /// Reads to the end of the connection and parses the response.
        public func finish() throws -> Response {
            while try readSome() {}
            return try LoopbackHTTP.parse(data)
        }
    }

    /// Whether something accepts connections on the port.
    public func isListening() -> Bool {
        guard let fd = try? connect() else { return false }
        close(fd)
        return true
    }

    /// A port that was free a moment ago (for a server started as a subprocess).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw Failure(description: "bind failed") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    private func connect(receiveBuffer: Int? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard ok == 0 else {
            close(fd)
            throw Failure(description: "cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
        return fd
    }

    static func parse(_ data: [UInt8]) throws -> Response {
        let crlf2: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, data.count - 3)).first(where: { Array(data[$0..<$0 + 4]) == crlf2 }) else {
            throw Failure(description: "no complete response head in \(data.count) bytes")
        }
        let head = String(decoding: data[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line \(head[0])")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = Array(data[(end + 4)...])
        let chunked = headers["transfer-encoding"]?.lowercased() == "chunked"
        if chunked {
            var out: [UInt8] = []
            var i = 0
            while true {
                guard let lineEnd = (i..<max(i, body.count - 1)).first(where: { body[$0] == 13 && body[$0 + 1] == 10 }),
                    let size = Int(
                        String(decoding: body[i..<lineEnd], as: UTF8.self).split(separator: ";")[0], radix: 16)
                else { throw Failure(description: "bad chunk at byte \(i)") }
                if size == 0 { break }
                let start = lineEnd + 2
                guard start + size <= body.count else { throw Failure(description: "truncated chunk") }
                out += body[start..<start + size]
                i = start + size + 2
            }
            body = out
        } else if let length = headers["content-length"].flatMap(Int.init), body.count != length {
            throw Failure(description: "body has \(body.count) bytes, Content-Length says \(length)")
        }
        return Response(status: status, headers: headers, body: Data(body), chunked: chunked)
    }
}
