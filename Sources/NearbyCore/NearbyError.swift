/// What went wrong, in the few kinds a caller acts on. Every error the project throws has one
/// (`NearbyError.kind`); the command line turns it into an exit code (`exitCode`) and the server into
/// an HTTP status (`httpStatus`), each in one place, so a new error type needs no new `catch`.
///
/// Match a kind with `switch ErrorKind(of: error)`, `(error as? any NearbyError)?.kind == .usage`, or
/// in a `catch` clause: `catch where ErrorKind(of: error) == .usage { … }`. An enum, so a switch over
/// it is exhaustive: a new kind does not compile until both mappings say what it becomes.
public enum ErrorKind: Sendable, Hashable, CaseIterable {
    /// The request, a flag or an input the caller gave is wrong: a bad value, an unknown parameter, a
    /// malformed line, record or file, an input that cannot be opened.
    case usage
    /// Something the command needs does not exist: the data folder's towns or region file.
    case notFound
    /// The request refers to a state that has changed since: a cursor from before the cache changed.
    case conflict
    /// It cannot be done now; later it may: another writer holds the cache or database, a deadline
    /// passed, no engine was free.
    case unavailable
    /// A format, version or feature this nearby (or this system) does not support: an input in no
    /// format it reads, a cache or snapshot of another schema version, pinning threads to CPUs.
    case unsupported
    /// A cache, snapshot or data file that fails its checks: a changed byte, a truncated file, a row
    /// no import writes. Rebuild it from its sources.
    case damaged
    /// A file or stream could not be opened, read or written: permissions, a full disk, a closed
    /// stdout, a reader that went away.
    case io
    /// Anything else: a library or the database failed in a way the input does not explain, or an
    /// error from outside the project.
    case `internal`

    /// The kind of any error: its own for a `NearbyError`, `.internal` for any other.
    public init(of error: any Error) {
        self = (error as? any NearbyError)?.kind ?? .internal
    }

    /// `nearby`'s exit status for an error of this kind: 2 for usage (the Unix convention, and what
    /// ArgumentParser's own usage errors exit with here), 1 for every failure.
    public var exitCode: Int32 {
        switch self {
        case .usage: 2
        case .notFound, .conflict, .unavailable, .unsupported, .damaged, .io, .internal: 1
        }
    }

    /// The server's HTTP status for an error of this kind. A 5xx answer shows the error's message only
    /// when the server wrote it for the client (a deadline); others go to the server's log.
    public var httpStatus: Int {
        switch self {
        case .usage: 400
        case .notFound: 404
        case .conflict: 409
        case .unavailable: 503
        case .unsupported, .damaged, .io, .internal: 500
        }
    }
}

/// An error of this project: a one-line message (`description`, without the command's name) and its
/// kind. The command line prints `nearby <command>: <description>` and exits with `kind.exitCode`; the
/// server answers with `kind.httpStatus`.
public protocol NearbyError: Error, CustomStringConvertible, Sendable {
    var kind: ErrorKind { get }
}
