import Foundation
import Logging

/// The server's log handler: swift-log's `StreamLogHandler.standardError` lines, byte for byte
/// (`2026-11-27T07:10:31+0000 info nearby.serve: key=value … [source] message`), made cheaper for
/// an access log written per request. `StreamLogHandler` sorts and formats all its metadata whenever
/// any is set (Hummingbird sets a request id on every request's logger, so at `--log-level warning`
/// that text is made for every request and never written) and reads the clock and the time zone
/// (a `stat` of /etc/localtime) for every line; this one formats metadata only for a line it writes,
/// and the timestamp once a second.
public struct StderrLogHandler: LogHandler {
    private let label: String
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    public init(label: String) {
        self.label = label
        metadataProvider = LoggingSystem.metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty { all.merge(provided) { $1 } }
        if let explicit = event.metadata, !explicit.isEmpty { all.merge(explicit) { $1 } }
        if let error = event.error {
            all["error.message"] = "\(error)"
            all["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        var line = LogTimestamp.shared.text()
        line += " \(event.level)"
        if !label.isEmpty { line += " " + label }
        line += ":"
        for (key, value) in all.sorted(by: { $0.key < $1.key }) { line += " \(key)=\(value)" }
        line += " [\(event.source)] \(event.message)\n"
        // One write a line, as StreamLogHandler's unbuffered stderr does: lines from threads do not interleave.
        line.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
    }
}

/// The local time as `StreamLogHandler` writes it (`%Y-%m-%dT%H:%M:%S%z`), formatted once a second.
final class LogTimestamp: @unchecked Sendable {
    static let shared = LogTimestamp()
    private let lock = NSLock()
    private var second = 0
    private var cached = ""

    private init() { tzset() }

    func text() -> String {
        var now = time(nil)
        lock.lock()
        defer { lock.unlock() }
        if now != second || cached.isEmpty {
            var local = tm()
            var buffer = [CChar](repeating: 0, count: 64)
            if localtime_r(&now, &local) == nil {
                cached = "<unknown>"
            } else {
                let n = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
                cached = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            second = now
        }
        return cached
    }
}
