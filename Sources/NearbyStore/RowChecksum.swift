import CSQLite

/// A 64-bit checksum of a `places` row's stored values (the `checksum` column), written with the row
/// and checked wherever rows are read back. SQLite keeps no checksum of its pages, so a byte flipped
/// inside a value that stays a valid value (a letter of a URL, the last bits of a coordinate) would
/// otherwise pass for data.
///
/// It covers every column of `PlaceCache.checkedColumns`, fed in that order: by the writer from the
/// values it binds (`PlaceCacheWriter`), by readers from the stored columns (`of(_:first:)`). A NULL adds
/// nothing and every other value is keyed by its column's name, type and length, so a nullable column a
/// schema step adds (NULL in every old row) leaves old checksums valid, while a column appended to the
/// list is covered with no further code. Each step `h = rotl((h ^ w) &* k, 29)` is a bijection of `h`
/// and of `w`, so a change confined to one 8-byte word of one value always changes the sum; wider
/// changes go unnoticed with probability about 2⁻⁶⁴. Not a defence against someone rewriting the file.
struct RowChecksum {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    /// The stored form: SQLite integers are signed.
    var stored: Int64 { Int64(bitPattern: value) }

    private mutating func mix(_ word: UInt64) {
        let m = (value ^ word) &* 0x9E37_79B9_7F4A_7C15
        value = m << 29 | m >> 35
    }

    /// The word that opens a value: its column's name, its SQLite type and its length in bytes.
    private mutating func begin(column: Int, type: Int32, count: Int) {
        mix(Self.columnKeys[column] ^ UInt64(UInt32(bitPattern: type)) << 56 ^ UInt64(count))
    }

    mutating func add(column: Int, _ v: Int64) {
        begin(column: column, type: SQLITE_INTEGER, count: 8)
        mix(UInt64(bitPattern: v))
    }

    mutating func add(column: Int, _ v: Double) {
        begin(column: column, type: SQLITE_FLOAT, count: 8)
        // SQLite stores an integral REAL as an integer, so −0.0 reads back as +0.0: sum them alike.
        mix(v == 0 ? 0 : v.bitPattern)
    }

    mutating func add(column: Int, _ text: String) {
        var text = text
        text.withUTF8 { add(column: column, type: SQLITE_TEXT, UnsafeRawBufferPointer($0)) }
    }

    private mutating func add(column: Int, type: Int32, _ bytes: UnsafeRawBufferPointer) {
        begin(column: column, type: type, count: bytes.count)
        var i = 0
        while i + 8 <= bytes.count {
            mix(bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        guard i < bytes.count else { return }
        var tail: UInt64 = 0
        for (shift, byte) in bytes[i...].enumerated() { tail |= UInt64(byte) << (8 * shift) }
        mix(tail)
    }

    /// The checksum of the stored values at `s`'s cursor, whose columns from `first` on are
    /// `PlaceCache.checkedColumns`, taken as SQLite holds them (a value of the wrong type sums differently).
    static func of(_ s: SQLiteStatement, first: Int32 = 0) -> RowChecksum {
        var sum = RowChecksum()
        for column in 0..<columnKeys.count {
            let c = first + Int32(column)
            switch s.type(c) {
            case SQLITE_NULL: continue
            case SQLITE_INTEGER: sum.add(column: column, s.int64(c))
            case SQLITE_FLOAT: sum.add(column: column, s.double(c))
            case let type:
                // Text and blobs alike: the bytes as stored, never converted.
                let bytes =
                    type == SQLITE_TEXT
                    ? UnsafeRawPointer(sqlite3_column_text(s.handle, c)) : sqlite3_column_blob(s.handle, c)
                sum.add(
                    column: column, type: type,
                    UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(s.handle, c))))
            }
        }
        return sum
    }

    /// Per column, FNV-1a of its name: what keys its values.
    private static let columnKeys: [UInt64] = PlaceCache.checkedColumns.map { name in
        name.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0100_0000_01B3 }
    }

    /// Writes the checksum of every row from its stored values: the schema step that adds the column
    /// (what was stored before it is taken as written), and any later step that rewrites values.
    /// A column a later schema step adds does not exist yet: it is read as the NULL that step leaves.
    static func fill(_ db: SQLiteConnection) throws(SQLiteError) {
        let info = try db.prepare("SELECT name FROM pragma_table_info('places')")
        var existing: Set<String> = []
        while try info.step() { existing.insert(info.text(0) ?? "") }
        let columns = PlaceCache.checkedColumns.map { existing.contains($0) ? $0 : "NULL" }
        let rows = try db.prepare("SELECT \(columns.joined(separator: ", ")), rowid FROM places")
        var sums: [(rowid: Int64, sum: Int64)] = []
        let rowidColumn = Int32(columnKeys.count)
        while try rows.step() { sums.append((rows.int64(rowidColumn), of(rows).stored)) }
        rows.reset()
        let update = try db.prepare("UPDATE places SET checksum = ?2 WHERE rowid = ?1")
        for (rowid, sum) in sums { try update.run(rowid, sum) }
    }
}
