import Foundation

/// Lines for humans on stderr: errors, warnings, and progress (only when stderr is a terminal).
public enum StandardError {
    public static let isTerminal = isatty(2) == 1

    /// Writes a line, first clearing any progress text on a terminal.
    public static func write(_ line: String) {
        FileHandle.standardError.write(Data(((isTerminal ? "\r\u{1B}[K" : "") + line + "\n").utf8))
    }

    /// Rewrites the current terminal line (no newline): for progress counters.
    public static func progress(_ text: String) {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
    }
}
