import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 channel, with an answer worth reading for requests its parser refuses before
/// any route or middleware sees them (an unknown or lowercase method, an HTTP/2 preface, raw
/// non-ASCII bytes in the URL, `Content-Length` with `Transfer-Encoding`, too many or too large
/// headers, a URL of 80 KiB or more): the JSON error every other refusal has (TourAPI's envelope on
/// TourAPI paths), `Connection: close`, then the connection closes. Hummingbird alone answers these
/// with an empty 400.
///
/// Two handlers around NIO's request decoder: `RequestLineWatch` before it sees the raw bytes and
/// keeps the start and length of the latest request line; `ParserErrorAnswer` after it catches the
/// decoder's `HTTPParserError`. A header overflow while the request line is longer than
/// `maxURLLength` is the documented 414 (the middleware's answer for shorter long URLs); other
/// overflows are 431; everything else is 400.
struct RejectingHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let maxURLLength: Int
    /// The error body for a request path (Nearby's JSON error, or TourAPI's envelope).
    let errorBody: @Sendable (Substring, APIError) -> [UInt8]

    init(base: HTTP1Channel, maxURLLength: Int, errorBody: @escaping @Sendable (Substring, APIError) -> [UInt8]) {
        self.base = base
        self.maxURLLength = maxURLLength
        self.errorBody = errorBody
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let ops = channel.pipeline.syncOperations
            let decoder = try ops.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let watch = RequestLineWatch()
            try ops.addHandler(watch, position: .first)
            try ops.addHandler(
                ParserErrorAnswer(watch: watch, maxURLLength: maxURLLength, errorBody: errorBody),
                position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Watches the raw request bytes for the request line of the latest request: its first bytes (the
/// method and the start of the path) and its length so far. A blank line ends a head; the next
/// non-empty line is taken as the next request line (bodies are not followed: this server's requests
/// are GETs, and the watch only labels a refusal).
final class RequestLineWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    static let keep = 256
    /// The latest request line's first `keep` bytes.
    private(set) var start: [UInt8] = []
    /// Its length in bytes (so far, while it is still arriving).
    private(set) var length = 0
    private var inRequestLine = true
    private var lineLength = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        buffer.withUnsafeReadableBytes { bytes in
            for b in bytes {
                if b == 0x0A {
                    if inRequestLine {
                        if lineLength > 0 { inRequestLine = false }
                    } else if lineLength == 0 {
                        inRequestLine = true
                    }
                    lineLength = 0
                } else if b != 0x0D {
                    if inRequestLine {
                        if lineLength == 0 {
                            start.removeAll(keepingCapacity: true)
                            length = 0
                        }
                        if start.count < Self.keep { start.append(b) }
                        length += 1
                    }
                    lineLength += 1
                }
            }
        }
        context.fireChannelRead(data)
    }

    /// The path of the latest request line as far as it was read (`GET /a?b HTTP/1.1` → `/a`).
    var path: Substring {
        let text = Substring(decoding: start, as: UTF8.self)
        guard let space = text.firstIndex(of: " ") else { return "" }
        let rest = text[text.index(after: space)...]
        return rest.prefix { $0 != " " && $0 != "?" }
    }
}

/// Answers NIO's `HTTPParserError` with a JSON body and closes the connection; the error goes no
/// further (Hummingbird would answer it again, with an empty 400).
final class ParserErrorAnswer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    let watch: RequestLineWatch
    let maxURLLength: Int
    let errorBody: @Sendable (Substring, APIError) -> [UInt8]
    /// A response has begun and not ended: a refusal cannot be written in the middle of it.
    private var responding = false
    private var refused = false

    init(watch: RequestLineWatch, maxURLLength: Int, errorBody: @escaping @Sendable (Substring, APIError) -> [UInt8]) {
        self.watch = watch
        self.maxURLLength = maxURLLength
        self.errorBody = errorBody
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head: responding = true
        case .end: responding = false
        case .body: break
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError || error is ByteToMessageDecoderError else {
            context.fireErrorCaught(error)
            return
        }
        guard !refused else { return }
        refused = true
        guard !responding, let parserError = error as? HTTPParserError else {
            context.close(promise: nil)
            return
        }
        let apiError = Self.apiError(parserError, urlLength: watch.length, maxURLLength: maxURLLength)
        let body = errorBody(watch.path, apiError)
        var head = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: Int(apiError.status.code)))
        head.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        head.headers.add(name: "Content-Length", value: String(body.count))
        head.headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        // A lingering close: the answer, then the end of output, while what the client still sends is
        // read and dropped (closing at once would reset the connection under a client still writing a
        // long request, and the reset can destroy the answer before it is read). The connection closes
        // when the client's side ends, or after `linger`.
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: Self.linger) { channel.close(promise: nil) }
        }
    }

    static let linger = TimeAmount.seconds(2)

    static func apiError(_ error: HTTPParserError, urlLength: Int, maxURLLength: Int) -> APIError {
        switch error {
        case .headerOverflow where urlLength > maxURLLength:
            return APIError(.uriTooLong, "the URL is longer than \(maxURLLength) bytes")
        case .headerOverflow:
            return APIError(
                .requestHeaderFieldsTooLarge,
                "the request headers are too large or too many (at most 80 KiB, 1,000 fields)")
        case .invalidMethod:
            return APIError(
                .badRequest,
                "not an HTTP/1.1 request this server reads: the method is unknown (methods are upper case; use GET)")
        case .paused:
            return APIError(.badRequest, "not an HTTP/1.1 request: an HTTP/2 preface (this server speaks HTTP/1.1)")
        case .invalidVersion:
            return APIError(
                .badRequest, "not an HTTP/1.1 request: unsupported HTTP version (this server speaks HTTP/1.1)")
        case .invalidURL:
            return APIError(.badRequest, "the URL is malformed (non-ASCII bytes must be %-escaped)")
        case .unexpectedContentLength, .invalidContentLength:
            return APIError(
                .badRequest, "malformed message length (Content-Length with Transfer-Encoding, or not a number)")
        default:
            return APIError(.badRequest, "malformed HTTP/1.1 request (\(error))")
        }
    }
}
