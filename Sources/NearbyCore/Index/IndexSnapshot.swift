import Foundation

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// The index snapshot: everything a query reads, as flat arrays in one file that an engine maps and
/// uses in place (no parsing, no copying), so a one-shot `nearby query` answers in milliseconds
/// (flatbush's `Flatbush.from(buffer)` is the model).
///
/// ## Format, version 9 (every integer little-endian)
///
/// Header, 64 bytes:
///
/// | offset | size | field |
/// |---:|---:|---|
/// | 0 | 8 | magic `NRBYSNAP` |
/// | 8 | 4 | format version (8; 7 had no `OCCR`, `OCMO` and title postings; 6 had one sampled body checksum instead of `BSUM`; 5 had no `TCOS` and plain integer `CATG`, `CRTD`, `MODF`, `EVST`, `EVEN`; 4 and 5 changed `RANK`; 2 kept rows in id order with `TITM`, `LAT `, `LON `; 1 had no `PET` keys and no visitor-group bits in `FLAG`) |
/// | 12 | 4 | number of sections k |
/// | 16 | 8 | identity of the cache the snapshot was made from (`meta.identity`, random per cache file) |
/// | 24 | 8 | cache generation it was made at (`meta.generation`) |
/// | 32 | 8 | number of places n |
/// | 40 | 8 | file length in bytes |
/// | 48 | 4 | tree node size |
/// | 52 | 4 | block size in bytes (a power of two, 4 KiB to 1 MiB; 16 KiB) |
/// | 56 | 8 | checksum of the `BSUM` section: `SnapshotHash` of its bytes |
///
/// Then the section table, k entries of 24 bytes: tag (4 ASCII bytes), element size in bytes
/// (UInt32), offset from the start of the file (UInt64, a multiple of 64), element count (UInt64).
/// Then the header checksum (8 bytes): `SnapshotHash` of bytes 0 ..< 64 + 24k. The body is
/// everything after it up to `BSUM`: the sections, each at a multiple of 64, and zero padding
/// between them. `BSUM`, the block checksums, comes last and ends the file: entry b is the checksum
/// of block b, the body's bytes at file offsets b·size ..< (b + 1)·size (`SnapshotHash` seeded with
/// the first of those offsets). So every byte of the file is under a checksum: the header and section
/// table under the header checksum, `BSUM` under the header's field 56, the body under `BSUM`.
///
/// Readers find sections by tag and ignore tags they do not know, so later versions can add
/// sections (sort orders, statistics) without breaking older readers; a change to an existing
/// section's meaning bumps the format version, and readers refuse versions they do not know.
///
/// Sections of version 9. Rows are in the tree's Hilbert order: row i is the tree's point i, so the
/// points are the rows' coordinates (stored once, no item column) and a subtree is a contiguous run
/// of rows (counted by subtraction, read sequentially). Ties in every order are broken by id order,
/// stored as each row's id rank (`PlaceTable.idRank`):
///
/// | tag | type | count | what |
/// |---|---|---|---|
/// | `TPTS` | Float64 | 2n | tree points (lon, lat) in Hilbert order (`PackedRTree`): row i's coordinates |
/// | `TCOS` | Float64 | n | cos of each tree point's latitude (`Haversine.cosLat`): a haversine distance then takes one cosine, not two |
/// | `TBOX` | Float64 | 4·nodes | tree node boxes, level 1 first, root last |
/// | `TLVL` | Int64 | 3·levels | tree level table (first box, entries, span) |
/// | `IDRK` | UInt32 | n | id rank of each row (0 = first id in `PlaceTable.idPrecedes` order) |
/// | `IDRW` | UInt32 | n | row of each id rank (the inverse of `IDRK`; finds a cursor's row by id) |
/// | `CATG` | packed | n | category (content type id): a `PackedColumn` (below) |
/// | `AREA`, `SIGU` | UInt16 | n | area and sigungu codes (0 = none; code c is dictionary entry c − 1) |
/// | `ARDO`, `SGDO` | UInt32 | d + 1 | dictionary offsets into `ARDB`, `SGDB` (UTF-8 bytes) |
/// | `CRTD`, `MODF` | packed | n | created, modified as `yyyyMMddHHmmss` (0 = none) |
/// | `EVST`, `EVEN` | packed | n | festival start, end as `yyyyMMdd` (0 = none) |
/// | `FLAG` | UInt32 | n | accessibility bits (`Accessibility.placeMask`), the has-image bit and the stored-detail bits (`PlaceTable.detailBit`; version 9) |
/// | `RANK` | UInt32 | n | Korean-collation rank of the title (`KoreanCollation.ranks`; version 4: Hanja by their reading, version 5: other Han by radical and stroke as ICU, so older files are rebuilt) |
/// | `FTUN`, `FTEN` | UInt16, UInt32 | units, n | folded titles for the keyword filter (`FoldedTitles`) |
/// | `IDOF`, `IDBY` | UInt32, UInt8 | n + 1, bytes | ids (UTF-8) by row, for cursors and for fetching a page's records |
/// | `CATC`, `CATO`, `CATB` | UInt16, UInt32, UInt8 | n, d + 1, bytes | `CodeFamily.cat` keys: codes and dictionary, as `AREA` |
/// | `LCLC`, `LCLO`, `LCLB` | as above | | `CodeFamily.lcls` keys |
/// | `LDGC`, `LDGO`, `LDGB` | as above | | `CodeFamily.ldong` keys |
/// | `KKOC`, `KKOO`, `KKOB` | as above | | `CodeFamily.kakaoCategory` keys |
/// | `PETC`, `PETO`, `PETB` | as above | | `CodeFamily.pet` keys |
/// | `OTIT`, `OMOD`, `OCRE`, `OCAT` | UInt32 | n | stored orders (`SortOrders`): rows ascending by title rank, modified, created, category; ties by id rank |
/// | `SCAT`, `SARE` | Int64 | 2·categories, d + 1 | statistics (`TableStatistics`): (category, rows) pairs ascending by category; rows per area code |
/// | `OCCR`, `OCMO` | UInt32 | n | the created and modified orders split by category (`CategoryOrder`): each category's rows in that order, runs in ascending category, sized by `SCAT` |
/// | `KWKY`, `KWST`, `KWRW` | UInt32 | keys, keys + 1, postings | the title substring index (`TitlePostings`): keys ascending (folded units, and 0x10000 + an initial consonant's index), where each key's rows start in `KWRW`, rows ascending per key |
/// | `BSUM` | UInt64 | blocks | block checksums (above); the last section |
///
/// A packed section (`PackedColumn`) is its base (Int64), then n codes of the entry's element size
/// (1 to 8 bytes, the fewest that hold the section's codes), then 7 zero bytes: 15 + n·size bytes.
///
/// Output records are not in the snapshot: the engine fetches a page's rows from the cache by id.
///
/// ## Writing
/// `SnapshotWriter` writes the format: places are appended one at a time (an import hands over the
/// places it inserts, `SnapshotFeed`; otherwise a cache streams its rows in, `CacheSnapshot`), kept as
/// the flat columns above plus the titles' UTF-8 in an unlinked spill file beside the snapshot, and
/// each section is `pwrite`n at its offset once final (the lengths of all sections are known before
/// the first is written); the block checksums are then read back from the file, the header written last.
///
/// ## Checks
/// A snapshot is used only when the magic, version, file length, header checksum, cache identity
/// and generation, the `BSUM` checksum and every section's length and the tree's structure check out
/// (`IndexSnapshot.engine`), and no block it reads fails its checksum. Each block is verified the
/// first time a query of the process reads it (`BlockVerifier`: every read of a mapped column, packed
/// column or tree view asks it first; a verified block costs one atomic load), not all at open:
/// hashing a whole 1M-place snapshot (121 MB) took 50–70 ms on the 2-core test machine, and would map
/// all of it, against a one-shot budget of 30 ms and 60 MB (BENCHMARKS.md, "One-shot queries"); a cold
/// `nearby query --radius 1000 --limit 10` on it verifies only the blocks it reads, and took 14 ms and
/// 28 MB. Blocks of 16 KiB keep that waste small (a point read hashes 16 KiB, not one page) while
/// `BSUM` stays 1/2048 of the file. A read of a damaged block gets zeros, and the engine then throws `Problem.damaged`
/// instead of answering (`PlaceTable.checkIntact`): a query never answers from a damaged block, and
/// `CacheSnapshot` rebuilds the snapshot. `verify` checks every block (`nearby check`).
/// Writes are atomic (temporary file, fsync, rename, fsync of the folder), so a crash leaves the old
/// snapshot or the new one, and the generation stamp tells a snapshot older than the cache.
public enum IndexSnapshot {
    static let magic = Array("NRBYSNAP".utf8)
    public static let formatVersion: UInt32 = 9
    /// Sections stored as `PackedColumn`s, and the bytes each adds to its codes (base and padding).
    static let packedTags: Set<String> = ["CATG", "CRTD", "MODF", "EVST", "EVEN"]
    static var packedExtra: Int { 8 + PackedColumn<Int64>.padding }
    static let headerSize = 64
    static let entrySize = 24
    static let alignment = 64
    /// log2 of the block size of the checksums a writer makes (16 KiB).
    static let blockShift = 14
    static let sumsTag = "BSUM"

    /// What the header says: enough to decide whether a snapshot belongs to a cache state.
    public struct Stamp: Equatable, Sendable {
        public var identity: Int64
        public var generation: Int64
        public init(identity: Int64, generation: Int64) {
            self.identity = identity
            self.generation = generation
        }
    }

    /// Why a snapshot cannot be used. Every case means "rebuild it" (or answer without it).
    public enum Problem: NearbyError, Equatable {
        case missing
        case unreadable(String)
        case foreign
        case version(UInt32)
        case truncated
        case damaged(String)
        case stale(found: Stamp, wanted: Stamp)

        public var description: String {
            switch self {
            case .missing: "no snapshot"
            case .unreadable(let why): "cannot read it (\(why))"
            case .foreign: "not a Nearby index snapshot"
            case .version(let v): "format version \(v), this nearby reads \(IndexSnapshot.formatVersion)"
            case .truncated: "truncated"
            case .damaged(let what): "damaged (\(what))"
            case .stale(let found, let wanted):
                found.identity != wanted.identity
                    ? "made from another cache file"
                    : "made at cache generation \(found.generation), the cache is at \(wanted.generation)"
            }
        }

        public var kind: ErrorKind {
            switch self {
            case .missing: .notFound
            case .unreadable: .io
            case .version: .unsupported
            case .stale: .conflict
            case .foreign, .truncated, .damaged: .damaged
            }
        }
    }

    // MARK: Writing

    /// Writes the snapshot of `places` (any order) for the cache state `stamp` to `path`, atomically
    /// (`SnapshotWriter`, which a cache feeds row by row instead).
    public static func write(_ places: [Place], stamp: Stamp, to path: String) throws {
        var writer = try SnapshotWriter(spillingBeside: path)
        for i in places.indices { writer.append(places[i]) }
        try writer.write(stamp: stamp, to: path)
    }

    /// Runs `body` on a new file descriptor for `path`, atomically: into `path.tmp-PID` (created
    /// first, so a folder that cannot be written fails before any work), fsync, rename over `path`,
    /// fsync of the folder. Throws `Problem.unreadable` with the system's reason when the file cannot
    /// be written. Temporary files of writers that died are removed.
    static func writeAtomically(to path: String, _ body: (Int32) throws -> Void) throws {
        removeAbandonedTemporaries(of: path)
        let temporary = "\(path).tmp-\(getpid())"
        let fd = openFile(temporary, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Problem.unreadable("\(temporary): \(String(cString: strerror(errno)))") }
        var renamed = false
        defer {
            close(fd)
            if !renamed { unlink(temporary) }
        }
        try body(fd)
        guard fsync(fd) == 0, rename(temporary, path) == 0 else {
            throw Problem.unreadable("\(path): \(String(cString: strerror(errno)))")
        }
        renamed = true
        let folder = openFile(
            (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent,
            O_RDONLY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// Removes `path.tmp-PID` files whose process is gone (killed mid-write).
    private static func removeAbandonedTemporaries(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let prefix = (path as NSString).lastPathComponent + ".tmp-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else {
            return
        }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid(),
                kill(pid, 0) != 0 && errno == ESRCH
            else { continue }
            unlink(folder.isEmpty ? name : folder + "/" + name)
        }
    }

    static func align(_ n: Int) -> Int { (n + alignment - 1) / alignment * alignment }

    /// Tag stems of the `CodeFamily` sections, in `CodeFamily` order (C codes, O dictionary offsets, B bytes).
    static let codeTags = CodeFamily.allCases.map(\.snapshotTag)

    /// The block checksums (`BSUM`) of the file bytes `bodyStart ..< end`, read by `read(start, count, into)`
    /// (false when it cannot: then nil).
    static func blockSums(
        bodyStart: Int, end: Int, shift: Int, read: (Int, Int, (UnsafeRawBufferPointer) -> Void) -> Bool
    ) -> [UInt64]? {
        let blocks = (end + (1 << shift) - 1) >> shift
        var sums = [UInt64](repeating: 0, count: blocks)
        for b in 0..<blocks {
            let lo = max(bodyStart, b << shift)
            let hi = min(end, (b + 1) << shift)
            var sum: UInt64 = 0
            guard read(lo, max(0, hi - lo), { sum = BlockVerifier.blockSum($0, at: lo) }) else { return nil }
            sums[b] = sum.littleEndian
        }
        return sums
    }

    /// The block checksums of a file being written (`writeAtomically`'s descriptor `fd`): its body
    /// `bodyStart ..< end` read back a block at a time (from the page cache), as a reader checks it.
    /// Nil when a read fails. What `SnapshotWriter` and `ClusterFile` seal their files with.
    static func blockSums(of fd: Int32, bodyStart: Int, end: Int, shift: Int) -> [UInt64]? {
        var buffer = [UInt8](repeating: 0, count: 1 << shift)
        return blockSums(bodyStart: bodyStart, end: end, shift: shift) { start, count, add in
            buffer.withUnsafeMutableBytes { raw in
                let part = UnsafeMutableRawBufferPointer(rebasing: raw[0..<count])
                guard count == 0 || readAll(fd, part, at: start) else { return false }
                add(UnsafeRawBufferPointer(part))
                return true
            }
        }
    }

    /// Recomputes the block checksums, their checksum and the header checksum of snapshot `bytes` after
    /// a change: what a test makes to show damage that the checksums cannot see.
    static func reseal(_ bytes: inout [UInt8]) {
        func integer(_ at: Int, _ size: Int) -> Int { (0..<size).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        func put(_ value: UInt64, at: Int) {
            withUnsafeBytes(of: value.littleEndian) { for (n, b) in $0.enumerated() { bytes[at + n] = b } }
        }
        let k = integer(12, 4)
        let tableEnd = headerSize + entrySize * k
        let entry = (0..<k).map { headerSize + entrySize * $0 }.first {
            Array(bytes[$0..<$0 + 4]) == Array(sumsTag.utf8)
        }!
        let sumsOffset = integer(entry + 8, 8)
        let sums = blockSums(bodyStart: tableEnd + 8, end: sumsOffset, shift: integer(52, 4).trailingZeroBitCount) {
            lo, n, add in
            bytes.withUnsafeBytes { add(UnsafeRawBufferPointer(rebasing: $0[lo..<lo + n])) }
            return true
        }!
        for (b, sum) in sums.enumerated() { put(UInt64(littleEndian: sum), at: sumsOffset + 8 * b) }
        put(bytes.withUnsafeBytes { SnapshotHash.of(UnsafeRawBufferPointer(rebasing: $0[sumsOffset...])) }, at: 56)
        put(bytes.withUnsafeBytes { SnapshotHash.of(UnsafeRawBufferPointer(rebasing: $0[0..<tableEnd])) }, at: tableEnd)
    }

    // MARK: Reading

    /// The stamp of the snapshot at `path`, after checking its header (magic, version, length,
    /// header checksum) but not its body: enough to tell whether it is current without mapping it.
    public static func stamp(at path: String) throws(Problem) -> Stamp {
        let file = try mapFile(path)
        return try header(of: file).stamp
    }

    /// Maps the snapshot at `path` and returns an engine that answers from it in place, after every
    /// check described on the type; `wanted` is the cache state it must have been made from. Answer
    /// rows are fetched with `fetch` (ids → the places in that order).
    public static func engine(
        _ path: String, wanted: Stamp, cursorKey: PageCursor.Key = .unkeyed,
        fetch: @escaping ([String]) throws -> [Place]
    ) throws(Problem) -> MemoryEngine {
        let file = try mapFile(path)
        let h = try header(of: file)
        guard h.stamp == wanted else { throw Problem.stale(found: h.stamp, wanted: wanted) }
        let verifier = try blockVerifier(file, h)
        file.verifier = verifier
        let n = h.count
        func column<T: BitwiseCopyable>(_ tag: String, _: T.Type, count: Int? = nil) throws(Problem) -> Column<T> {
            guard let s = h.sections[tag] else { throw Problem.damaged("no section \(tag)") }
            guard s.elementSize == MemoryLayout<T>.stride, count.map({ $0 == s.count }) ?? true,
                h.inBody(s.offset, s.count * s.elementSize), let c = file.column(T.self, at: s.offset, count: s.count)
            else { throw Problem.damaged("section \(tag)") }
            return c
        }
        func strings(_ offsets: String, _ bytes: String, count: Int? = nil) throws(Problem) -> StringColumn {
            let o = try column(offsets, UInt32.self, count: count.map { $0 + 1 })
            guard o.count >= 1 else { throw Problem.damaged("section \(offsets)") }
            return StringColumn(offsets: o, bytes: try column(bytes, UInt8.self))
        }
        func codes(_ codes: String, _ offsets: String, _ bytes: String) throws(Problem) -> CodeColumn {
            let values = try strings(offsets, bytes)
            guard values.count < Int(UInt16.max) - 1 else { throw Problem.damaged("dictionary \(offsets)") }
            var dictionary: [String: UInt16] = [:]
            for c in 0..<values.count { dictionary[values[c]] = UInt16(c + 1) }
            return CodeColumn(codes: try column(codes, UInt16.self, count: n), dictionary: dictionary)
        }
        // Sections a snapshot written before them lacks: its queries plan without them.
        func storedOrders() throws(Problem) -> [SortField: Column<UInt32>] {
            var orders: [SortField: Column<UInt32>] = [:]
            for field in SortOrders.fields where h.sections[SortOrders.tag(of: field)] != nil {
                orders[field] = try column(SortOrders.tag(of: field), UInt32.self, count: n)
            }
            return orders
        }
        func storedCategoryOrders() throws(Problem) -> [SortField: Column<UInt32>] {
            var orders: [SortField: Column<UInt32>] = [:]
            for field in CategoryOrder.fields where h.sections[CategoryOrder.tag(of: field)] != nil {
                orders[field] = try column(CategoryOrder.tag(of: field), UInt32.self, count: n)
            }
            return orders
        }
        func storedPostings() throws(Problem) -> TitlePostings? {
            guard h.sections[TitlePostings.keysTag] != nil else { return nil }
            let keys = try column(TitlePostings.keysTag, UInt32.self)
            return TitlePostings(
                keys: keys, starts: try column(TitlePostings.startsTag, UInt32.self, count: keys.count + 1),
                rows: try column(TitlePostings.rowsTag, UInt32.self))
        }
        func storedStatistics() throws(Problem) -> TableStatistics? {
            guard h.sections[TableStatistics.categoryTag] != nil, h.sections[TableStatistics.areaTag] != nil else {
                return nil
            }
            guard
                let s = TableStatistics(
                    categories: try column(TableStatistics.categoryTag, Int64.self),
                    areas: try column(TableStatistics.areaTag, Int64.self))
            else { throw Problem.damaged("section \(TableStatistics.categoryTag)") }
            return s
        }
        var codeColumns: [CodeColumn] = []
        for family in CodeFamily.allCases {
            let tag = family.snapshotTag
            codeColumns.append(try codes(tag + "C", tag + "O", tag + "B"))
        }
        /// A `PackedColumn` section: its base, then `n` codes of the entry's element size and the padding.
        func packed<T>(_ tag: String) throws(Problem) -> PackedColumn<T> {
            guard let s = h.sections[tag], (1...8).contains(s.elementSize), s.count == n,
                h.inBody(s.offset, 8 + n * s.elementSize + PackedColumn<T>.padding),
                let region = file.bytes(at: s.offset, count: 8 + n * s.elementSize + PackedColumn<T>.padding),
                verifier.covers(region.baseAddress!, 8)
            else { throw Problem.damaged("section \(tag)") }
            return PackedColumn(
                codes: region.baseAddress! + 8, count: n, width: s.elementSize,
                base: Int64(littleEndian: region.loadUnaligned(as: Int64.self)), owner: file, verifier: verifier)
        }
        let points = try column("TPTS", Double.self, count: 2 * n)
        let idRanks = try column("IDRK", UInt32.self, count: n)
        guard
            let tree = PackedRTree(
                count: n, nodeSize: h.nodeSize, points: points, cosines: try column("TCOS", Double.self, count: n),
                ranks: idRanks,
                boxes: try column("TBOX", Double.self), levels: try column("TLVL", Int.self))
        else { throw Problem.damaged("tree structure") }
        let table = PlaceTable(
            count: n, points: points, idRanks: idRanks, rowsByIdRank: try column("IDRW", UInt32.self, count: n),
            category: try packed("CATG"), areacode: try codes("AREA", "ARDO", "ARDB"),
            sigungucode: try codes("SIGU", "SGDO", "SGDB"), created: try packed("CRTD"),
            modified: try packed("MODF"), eventStart: try packed("EVST"),
            eventEnd: try packed("EVEN"), flags: try column("FLAG", UInt32.self, count: n),
            ranks: try column("RANK", UInt32.self, count: n),
            folded: FoldedTitles(
                units: try column("FTUN", UInt16.self), ends: try column("FTEN", UInt32.self, count: n)),
            ids: try strings("IDOF", "IDBY", count: n), codeColumns: codeColumns,
            orders: try storedOrders(), categoryOrders: try storedCategoryOrders(), postings: try storedPostings(),
            statistics: try storedStatistics(), verifier: verifier, fetch: fetch)
        try table.checkIntact()
        return MemoryEngine(table: table, tree: tree, generation: wanted.generation, cursorKey: cursorKey)
    }

    /// The verifier of `file`'s blocks, after checking its `BSUM` section against the header.
    private static func blockVerifier(_ file: MappedFile, _ h: Header) throws(Problem) -> BlockVerifier {
        guard let s = h.sections[sumsTag], s.elementSize == 8, s.offset >= h.bodyStart, s.offset % 8 == 0,
            s.count == (s.offset + h.blockSize - 1) / h.blockSize, s.offset + 8 * s.count == file.size,
            let sums = file.bytes(at: s.offset, count: 8 * s.count)
        else { throw Problem.damaged("section \(sumsTag)") }
        guard SnapshotHash.of(sums) == h.bodyChecksum else { throw Problem.damaged("checksum of \(sumsTag)") }
        let sections = h.sections.filter { $0.key != sumsTag && $0.value.elementSize * $0.value.count > 0 }
            .map { (tag: $0.key, offset: $0.value.offset) }.sorted { $0.offset < $1.offset }
        return BlockVerifier(
            start: file.bytes(at: 0, count: 0)!.baseAddress!, blockShift: h.blockSize.trailingZeroBitCount,
            bodyStart: h.bodyStart, end: s.offset, sums: sums.baseAddress!,
            sectionAt: { offset in sections.last { $0.offset <= offset }.map { "section \($0.tag)" } ?? "padding" })
    }

    /// Verifies every block of the snapshot at `path` (`nearby check`): nil when it is whole, else what
    /// is wrong (every damaged block named). Checks the header as `engine` does, but not its stamp.
    public static func verify(_ path: String) -> Problem? {
        do throws(Problem) {
            let file = try mapFile(path)
            let h = try header(of: file)
            let damaged = try blockVerifier(file, h).verifyAll()
            return damaged.isEmpty
                ? nil
                : .damaged(
                    damaged.prefix(10).joined(separator: ", ")
                        + (damaged.count > 10 ? " and \(damaged.count - 10) more blocks" : ""))
        } catch {
            return error
        }
    }

    private static func mapFile(_ path: String) throws(Problem) -> MappedFile {
        #if _endian(big)
            throw Problem.unreadable("snapshots are little-endian; this machine is big-endian")
        #else
            do { return try MappedFile(path: path) } catch {
                if let f = error as? MappedFile.Failure, f.errno == ENOENT { throw Problem.missing }
                throw Problem.unreadable("\(error)")
            }
        #endif
    }

    struct Header {
        var stamp: Stamp
        var count: Int
        var nodeSize: Int
        /// Checksum of the `BSUM` section.
        var bodyChecksum: UInt64
        var bodyStart: Int
        var blockSize: Int
        var sections: [String: (elementSize: Int, offset: Int, count: Int)] = [:]

        /// Whether `count` bytes at `offset` lie in the body, before `BSUM` (where the blocks are).
        func inBody(_ offset: Int, _ count: Int) -> Bool {
            guard let sums = sections[IndexSnapshot.sumsTag] else { return false }
            return offset >= bodyStart && count >= 0 && offset <= sums.offset - count
        }
    }

    static func header(of file: MappedFile) throws(Problem) -> Header {
        guard let start = file.bytes(at: 0, count: 8) else {
            throw file.size == 0 ? Problem.truncated : Problem.foreign
        }
        guard start.elementsEqual(magic) else { throw Problem.foreign }
        guard let version = file.load(UInt32.self, at: 8), let k = file.load(UInt32.self, at: 12),
            let identity = file.load(Int64.self, at: 16), let generation = file.load(Int64.self, at: 24),
            let count = file.load(UInt64.self, at: 32), let length = file.load(UInt64.self, at: 40),
            let nodeSize = file.load(UInt32.self, at: 48), let blockSize = file.load(UInt32.self, at: 52),
            let body = file.load(UInt64.self, at: 56)
        else { throw Problem.truncated }
        guard version == formatVersion else { throw Problem.version(version) }
        guard length == UInt64(file.size) else {
            throw length > UInt64(file.size) ? Problem.truncated : Problem.damaged("file length")
        }
        let tableEnd = headerSize + entrySize * Int(k)
        guard k < 4096, let headerBytes = file.bytes(at: 0, count: tableEnd),
            let checksum = file.load(UInt64.self, at: tableEnd)
        else { throw Problem.truncated }
        guard SnapshotHash.of(headerBytes) == checksum else { throw Problem.damaged("header checksum") }
        guard count < UInt64(Int32.max) else { throw Problem.damaged("place count") }
        guard blockSize.nonzeroBitCount == 1, (4096...(1 << 20)).contains(blockSize) else {
            throw Problem.damaged("block size")
        }
        var h = Header(
            stamp: Stamp(identity: identity, generation: generation), count: Int(count),
            nodeSize: Int(nodeSize), bodyChecksum: body, bodyStart: tableEnd + 8, blockSize: Int(blockSize))
        for i in 0..<Int(k) {
            let e = headerSize + entrySize * i
            let tag = String(decoding: file.bytes(at: e, count: 4)!, as: UTF8.self)
            let size = file.load(UInt32.self, at: e + 4)!
            let offset = file.load(UInt64.self, at: e + 8)!
            let n = file.load(UInt64.self, at: e + 16)!
            guard offset < UInt64(Int.max), n < UInt64(Int32.max) * 8 else { throw Problem.damaged("section \(tag)") }
            h.sections[tag] = (Int(size), Int(offset), Int(n))
        }
        guard h.bodyStart <= file.size else { throw Problem.truncated }
        return h
    }
}

private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 { open(path, flags, mode) }

/// Writes every byte at `offset` (retrying short writes and interruptions); false with `errno` set on failure.
func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer, at offset: Int) -> Bool {
    transferAll(raw.count) { done in pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(offset + done)) }
}

/// Fills `raw` from `offset` (retrying short reads and interruptions); false at the end of the file or
/// on failure (`errno` set).
func readAll(_ fd: Int32, _ raw: UnsafeMutableRawBufferPointer, at offset: Int) -> Bool {
    transferAll(raw.count) { done in pread(fd, raw.baseAddress! + done, raw.count - done, off_t(offset + done)) }
}

/// Calls `transfer(bytesDoneSoFar)` (a `pread` or `pwrite` of the rest) until `count` bytes are done,
/// retrying interruptions; false when it fails or moves nothing.
private func transferAll(_ count: Int, _ transfer: (Int) -> Int) -> Bool {
    var done = 0
    while done < count {
        let n = transfer(done)
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return false }
        done += n
    }
    return true
}

/// A fast 64-bit checksum over little-endian 8-byte words (the last word zero-padded): each word
/// goes through xxHash64's round, `acc = rotl(acc + w·P2, 31)·P1`, and the result through its final
/// avalanche (Yann Collet, xxHash specification, github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md).
/// One lane, so it is not xxHash64's value; it detects damage, not tampering.
struct SnapshotHash {
    static let p1: UInt64 = 0x9E37_79B1_85EB_CA87
    static let p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    static let p3: UInt64 = 0x1656_67B1_9E37_79F9
    private(set) var acc: UInt64

    init(seed: UInt64) { acc = seed &+ Self.p1 }

    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h = SnapshotHash(seed: UInt64(bytes.count))
        h.add(bytes)
        return h.value
    }

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var i = 0
        while i + 8 <= bytes.count {
            round(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            i += 8
        }
        if i < bytes.count {
            var w: UInt64 = 0
            for (k, b) in bytes[i...].enumerated() { w |= UInt64(b) << (8 * UInt64(k)) }
            round(w)
        }
    }

    private mutating func round(_ w: UInt64) {
        acc = (acc &+ w &* Self.p2)
        acc = (acc << 31 | acc >> 33) &* Self.p1
    }

    var value: UInt64 {
        var h = acc
        h ^= h >> 33
        h = h &* Self.p2
        h ^= h >> 29
        h = h &* Self.p3
        h ^= h >> 32
        return h
    }
}
