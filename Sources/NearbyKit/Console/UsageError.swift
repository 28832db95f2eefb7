import NearbyCore

/// The user asked for something that cannot be done as asked: a bad flag value, a bad parameter in a
/// batch line, an unreadable input. `nearby` prints `nearby <command>: <description>` and exits with 2;
/// every command reports usage errors this one way.
public struct UsageError: NearbyError {
    public var description: String
    public var kind: ErrorKind { .usage }
    public init(_ description: String) { self.description = description }

    /// A request error as the command line names parameters: `--radius: …`.
    public init(_ error: RequestError) { description = error.message(prefix: "--") }
}
