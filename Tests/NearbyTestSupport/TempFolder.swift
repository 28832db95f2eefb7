import Foundation

/// A fresh temporary folder for one test's files and caches, removed when the value is released.
/// Shared by the test targets (real files, no mocks), so each does not grow its own copy.
public final class TempFolder: Sendable {
    public let path: String

    public init() throws {
        path = NSTemporaryDirectory() + "nearby-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` inside the folder (the file need not exist).
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` and returns its path.
    @discardableResult
    public func write(_ name: String, _ bytes: Data) throws -> String {
        try bytes.write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }

    /// Writes `text` as UTF-8 to `name` and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String { try write(name, Data(text.utf8)) }
}
