import Foundation

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// A cluster hierarchy kept on disk beside the cache (`ClusterIndex`'s levels as they are in memory),
/// so that a cold `nearby clusters` process or a fresh server maps it instead of building it again (a
/// build takes seconds on a million places; opening it, well under a millisecond).
///
/// It is written lazily, by the first process that builds the hierarchy of every place (or of one
/// content type) with the default options (`ClusterRequest.isKept`), never by an import: so
/// imports cost nothing more. It carries the cache state it was built from (the cache's identity
/// and generation), the options, a hash of the request's filters and the number of points; a file
/// that does not match all of them, or fails a check, is not used: the hierarchy is built again and
/// the file replaced (atomically, as a snapshot: `IndexSnapshot.writeAtomically`, its block checksums
/// read back by `IndexSnapshot.blockSums(of:…)`). A folder that cannot be written
/// only loses the file: the hierarchy built is answered all the same.
///
/// ## Format, version 2 (every integer little-endian)
///
/// Header, 96 bytes:
///
/// | offset | size | field |
/// |---:|---:|---|
/// | 0 | 8 | magic `NRBYCLUS` |
/// | 8 | 4 | format version (2; 1 had one checksum per section instead of `BSUM`'s blocks) |
/// | 12 | 4 | number of levels L (`maxZoom + 2 − minZoom`) |
/// | 16 | 8 | identity of the cache (`meta.identity`) |
/// | 24 | 8 | cache generation the hierarchy was built at |
/// | 32 | 8 | number of points n (valid or not) |
/// | 40 | 8 | radius (Float64) |
/// | 48 | 8 | extent (Float64) |
/// | 56 | 4 × 4 | minPoints, minZoom, maxZoom, nodeSize (UInt32) |
/// | 72 | 8 | key: `SnapshotHash` of the hierarchy key's UTF-8 (`ClusterRequest.hierarchyKey`) |
/// | 80 | 8 | file length in bytes |
/// | 88 | 4 | log2 of the block size of `BSUM` (14: 16 KiB) |
/// | 92 | 4 | zero |
///
/// Then the section table, L + 2 entries of 24 bytes: entries c (UInt64), offset from the start of
/// the file (UInt64), checksum (zero, but `BSUM`'s: `SnapshotHash` of its bytes). Then the header
/// checksum (8 bytes): `SnapshotHash` of bytes 0 ..< 96 + 24(L + 2). Sections follow it in table
/// order, each where the one before ends (every one a multiple of 8 bytes long, so each array in them
/// lies at a multiple of 4, its coordinates at a multiple of 8), the last ending the file. Section
/// l < L is level `minZoom + l` (c entries, 32c bytes, in KD-tree order): coordinates x, y
/// interleaved (Float64, 2c), ids, counts, parents, slots (UInt32, c each). Section L is the points
/// (c = n): their longitudes, then latitudes (Float64). Section L + 1, `BSUM`, the block checksums of
/// the body (every byte after the header checksum up to `BSUM`), as an index snapshot's
/// (`IndexSnapshot`, "Checks"): entry b is `SnapshotHash`, seeded with the block's first offset, of
/// the body's bytes at file offsets b·size ..< (b + 1)·size. So every byte of the file lies under a
/// checksum: the header and table under the header checksum, `BSUM` under its table entry, the
/// levels and points under `BSUM`.
///
/// Reading (`read`) maps the file and checks only what is cheap: the magic, version, length, header
/// checksum, stamp, options, key and count, every section's size and place, and `BSUM`'s checksum; a
/// file that fails any of it is refused. The levels and points are then used in place, never
/// copied, each verified the first time it is read (`BlockVerifier`): a level's blocks all at once
/// (with its slots and point ids in range) before its first query, a point's coordinates before
/// they are written out. A cold `nearby clusters --zoom 8` so reads the header, one level of a few
/// hundred entries and the few points it shows, not the 106 MB of a 1M-place hierarchy. A level or
/// point found damaged then is never answered from: the index builds the hierarchy again (`rebuild`)
/// and answers from that from then on (the same levels, since a build depends only on the points and
/// options).
///
/// The file holds the levels a build made, not the points to make them from: a change to the
/// algorithm (what a build gives) or to the arrays bumps `formatVersion`, so kept files are built again.
public enum ClusterFile {
    static let magic = Array("NRBYCLUS".utf8)
    public static let formatVersion: UInt32 = 3
    static let headerSize = 96
    static let entrySize = 24
    /// log2 of the block size of the checksums a writer makes (16 KiB, as a snapshot's).
    static let blockShift = 14

    /// Where a hierarchy is kept and what it must match: the file, the cache state, the hierarchy key.
    public struct Location: Sendable, Equatable {
        public var path: String
        public var stamp: IndexSnapshot.Stamp
        public var key: String
        public init(path: String, stamp: IndexSnapshot.Stamp, key: String) {
            self.path = path
            self.stamp = stamp
            self.key = key
        }
    }

    /// The file of a request's kept hierarchy beside the cache at `cachePath`: `CACHE.nearby-clusters`
    /// for every place, `CACHE.nearby-clusters-39` for content type 39; nil when the request's is not
    /// kept on disk (`ClusterRequest.isKept`).
    public static func path(ofCache cachePath: String, for request: ClusterRequest) -> String? {
        guard request.isKept else { return nil }
        guard let category = request.query.filter.categories?.first else { return cachePath + ".nearby-clusters" }
        return cachePath + ".nearby-clusters-\(category)"
    }

    /// Why a file cannot be used. Every case means "build it again".
    public enum Problem: NearbyError, Equatable {
        case missing
        case unreadable(String)
        case foreign
        case version(UInt32)
        case truncated
        case damaged(String)
        /// Another cache state, other options, filters or points.
        case stale

        public var description: String {
            switch self {
            case .missing: "no kept hierarchy"
            case .unreadable(let why): "cannot read it (\(why))"
            case .foreign: "not a Nearby cluster file"
            case .version(let v): "format version \(v), this nearby reads \(ClusterFile.formatVersion)"
            case .truncated: "truncated"
            case .damaged(let what): "damaged (\(what))"
            case .stale: "built for another cache state, options or filter"
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

    /// The index kept at `location` when it matches (`read`), else the one `build` makes, then written
    /// there (a failure to write is reported, not thrown). `report` hears why a file was not used, then
    /// or later (a level found damaged when first read: the index then answers from `build`'s, and the
    /// file is written again).
    public static func index(
        at location: Location, options: ClusterOptions, pointCount: Int,
        report: @escaping @Sendable (String) -> Void = { _ in }, build: @escaping @Sendable () -> ClusterIndex
    ) -> ClusterIndex {
        let rebuild: @Sendable () -> ClusterIndex = {
            let index = build()
            do { try write(index, to: location) } catch {
                report("cannot keep the cluster hierarchy at \(location.path): \(error)")
            }
            return index
        }
        do {
            return try read(location, options: options, pointCount: pointCount) { problem in
                report("kept cluster hierarchy \(location.path): \(problem); building it again")
                return rebuild()
            }
        } catch {
            if error != .missing { report("kept cluster hierarchy \(location.path): \(error); building it again") }
        }
        return rebuild()
    }

    // MARK: Writing

    /// Writes `index` to `location.path`, atomically.
    public static func write(_ index: ClusterIndex, to location: Location) throws {
        let o = index.options
        let levelCount = index.levelCount
        let k = levelCount + 2
        let tableEnd = headerSize + entrySize * k
        let bodyStart = tableEnd + 8
        try IndexSnapshot.writeAtomically(to: location.path) { fd in
            func failed() -> Problem { Problem.unreadable("\(location.path): \(String(cString: strerror(errno)))") }
            func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
                guard bytes.isEmpty || writeAll(fd, bytes, at: offset) else { throw failed() }
            }
            // Sections first, then the block checksums read back, the header (which holds `BSUM`'s
            // checksum) last.
            var table: [(count: Int, offset: Int, sum: UInt64)] = []
            var offset = bodyStart
            for l in 0..<levelCount {
                let level = index.level(l)
                try write(level.bytes, at: offset)
                table.append((level.count, offset, 0))
                offset += level.bytes.count
            }
            try index.withPointBytes { x, y in
                try write(x, at: offset)
                try write(y, at: offset + x.count)
            }
            table.append((index.pointCount, offset, 0))
            offset += 16 * index.pointCount
            let sumsOffset = offset
            guard let sums = IndexSnapshot.blockSums(of: fd, bodyStart: bodyStart, end: sumsOffset, shift: blockShift)
            else { throw failed() }
            try sums.withUnsafeBytes { try write($0, at: sumsOffset) }
            table.append((sums.count, sumsOffset, sums.withUnsafeBytes { SnapshotHash.of($0) }))
            let fileLength = sumsOffset + 8 * sums.count
            var head = [UInt8]()
            head.reserveCapacity(bodyStart)
            func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { head += $0 } }
            head += magic
            put(formatVersion)
            put(UInt32(levelCount))
            put(location.stamp.identity)
            put(location.stamp.generation)
            put(UInt64(index.pointCount))
            put(o.radius.bitPattern)
            put(o.extent.bitPattern)
            for v in [o.minPoints, o.minZoom, o.maxZoom, o.nodeSize] { put(UInt32(v)) }
            put(keyHash(location.key))
            put(UInt64(fileLength))
            put(UInt32(blockShift))
            put(UInt32(0))
            for e in table {
                put(UInt64(e.count))
                put(UInt64(e.offset))
                put(e.sum)
            }
            put(head.withUnsafeBytes { SnapshotHash.of($0) })
            try head.withUnsafeBytes { try write($0, at: 0) }
            guard ftruncate(fd, off_t(fileLength)) == 0 else { throw failed() }
        }
    }

    // MARK: Reading

    /// The index kept at `location`, mapped, after the cheap checks (above); its levels and points
    /// are verified as they are first read, and `rebuild` (told what was damaged) gives the index
    /// answered from instead when one fails.
    public static func read(
        _ location: Location, options: ClusterOptions, pointCount: Int,
        rebuild: @escaping @Sendable (Problem) -> ClusterIndex
    ) throws(Problem) -> ClusterIndex {
        #if _endian(big)
            throw Problem.unreadable("cluster files are little-endian; this machine is big-endian")
        #else
            let file: MappedFile
            do { file = try MappedFile(path: location.path) } catch {
                if let f = error as? MappedFile.Failure, f.errno == ENOENT || f.errno == ENOTDIR {
                    throw Problem.missing
                }
                throw Problem.unreadable("\(error)")
            }
            guard let start = file.bytes(at: 0, count: 8) else {
                throw file.size == 0 ? Problem.truncated : Problem.foreign
            }
            guard start.elementsEqual(magic) else { throw Problem.foreign }
            guard let version = file.load(UInt32.self, at: 8), let k = file.load(UInt32.self, at: 12),
                let length = file.load(UInt64.self, at: 80)
            else { throw Problem.truncated }
            guard version == formatVersion else { throw Problem.version(version) }
            guard length == UInt64(file.size) else {
                throw length > UInt64(file.size) ? Problem.truncated : Problem.damaged("file length")
            }
            let levelCount = Int(k)
            let tableEnd = headerSize + entrySize * (levelCount + 2)
            guard levelCount <= ClusterOptions.zoomLimit + 2, let head = file.bytes(at: 0, count: tableEnd),
                let checksum = file.load(UInt64.self, at: tableEnd)
            else { throw Problem.truncated }
            guard SnapshotHash.of(head) == checksum else { throw Problem.damaged("header checksum") }
            func u32(_ at: Int) -> Int { Int(file.load(UInt32.self, at: at)!) }
            func u64(_ at: Int) -> UInt64 { file.load(UInt64.self, at: at)! }
            let stored = ClusterOptions(
                radius: Double(bitPattern: u64(40)), extent: Double(bitPattern: u64(48)), minPoints: u32(56),
                minZoom: u32(60), maxZoom: u32(64), nodeSize: u32(68))
            let stamp = IndexSnapshot.Stamp(
                identity: Int64(bitPattern: u64(16)), generation: Int64(bitPattern: u64(24)))
            guard stamp == location.stamp, stored == options, u64(32) == UInt64(pointCount),
                u64(72) == keyHash(location.key), levelCount == options.maxZoom + 2 - options.minZoom
            else { throw Problem.stale }
            let shift = u32(88)
            guard (12...20).contains(shift) else { throw Problem.damaged("block size") }
            // Every section where the one before ends, of its entries' size; `BSUM` last, ending the file.
            var end = tableEnd + 8
            var sections: [(count: Int, offset: Int)] = []
            for i in 0..<levelCount + 2 {
                let e = headerSize + entrySize * i
                let count = u64(e)
                let size = i < levelCount ? 32 : i == levelCount ? 16 : 8
                guard count < 1 << 32, u64(e + 8) == UInt64(end), file.bytes(at: end, count: Int(count) * size) != nil
                else { throw Problem.damaged("section \(i)") }
                sections.append((Int(count), end))
                end += Int(count) * size
            }
            let points = sections[levelCount]
            let sumsAt = sections[levelCount + 1]
            guard points.count == pointCount, end == file.size,
                sumsAt.count == (sumsAt.offset + (1 << shift) - 1) >> shift
            else { throw Problem.damaged("section lengths") }
            let sumBytes = file.bytes(at: sumsAt.offset, count: 8 * sumsAt.count)!
            guard SnapshotHash.of(sumBytes) == u64(headerSize + entrySize * (levelCount + 1) + 16) else {
                throw Problem.damaged("checksum of BSUM")
            }
            let base = file.bytes(at: 0, count: 0)!.baseAddress!
            let levelStarts = sections[0..<levelCount].map { $0.offset }
            let verifier = BlockVerifier(
                start: base, blockShift: shift, bodyStart: tableEnd + 8, end: sumsAt.offset,
                sums: sumBytes.baseAddress!,
                sectionAt: { offset in
                    offset >= points.offset
                        ? "points" : "level \(options.minZoom + (levelStarts.lastIndex { $0 <= offset } ?? 0))"
                })
            let mapped = MappedLevels(
                file: file, verifier: verifier, levels: Array(sections[0..<levelCount]), points: points.offset,
                pointCount: pointCount, options: options, rebuild: rebuild)
            return ClusterIndex(options: options, pointCount: pointCount, mapped: mapped)
        #endif
    }

    // MARK: Parts

    /// Recomputes the block checksums, `BSUM`'s checksum and the header checksum of file `bytes` after
    /// a change: what a test makes to show damage that the checksums cannot see.
    static func reseal(_ bytes: inout [UInt8]) {
        func integer(_ at: Int, _ size: Int) -> Int { (0..<size).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        func put(_ value: UInt64, at: Int) {
            withUnsafeBytes(of: value.littleEndian) { for (n, b) in $0.enumerated() { bytes[at + n] = b } }
        }
        let levels = integer(12, 4)
        let tableEnd = headerSize + entrySize * (levels + 2)
        let sumsEntry = headerSize + entrySize * (levels + 1)
        let sumsOffset = integer(sumsEntry + 8, 8)
        let sums = IndexSnapshot.blockSums(bodyStart: tableEnd + 8, end: sumsOffset, shift: integer(88, 4)) {
            lo, n, add in
            bytes.withUnsafeBytes { add(UnsafeRawBufferPointer(rebasing: $0[lo..<lo + n])) }
            return true
        }!
        for (b, sum) in sums.enumerated() { put(UInt64(littleEndian: sum), at: sumsOffset + 8 * b) }
        let sumsHash = bytes.withUnsafeBytes { SnapshotHash.of(UnsafeRawBufferPointer(rebasing: $0[sumsOffset...])) }
        put(sumsHash, at: sumsEntry + 16)
        put(bytes.withUnsafeBytes { SnapshotHash.of(UnsafeRawBufferPointer(rebasing: $0[0..<tableEnd])) }, at: tableEnd)
    }

    static func keyHash(_ key: String) -> UInt64 { Array(key.utf8).withUnsafeBytes { SnapshotHash.of($0) } }
}

/// The levels and points of a mapped `ClusterFile`, each level verified (its blocks, then its slots and
/// point ids) the first time it is read, each point's coordinates before they are read. The first
/// damage found makes the index answer from `rebuild`'s instead, from then on.
final class MappedLevels: @unchecked Sendable {
    // @unchecked: `loaded` and `replacement` are read and written under `lock`; the rest is immutable.
    private let file: MappedFile
    private let verifier: BlockVerifier
    private let sections: [(count: Int, offset: Int)]
    private let lons: UnsafePointer<Double>
    private let lats: UnsafePointer<Double>
    private let pointCount: Int
    private let nodeSize: Int
    private let minZoom: Int
    private let rebuild: @Sendable (ClusterFile.Problem) -> ClusterIndex
    private let lock = NSLock()
    private var loaded: [ClusterIndex.Level?]
    private var replacement: ClusterIndex?

    init(
        file: MappedFile, verifier: BlockVerifier, levels: [(count: Int, offset: Int)], points: Int, pointCount: Int,
        options: ClusterOptions, rebuild: @escaping @Sendable (ClusterFile.Problem) -> ClusterIndex
    ) {
        self.file = file
        self.verifier = verifier
        sections = levels
        let base = file.bytes(at: 0, count: 0)!.baseAddress!
        lons = (base + points).assumingMemoryBound(to: Double.self)
        lats = (base + points + 8 * pointCount).assumingMemoryBound(to: Double.self)
        self.pointCount = pointCount
        nodeSize = options.nodeSize
        minZoom = options.minZoom
        self.rebuild = rebuild
        loaded = Array(repeating: nil, count: levels.count)
    }

    var counts: [Int] { sections.map(\.count) }

    func level(_ l: Int) -> ClusterIndex.Level {
        lock.lock()
        defer { lock.unlock() }
        if let replacement { return replacement.level(l) }
        if let level = loaded[l] { return level }
        let s = sections[l]
        let bytes = file.bytes(at: s.offset, count: 32 * s.count)!
        let level = ClusterIndex.Level(count: s.count, bytes: bytes, owner: file, nodeSize: nodeSize)
        guard s.count == 0 || verifier.covers(bytes.baseAddress!, bytes.count) else {
            return replaced(.damaged(verifier.failure ?? "level \(minZoom + l)")).level(l)
        }
        guard level.isConsistent(pointCount: pointCount) else {
            return replaced(.damaged("level \(minZoom + l)")).level(l)
        }
        loaded[l] = level
        return level
    }

    @inline(__always) func point(_ i: Int) -> (lon: Double, lat: Double) {
        // Intact coordinates are the ones a build takes, whether or not the index was built again.
        if verifier.holds(lons + i, 8) && verifier.holds(lats + i, 8) { return (lons[i], lats[i]) }
        lock.lock()
        defer { lock.unlock() }
        return (replacement ?? replaced(.damaged(verifier.failure ?? "points"))).point(i)
    }

    func withPointBytes<R>(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let x = UnsafeRawBufferPointer(start: lons, count: 8 * pointCount)
        let y = UnsafeRawBufferPointer(start: lats, count: 8 * pointCount)
        lock.lock()
        let intact = replacement == nil && (pointCount == 0 || verifier.covers(lons, 16 * pointCount))
        let other = intact ? nil : (replacement ?? replaced(.damaged(verifier.failure ?? "points")))
        lock.unlock()
        if let other { return try other.withPointBytes(body) }
        return try withExtendedLifetime(file) { try body(x, y) }
    }

    /// The index built again (under `lock`), answered from from now on.
    private func replaced(_ problem: ClusterFile.Problem) -> ClusterIndex {
        if let replacement { return replacement }
        let index = rebuild(problem)
        replacement = index
        return index
    }
}
