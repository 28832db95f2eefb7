import CLibPQ
import Foundation
import NearbyCore

// A thin layer over libpq: a connection, commands, parameterised queries with text results, prepared
// queries with binary results (numbers read without parsing text: the query path), and COPY FROM STDIN. Why libpq and not postgres-nio: README, "PostgreSQL/PostGIS".

/// A failed libpq call, with the server's message (and SQLSTATE when the server sent one).
public struct PGError: NearbyError {
    public var message: String
    public var sqlState: String?
    public var description: String { message }
    public var kind: ErrorKind { .internal }
}

/// One PostgreSQL connection. Not thread-safe: use a connection from one thread at a time.
final class PGConnection {
    private let handle: OpaquePointer
    private var prepared: Set<String> = []

    /// Connects to `url` (`postgresql://user@host:port/db` or `host=… port=…`).
    init(url: String) throws {
        guard let c = PQconnectdb(url) else { throw PGError(message: "out of memory") }
        guard PQstatus(c) == CONNECTION_OK else {
            let message = Self.trim(String(cString: PQerrorMessage(c)))
            PQfinish(c)
            throw PGError(message: "cannot connect: \(message)")
        }
        handle = c
        try execute("SET client_encoding = 'UTF8'; SET extra_float_digits = 1")
    }

    deinit { PQfinish(handle) }

    /// libpq's multi-line messages (a tab before each hint) as one line of single spaces.
    private static func trim(_ s: String) -> String {
        s.split(whereSeparator: { $0.isNewline || $0 == "\t" || $0 == " " }).map(String.init).joined(separator: " ")
    }

    /// Checks a result; throws with the server's message unless it is `expected`.
    private func check(_ r: OpaquePointer?, _ expected: ExecStatusType...) throws -> OpaquePointer {
        guard let r else { throw PGError(message: Self.trim(String(cString: PQerrorMessage(handle)))) }
        let status = PQresultStatus(r)
        guard expected.contains(status) else {
            let state = PQresultErrorField(r, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let message = Self.trim(String(cString: PQresultErrorMessage(r)))
            PQclear(r)
            throw PGError(message: message.isEmpty ? "unexpected result" : message, sqlState: state)
        }
        return r
    }

    /// A transaction is open on the connection (`BEGIN` ran, no `COMMIT` or `ROLLBACK` yet).
    var inTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// Runs one or more commands without parameters, ignoring their rows.
    func execute(_ sql: String) throws {
        PQclear(try check(PQexec(handle, sql), PGRES_COMMAND_OK, PGRES_TUPLES_OK))
    }

    /// Runs `sql` with text parameters ($1, $2…; nil is NULL).
    func query(_ sql: String, _ parameters: [String?] = []) throws -> PGResult {
        let r = withParameters(parameters) { n, values in
            PQexecParams(handle, sql, n, nil, values, nil, nil, 0)
        }
        return PGResult(try check(r, PGRES_COMMAND_OK, PGRES_TUPLES_OK), binary: false)
    }

    /// Runs `sql`, prepared once per connection under `name`, with text parameters; binary results.
    func prepared(_ name: String, _ sql: String, _ parameters: [String?]) throws -> PGResult {
        if !prepared.contains(name) {
            PQclear(try check(PQprepare(handle, name, sql, Int32(parameters.count), nil), PGRES_COMMAND_OK))
            prepared.insert(name)
        }
        let r = withParameters(parameters) { n, values in
            PQexecPrepared(handle, name, n, values, nil, nil, 1)
        }
        return PGResult(try check(r, PGRES_COMMAND_OK, PGRES_TUPLES_OK), binary: true)
    }

    private func withParameters(
        _ parameters: [String?],
        _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> OpaquePointer?
    ) -> OpaquePointer? {
        let copies = parameters.map { $0.map { strdup($0)! } }
        defer { for c in copies { free(c) } }
        let values: [UnsafePointer<CChar>?] = copies.map { c in c.map { UnsafePointer<CChar>($0) } }
        return values.withUnsafeBufferPointer { body(Int32(parameters.count), $0.baseAddress) }
    }

    /// Starts `COPY … FROM STDIN`; send the rows (in the format the statement names, e.g. `PGBinaryCopy`'s)
    /// with `putCopyData`, then `endCopy`.
    func beginCopy(_ sql: String) throws {
        PQclear(try check(PQexec(handle, sql), PGRES_COPY_IN))
    }

    func putCopyData(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        let sent = bytes.withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) }
        }
        guard sent == 1 else { throw PGError(message: Self.trim(String(cString: PQerrorMessage(handle)))) }
    }

    /// Ends the COPY; throws the server's complaint about any row (with its line in the COPY).
    func endCopy() throws {
        guard PQputCopyEnd(handle, nil) == 1 else {
            throw PGError(message: Self.trim(String(cString: PQerrorMessage(handle))))
        }
        var failure: Error?
        while let r = PQgetResult(handle) {
            do { PQclear(try check(r, PGRES_COMMAND_OK)) } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }
}

/// The rows of a query, in libpq's text format (PostgreSQL's own output of each type) or binary format
/// (text columns as their UTF-8 bytes, integers and float8 big-endian).
final class PGResult {
    private let r: OpaquePointer
    private let binary: Bool
    init(_ r: OpaquePointer, binary: Bool) {
        self.r = r
        self.binary = binary
    }
    deinit { PQclear(r) }

    var count: Int { Int(PQntuples(r)) }
    func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(r, Int32(row), Int32(column)) == 1 }
    /// The value's text; nil for NULL. Text columns only when the result is binary.
    func text(_ row: Int, _ column: Int) -> String? {
        isNull(row, column) ? nil : String(cString: PQgetvalue(r, Int32(row), Int32(column)))
    }

    /// A binary value's bytes as a big-endian unsigned integer (integers and float8 alike).
    private func bigEndian(_ row: Int, _ column: Int) -> (bits: UInt64, length: Int) {
        let length = Int(PQgetlength(r, Int32(row), Int32(column)))
        let p = PQgetvalue(r, Int32(row), Int32(column))!
        var bits: UInt64 = 0
        for i in 0..<length { bits = bits << 8 | UInt64(UInt8(bitPattern: p[i])) }
        return (bits, length)
    }

    /// An integer column (int2, int4 or int8).
    func int64(_ row: Int, _ column: Int) -> Int64? {
        guard !isNull(row, column) else { return nil }
        guard binary else { return text(row, column).flatMap { Int64($0) } }
        let (bits, length) = bigEndian(row, column)
        switch length {
        case 2: return Int64(Int16(truncatingIfNeeded: bits))
        case 4: return Int64(Int32(truncatingIfNeeded: bits))
        case 8: return Int64(bitPattern: bits)
        default: return nil
        }
    }

    /// A float8 column. Exact either way: binary is the double's bits, and PostgreSQL writes float8 in
    /// the shortest text that reads back to the same double (extra_float_digits ≥ 1, PostgreSQL 12 on).
    func double(_ row: Int, _ column: Int) -> Double? {
        guard !isNull(row, column) else { return nil }
        guard binary else { return text(row, column).flatMap { Double($0) } }
        let (bits, length) = bigEndian(row, column)
        return length == 8 ? Double(bitPattern: bits) : nil
    }
}

/// Rows in COPY's binary format (PostgreSQL's documentation of COPY, "Binary Format"), for
/// `COPY … FROM STDIN (FORMAT binary)`: each value as its length and its bytes in the type's binary
/// form, so nothing is escaped or printed here and nothing parsed as text on the server (floats go as
/// their bits, exact). Starts with the format's header; `finish` appends the trailer. Each column must
/// be written as exactly the type of the column it goes to (int4 as `int32`, bigint as `int64`…): the
/// server reads the bytes as that type.
struct PGBinaryCopy {
    private(set) var bytes: [UInt8] = []

    init() { bytes = Self.header }

    /// "PGCOPY\n\377\r\n\0", no flags (no OIDs), no header extension.
    private static let header: [UInt8] =
        Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [UInt8](repeating: 0, count: 8)

    /// Takes the bytes written so far (to send them); the buffer keeps its capacity.
    mutating func take(_ body: ([UInt8]) throws -> Void) rethrows {
        try body(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    /// The end of the rows: a field count of −1.
    mutating func finish() { int16(-1) }

    /// Starts a row of `fields` values.
    mutating func row(fields: Int) { int16(Int16(fields)) }

    mutating func null() { bigEndian(Int32(-1)) }

    mutating func int32(_ v: Int32) {
        bigEndian(Int32(4))
        bigEndian(v)
    }
    mutating func int64(_ v: Int64) {
        bigEndian(Int32(8))
        bigEndian(v)
    }
    mutating func float8(_ v: Double) {
        bigEndian(Int32(8))
        bigEndian(v.bitPattern)
    }
    /// A `"char"` value: one byte.
    mutating func char(_ v: UInt8) {
        bigEndian(Int32(1))
        bytes.append(v)
    }

    /// A text value as its UTF-8 bytes (the connection's client encoding); nil is NULL.
    mutating func text(_ s: String?) {
        guard let s else { return null() }
        let whole = s.utf8.withContiguousStorageIfAvailable { u in
            bigEndian(Int32(u.count))
            bytes.append(contentsOf: u)
        }
        if whole == nil { value(Array(s.utf8)) }
    }

    /// Any value given as its binary form (bytea's bytes, geometry's EWKB…).
    mutating func value<C: Collection<UInt8>>(_ v: C) {
        bigEndian(Int32(v.count))
        bytes.append(contentsOf: v)
    }

    /// A value whose bytes `write` appends to the buffer it is given (the length is filled in after).
    mutating func value(_ write: (inout [UInt8]) -> Void) {
        let start = bytes.count
        bigEndian(Int32(0))
        write(&bytes)
        withUnsafeBytes(of: Int32(bytes.count - start - 4).bigEndian) { length in
            for i in 0..<4 { bytes[start + i] = length[i] }
        }
    }

    private mutating func int16(_ v: Int16) { bigEndian(v) }

    @inline(__always) private mutating func bigEndian<T: FixedWidthInteger>(_ v: T) {
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
