import Foundation

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// A cluster hierarchy kept on disk beside the cache (`ClusterIndex`'s levels as they are in memory),
/// so that a cold `nearby clusters` process or a fresh server reads it instead of building it again
/// (a build takes seconds on a million places; reading it, milliseconds).
///
/// It is written lazily, by the first process that builds the hierarchy of every place (or of one
/// content type) with the default options (`ClusterRequest.isKept`), never by an import: so
/// imports cost nothing more. It carries the cache state it was built from (the cache's identity
/// and generation), the options, a hash of the request's filters and the number of points; a file
/// that does not match all of them, or fails a check, is not used: the hierarchy is built again and
/// the file replaced (atomically: temporary file, fsync, rename). A folder that cannot be written
/// only loses the file: the hierarchy built is answered all the same.
///
/// ## Format, version 1 (every integer little-endian)
///
/// Header, 96 bytes:
///
/// | offset | size | field |
/// |---:|---:|---|
/// | 0 | 8 | magic `NRBYCLUS` |
/// | 8 | 4 | format version (1) |
/// | 12 | 4 | number of levels L (`maxZoom + 2 − minZoom`) |
/// | 16 | 8 | identity of the cache (`meta.identity`) |
/// | 24 | 8 | cache generation the hierarchy was built at |
/// | 32 | 8 | number of points n (valid or not) |
/// | 40 | 8 | radius (Float64) |
/// | 48 | 8 | extent (Float64) |
/// | 56 | 4 × 4 | minPoints, minZoom, maxZoom, nodeSize (UInt32) |
/// | 72 | 8 | key: `SnapshotHash` of the hierarchy key's UTF-8 (`ClusterRequest.hierarchyKey`) |
/// | 80 | 8 | file length in bytes |
/// | 88 | 8 | zero |
///
/// Then the section table, L + 1 entries of 24 bytes: entries c (UInt64), offset from the start of
/// the file (UInt64), checksum (`SnapshotHash` of the section's bytes). Then the header checksum (8
/// bytes): `SnapshotHash` of bytes 0 ..< 96 + 24(L + 1). Sections follow it in table order, each
/// where the one before ends (every one is a multiple of 8 bytes long, so each array in them lies at
/// a multiple of 4, its coordinates at a multiple of 8), the last ending the file. Section l < L is level `minZoom + l` (c entries, 32c
/// bytes, in KD-tree order): coordinates x, y interleaved (Float64, 2c), ids, counts, parents, slots
/// (UInt32, c each). Section L is the points (c = n): their longitudes, then latitudes (Float64).
/// So every byte of the file lies under a checksum: the header and table under the header checksum,
/// each section under its own.
///
/// Reading checks the magic, version, length, header checksum, stamp, options, key and count, then
/// each section's checksum, and copies the sections into the index's arrays (`read`): a file that
/// fails any of it is refused, never answered from. 32 bytes an entry, as in memory: the 1M-place
/// hierarchy is some 106 MB.
///
/// The file holds the levels a build made, not the points to make them from: a change to the
/// algorithm (what a build gives) or to the arrays bumps `formatVersion`, so kept files are built again.
public enum ClusterFile {
    static let magic = Array("NRBYCLUS".utf8)
    public static let formatVersion: UInt32 = 1
    static let headerSize = 96
    static let entrySize = 24

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
    /// there (a failure to write is reported, not thrown). `report` hears why a file was not used.
    public static func index(
        at location: Location, options: ClusterOptions, pointCount: Int,
        report: (String) -> Void = { _ in }, build: () -> ClusterIndex
    ) -> ClusterIndex {
        do {
            return try read(location, options: options, pointCount: pointCount)
        } catch {
            if error != .missing { report("kept cluster hierarchy \(location.path): \(error); building it again") }
        }
        let index = build()
        do { try write(index, to: location) } catch {
            report("cannot keep the cluster hierarchy at \(location.path): \(error)")
        }
        return index
    }

    // MARK: Writing

    /// Writes `index` to `location.path`, atomically.
    public static func write(_ index: ClusterIndex, to location: Location) throws {
        let parts = index.parts
        let o = index.options
        let k = parts.levels.count + 1
        let tableEnd = headerSize + entrySize * k
        try IndexSnapshot.writeAtomically(to: location.path) { fd in
            func write(_ bytes: [UInt8], at offset: Int) throws {
                guard bytes.isEmpty || bytes.withUnsafeBytes({ writeAll(fd, $0, at: offset) }) else {
                    throw Problem.unreadable("\(location.path): \(String(cString: strerror(errno)))")
                }
            }
            // Sections first, each hashed as the bytes it is in the file; the header, which holds
            // their checksums, last.
            var table: [(count: Int, offset: Int, sum: UInt64)] = []
            var offset = tableEnd + 8
            func section(_ count: Int, _ arrays: [UnsafeRawBufferPointer]) throws {
                var bytes: [UInt8] = []
                bytes.reserveCapacity(arrays.reduce(0) { $0 + $1.count })
                for a in arrays { bytes += a }
                try write(bytes, at: offset)
                table.append((count, offset, bytes.withUnsafeBytes { SnapshotHash.of($0) }))
                offset += bytes.count
            }
            for level in parts.levels {
                try level.coords.withUnsafeBytes { c in
                    try level.ids.withUnsafeBytes { i in
                        try level.counts.withUnsafeBytes { n in
                            try level.parents.withUnsafeBytes { p in
                                try level.slot.withUnsafeBytes { s in try section(level.count, [c, i, n, p, s]) }
                            }
                        }
                    }
                }
            }
            try parts.lons.withUnsafeBytes { x in
                try parts.lats.withUnsafeBytes { y in try section(parts.lons.count, [x, y]) }
            }
            let fileLength = table[k - 1].offset + 16 * parts.lons.count
            var head = [UInt8]()
            head.reserveCapacity(tableEnd + 8)
            func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { head += $0 } }
            head += magic
            put(formatVersion)
            put(UInt32(parts.levels.count))
            put(location.stamp.identity)
            put(location.stamp.generation)
            put(UInt64(index.pointCount))
            put(o.radius.bitPattern)
            put(o.extent.bitPattern)
            for v in [o.minPoints, o.minZoom, o.maxZoom, o.nodeSize] { put(UInt32(v)) }
            put(keyHash(location.key))
            put(UInt64(fileLength))
            put(UInt64(0))
            for e in table {
                put(UInt64(e.count))
                put(UInt64(e.offset))
                put(e.sum)
            }
            put(head.withUnsafeBytes { SnapshotHash.of($0) })
            try write(head, at: 0)
            guard ftruncate(fd, off_t(fileLength)) == 0 else {
                throw Problem.unreadable("\(location.path): \(String(cString: strerror(errno)))")
            }
        }
    }

    // MARK: Reading

    /// The index kept at `location`, after every check (above); copies its sections into arrays.
    public static func read(_ location: Location, options: ClusterOptions, pointCount: Int) throws(Problem)
        -> ClusterIndex
    {
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
            let tableEnd = headerSize + entrySize * (levelCount + 1)
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
            var end = tableEnd + 8
            func section(_ i: Int, bytesPerEntry: Int) throws(Problem) -> (count: Int, bytes: UnsafeRawBufferPointer) {
                let e = headerSize + entrySize * i
                let count = u64(e)
                guard count < 1 << 32, u64(e + 8) == UInt64(end),
                    let bytes = file.bytes(at: end, count: Int(count) * bytesPerEntry)
                else { throw Problem.damaged("section \(i)") }
                end += bytes.count
                guard SnapshotHash.of(bytes) == u64(e + 16) else { throw Problem.damaged("section \(i) checksum") }
                return (Int(count), bytes)
            }
            var levels: [ClusterIndex.Level] = []
            levels.reserveCapacity(levelCount)
            for l in 0..<levelCount {
                let (c, bytes) = try section(l, bytesPerEntry: 32)
                func array<T: BitwiseCopyable>(_: T.Type, at offset: Int, count: Int) -> [T] {
                    [T](unsafeUninitializedCapacity: count) { buffer, done in
                        UnsafeMutableRawBufferPointer(buffer).copyMemory(
                            from: UnsafeRawBufferPointer(
                                rebasing: bytes[offset..<offset + count * MemoryLayout<T>.stride]))
                        done = count
                    }
                }
                let level = ClusterIndex.Level(
                    coords: array(Double.self, at: 0, count: 2 * c), ids: array(UInt32.self, at: 16 * c, count: c),
                    counts: array(UInt32.self, at: 20 * c, count: c), parents: array(UInt32.self, at: 24 * c, count: c),
                    slot: array(UInt32.self, at: 28 * c, count: c), nodeSize: options.nodeSize)
                guard level.isConsistent(pointCount: pointCount) else { throw Problem.damaged("level \(l)") }
                levels.append(level)
            }
            let (n, points) = try section(levelCount, bytesPerEntry: 16)
            guard n == pointCount, end == file.size else { throw Problem.damaged("section lengths") }
            let lons = [Double](unsafeUninitializedCapacity: n) { buffer, done in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: points[0..<8 * n]))
                done = n
            }
            let lats = [Double](unsafeUninitializedCapacity: n) { buffer, done in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: points[8 * n..<16 * n]))
                done = n
            }
            return ClusterIndex(options: options, lons: lons, lats: lats, levels: levels)
        #endif
    }

    // MARK: Parts

    static func keyHash(_ key: String) -> UInt64 { Array(key.utf8).withUnsafeBytes { SnapshotHash.of($0) } }
}

extension ClusterIndex.Level {
    /// Whether every slot names a position and every point's id a point (what a query indexes by).
    func isConsistent(pointCount: Int) -> Bool {
        let c = UInt32(ids.count)
        let n = UInt32(pointCount)
        return slot.withUnsafeBufferPointer { slot in
            ids.withUnsafeBufferPointer { ids in
                counts.withUnsafeBufferPointer { counts in
                    var bad = false
                    for k in 0..<slot.count {
                        bad = bad || slot[k] >= c || (counts[k] <= 1 && ids[k] >= n)
                    }
                    return !bad
                }
            }
        }
    }
}
