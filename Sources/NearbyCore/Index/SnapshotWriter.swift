#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Writes an index snapshot (format: `IndexSnapshot`) from places fed one at a time, holding only
/// the snapshot's flat columns and the titles' UTF-8, never the records: the snapshot of a million
/// places costs about its own size in memory, not the cache's.
///
/// `append` every place (in any order; a cache read in id order skips the id sort), then `write`
/// once: it puts the rows in the tree's Hilbert order (their id ranks become a column) and writes
/// each section goes to the file with `pwrite` as soon as it is final and is then freed, so that the
/// large temporaries (the titles' collation keys, the tree's build) never coexist with the columns.
public struct SnapshotWriter {
    private var idBytes: [UInt8] = [], idOffsets: [UInt32] = [0]
    /// The id as a number when it is at most 18 ASCII digits without a leading zero, else −1
    /// (`PlaceTable.idPrecedes` then decides).
    private var idNumbers: [Int64] = []
    private var inIdOrder = true
    private var titleBytes: [UInt8] = [], titleEnds: [UInt32] = []
    private var foldedUnits: [UInt16] = [], foldedEnds: [UInt32] = []
    private var lats: [Double] = [], lons: [Double] = []
    private var category: [Int32] = [], created: [Int64] = [], modified: [Int64] = []
    private var eventStart: [Int32] = [], eventEnd: [Int32] = [], flags: [UInt32] = []
    private var areacode: CodeColumn.Builder, sigungucode: CodeColumn.Builder
    /// `CodeFamily` keys, one column per family (by raw value).
    private var codes: [CodeColumn.Builder]
    static let nodeSize = 16

    public init(capacity: Int = 0) {
        areacode = CodeColumn.Builder(capacity: capacity); sigungucode = CodeColumn.Builder(capacity: capacity)
        codes = CodeFamily.allCases.map { _ in CodeColumn.Builder(capacity: capacity) }
        idOffsets.reserveCapacity(capacity + 1); idNumbers.reserveCapacity(capacity); titleEnds.reserveCapacity(capacity)
        foldedEnds.reserveCapacity(capacity); lats.reserveCapacity(capacity); lons.reserveCapacity(capacity)
        category.reserveCapacity(capacity); created.reserveCapacity(capacity); modified.reserveCapacity(capacity)
        eventStart.reserveCapacity(capacity); eventEnd.reserveCapacity(capacity); flags.reserveCapacity(capacity)
        // The text buffers' lengths are unknown: generous room, which costs address space only (pages
        // are resident once written), where doubling would hold the old and the new copy at once.
        idBytes.reserveCapacity(capacity * 16); titleBytes.reserveCapacity(capacity * 64)
        foldedUnits.reserveCapacity(capacity * 32)
    }

    /// Places appended so far.
    public var count: Int { lats.count }

    /// Adds one place, given by the fields the snapshot holds (dates as the cache stores them;
    /// `accessibility`, the bits of its known tags, `Accessibility.bit`; `codeKeys`, its
    /// `CodeFamily` keys by raw value).
    public mutating func append(
        id: String, title: String, lat: Double, lon: Double, category: Int, created: String?, modified: String?,
        areacode: String?, sigungucode: String?, hasImage: Bool, eventStart: String?, eventEnd: String?,
        accessibility: UInt32, codeKeys: [String?]
    ) {
        let number = Self.number(id)
        if let last = idNumbers.last, inIdOrder {
            let ordered = last >= 0 && number >= 0
                ? last < number
                : PlaceTable.idPrecedes(self.id(idNumbers.count - 1), id) || self.id(idNumbers.count - 1) == id
            if !ordered { inIdOrder = false }
        }
        idNumbers.append(number)
        idBytes.append(contentsOf: id.utf8)
        idOffsets.append(UInt32(truncatingIfNeeded: idBytes.count))
        titleBytes.append(contentsOf: title.utf8)
        titleEnds.append(UInt32(truncatingIfNeeded: titleBytes.count))
        foldedUnits.append(contentsOf: KeywordMatcher.fold(title))
        foldedEnds.append(UInt32(truncatingIfNeeded: foldedUnits.count))
        lats.append(lat); lons.append(lon)
        self.category.append(Int32(truncatingIfNeeded: category))
        self.created.append(PlaceTable.timestamp(created))
        self.modified.append(PlaceTable.timestamp(modified))
        self.eventStart.append(PlaceTable.day(eventStart))
        self.eventEnd.append(PlaceTable.day(eventEnd ?? eventStart))
        flags.append(accessibility | (hasImage ? PlaceTable.imageBit : 0))
        self.areacode.append(areacode)
        self.sigungucode.append(sigungucode)
        for (i, key) in codeKeys.enumerated() { codes[i].append(key) }
    }

    /// Adds one place record.
    public mutating func append(_ p: Place) {
        append(id: p.id, title: p.title, lat: p.lat, lon: p.lon, category: p.category, created: p.created,
               modified: p.modified, areacode: p.areacode, sigungucode: p.sigungucode,
               hasImage: !(p.image?.isEmpty ?? true), eventStart: p.eventStart, eventEnd: p.eventEnd,
               accessibility: Accessibility.placeMask(p.accessibility),
               codeKeys: CodeFamily.allCases.map { $0.key(of: p) })
    }

    /// Writes the snapshot of the appended places for the cache state `stamp` to `path`, atomically
    /// (`IndexSnapshot.writeAtomically`). Leaves this writer empty.
    public mutating func write(stamp: IndexSnapshot.Stamp, to path: String) throws {
        guard idBytes.count < Int(UInt32.max), foldedUnits.count < Int(UInt32.max), titleBytes.count < Int(UInt32.max) else {
            throw IndexSnapshot.Problem.damaged("more than 4 GiB of ids or titles")
        }
        // Id order first, so a position is an id rank and equal Hilbert keys keep id order (the bytes
        // do not depend on the order places came in); then curve order, so the tree's items are the rows.
        let byId = inIdOrder ? nil : idOrder()
        if let byId { arrange(byId) }
        // The columns are put in curve order one at a time as they are written (`inCurveOrder`), so that
        // only one extra copy exists at a time; the small code columns now, for their dictionaries.
        let order = PackedRTree.hilbertOrder(xs: lons, ys: lats)
        areacode.arrange(order); sigungucode.arrange(order)
        for i in codes.indices { codes[i].arrange(order) }
        func inCurveOrder<T>(_ a: [T]) -> [T] { order.map { a[Int($0)] } }
        var idRanks = order.map { UInt32($0) }
        var rowsByIdRank = [UInt32](repeating: 0, count: count)
        for (row, k) in idRanks.enumerated() { rowsByIdRank[Int(k)] = UInt32(row) }
        let appendOrder = byId.map { b in order.map { b[Int($0)] } } ?? order
        let areas = Self.strings(Self.dictionaryValues(areacode.dictionary))
        let sigungus = Self.strings(Self.dictionaryValues(sigungucode.dictionary))
        let codeStrings = codes.map { Self.strings(Self.dictionaryValues($0.dictionary)) }
        let n = count
        let (treeLevels, treeBoxes) = PackedRTree.shape(count: n, nodeSize: Self.nodeSize)

        // The layout first (every section's length is known), then each section into place.
        var tags: [(String, Int, Int)] = [
            ("TPTS", 8, 2 * n), ("TBOX", 8, treeBoxes), ("TLVL", 8, treeLevels.count),
            ("IDRK", 4, n), ("IDRW", 4, n), ("CATG", 4, n), ("AREA", 2, n), ("SIGU", 2, n),
            ("ARDO", 4, areas.offsets.count), ("ARDB", 1, areas.bytes.count),
            ("SGDO", 4, sigungus.offsets.count), ("SGDB", 1, sigungus.bytes.count),
            ("CRTD", 8, n), ("MODF", 8, n), ("EVST", 4, n), ("EVEN", 4, n), ("FLAG", 4, n), ("RANK", 4, n),
            ("FTUN", 2, foldedUnits.count), ("FTEN", 4, n), ("IDOF", 4, n + 1), ("IDBY", 1, idBytes.count),
        ]
        for (stem, strings) in zip(IndexSnapshot.codeTags, codeStrings) {
            tags += [(stem + "C", 2, n), (stem + "O", 4, strings.offsets.count), (stem + "B", 1, strings.bytes.count)]
        }
        let statistics = TableStatistics(category: category, areaCodes: areacode.codes, areaValues: areacode.dictionary.count)
        tags += SortOrders.sections(count: n, statistics: statistics)
        let tableEnd = IndexSnapshot.headerSize + IndexSnapshot.entrySize * tags.count
        var offsets: [String: Int] = [:]
        var end = IndexSnapshot.align(tableEnd + 8)
        for (tag, size, count) in tags {
            offsets[tag] = end
            end = IndexSnapshot.align(end + size * count)
        }
        let fileLength = end

        try IndexSnapshot.writeAtomically(to: path) { fd in
            func failed() -> IndexSnapshot.Problem { .unreadable("\(path): \(String(cString: strerror(errno)))") }
            guard ftruncate(fd, off_t(fileLength)) == 0 else { throw failed() }
            func put<T: BitwiseCopyable>(_ tag: String, _ values: [T]) throws {
                guard values.withUnsafeBytes({ writeAll(fd, $0, at: offsets[tag]!) }) else { throw failed() }
            }
            func put<T: BitwiseCopyable>(_ tag: String, _ values: Column<T>) throws {
                guard values.withUnsafeBufferPointer({ writeAll(fd, UnsafeRawBufferPointer($0), at: offsets[tag]!) }) else { throw failed() }
            }
            // Peak memory (the import's, BENCHMARKS.md): one large part at a time. Every column but the
            // titles and coordinates is written and freed first, then the titles are ranked (their sort
            // keys are the largest part), then the tree is built.
            try put("IDRK", idRanks); idRanks = []
            try put("IDRW", rowsByIdRank); rowsByIdRank = []
            try put("CATG", inCurveOrder(category)); category = []
            try put("AREA", areacode.codes); try put("SIGU", sigungucode.codes)
            areacode = CodeColumn.Builder(capacity: 0); sigungucode = CodeColumn.Builder(capacity: 0)
            try put("ARDO", areas.offsets); try put("ARDB", areas.bytes)
            try put("SGDO", sigungus.offsets); try put("SGDB", sigungus.bytes)
            try put("CRTD", inCurveOrder(created)); created = []
            try put("MODF", inCurveOrder(modified)); modified = []
            try put("EVST", inCurveOrder(eventStart)); eventStart = []
            try put("EVEN", inCurveOrder(eventEnd)); eventEnd = []
            try put("FLAG", inCurveOrder(flags)); flags = []
            let folded = Self.arranged(foldedUnits, ends: foldedEnds, order)
            foldedUnits = []; foldedEnds = []
            try put("FTUN", folded.units); try put("FTEN", folded.ends)
            let ids = Self.arranged(idBytes, ends: Array(idOffsets.dropFirst()), order)
            idBytes = []; idOffsets = [0]; idNumbers = []
            try put("IDOF", [0] + ids.ends); try put("IDBY", ids.units)
            for (i, stem) in IndexSnapshot.codeTags.enumerated() {
                try put(stem + "C", codes[i].codes); try put(stem + "O", codeStrings[i].offsets); try put(stem + "B", codeStrings[i].bytes)
                codes[i] = CodeColumn.Builder(capacity: 0)
            }
            FreedMemory.giveBack()
            try put("RANK", titleRanks(appendOrder))
            var points = [Double](repeating: 0, count: 2 * n)
            for row in 0..<n { points[2 * row] = lons[Int(order[row])]; points[2 * row + 1] = lats[Int(order[row])] }
            lats = []; lons = []
            let tree = PackedRTree(orderedPoints: points, items: nil, ranks: nil, nodeSize: Self.nodeSize)
            precondition(tree.boxes.count == treeBoxes && tree.levels.elementsEqual(treeLevels), "PackedRTree.shape disagrees with the tree")
            try put("TPTS", points); points = []
            try put("TBOX", tree.boxes); try put("TLVL", tree.levels)
            FreedMemory.giveBack()

            // The stored orders last, from the sort columns read back from the file (rows in curve order, ties by the id rank `order` gives each row).
            func readBack<T: BitwiseCopyable>(_ tag: String, _: T.Type) throws -> [T] {
                var values = [T](unsafeUninitializedCapacity: n) { _, count in count = n }
                guard values.withUnsafeMutableBytes({ readAll(fd, $0, at: offsets[tag]!) }) else { throw failed() }
                return values
            }
            try SortOrders.write(count: n, statistics: statistics, idRank: { UInt32(order[$0]) }, keys: { field in
                switch field {
                case .title: try readBack("RANK", UInt32.self).map(Int64.init)
                case .modified: try readBack("MODF", Int64.self)
                case .created: try readBack("CRTD", Int64.self)
                default: try readBack("CATG", Int32.self).map(Int64.init)
                }
            }, put: put, putCounts: put)

            // The body checksum reads the body back (from the page cache), as a reader checks it.
            let bodyStart = tableEnd + 8
            let body = IndexSnapshot.bodyChecksum(count: fileLength - bodyStart) { start, count, add in
                var buffer = [UInt8](repeating: 0, count: count)
                let ok = buffer.withUnsafeMutableBytes { readAll(fd, $0, at: bodyStart + start) }
                if ok { buffer.withUnsafeBytes(add) }
                return ok
            }
            guard let body else { throw failed() }
            var header = [UInt8](repeating: 0, count: tableEnd + 8)
            func set<T: FixedWidthInteger>(_ v: T, at o: Int) {
                withUnsafeBytes(of: v.littleEndian) { for (k, b) in $0.enumerated() { header[o + k] = b } }
            }
            header.replaceSubrange(0..<8, with: IndexSnapshot.magic)
            set(IndexSnapshot.formatVersion, at: 8); set(UInt32(tags.count), at: 12)
            set(stamp.identity, at: 16); set(stamp.generation, at: 24)
            set(UInt64(n), at: 32); set(UInt64(fileLength), at: 40); set(UInt32(Self.nodeSize), at: 48)
            set(body, at: 56)
            for (i, (tag, size, count)) in tags.enumerated() {
                let e = IndexSnapshot.headerSize + IndexSnapshot.entrySize * i
                header.replaceSubrange(e..<e + 4, with: Array(tag.utf8))
                set(UInt32(size), at: e + 4); set(UInt64(offsets[tag]!), at: e + 8); set(UInt64(count), at: e + 16)
            }
            set(header.withUnsafeBytes { SnapshotHash.of(UnsafeRawBufferPointer(rebasing: $0[0..<tableEnd])) }, at: tableEnd)
            guard header.withUnsafeBytes({ writeAll(fd, $0, at: 0) }) else { throw failed() }
        }
    }

    /// The titles' Korean-collation ranks (`KoreanCollation.ranks`), in `order`. Frees the titles once
    /// their sort keys (about twice their size) are built, before sorting the keys.
    private mutating func titleRanks(_ order: [Int32]) -> [UInt32] {
        let keys = titleBytes.withUnsafeBufferPointer { u in
            titleEnds.withUnsafeBufferPointer { KoreanCollation.sortKeys(utf8: u, ends: $0) }
        }
        titleBytes = []; titleEnds = []
        FreedMemory.giveBack()
        let r = keys.ranks()
        return order.map { r[Int($0)] }
    }

    /// Id `i` (in append order).
    private func id(_ i: Int) -> String {
        String(decoding: idBytes[Int(idOffsets[i])..<Int(idOffsets[i + 1])], as: UTF8.self)
    }

    /// Append positions in id order (`PlaceTable.idPrecedes`).
    private func idOrder() -> [Int32] {
        (0..<Int32(count)).sorted { i, j in
            let a = idNumbers[Int(i)], b = idNumbers[Int(j)]
            return a >= 0 && b >= 0 ? a < b : PlaceTable.idPrecedes(id(Int(i)), id(Int(j)))
        }
    }

    /// Puts every per-place column into `order`.
    private mutating func arrange(_ order: [Int32]) {
        func arranged<T>(_ a: [T]) -> [T] { order.map { a[Int($0)] } }
        lats = arranged(lats); lons = arranged(lons); category = arranged(category)
        created = arranged(created); modified = arranged(modified); eventStart = arranged(eventStart)
        eventEnd = arranged(eventEnd); flags = arranged(flags)
        areacode.arrange(order); sigungucode.arrange(order)
        for i in codes.indices { codes[i].arrange(order) }
        let ids = Self.arranged(idBytes, ends: Array(idOffsets.dropFirst()), order)
        idBytes = ids.units; idOffsets = [0] + ids.ends
        (foldedUnits, foldedEnds) = Self.arranged(foldedUnits, ends: foldedEnds, order)
    }

    /// A text column (value i is `units[ends[i − 1] ..< ends[i]]`, from 0 for i = 0) with its values in `order`.
    private static func arranged<T>(_ units: [T], ends: [UInt32], _ order: [Int32]) -> (units: [T], ends: [UInt32]) {
        var out: [T] = [], outEnds: [UInt32] = []
        out.reserveCapacity(units.count); outEnds.reserveCapacity(order.count)
        for i in order.map(Int.init) {
            out.append(contentsOf: units[(i == 0 ? 0 : Int(ends[i - 1]))..<Int(ends[i])])
            outEnds.append(UInt32(out.count))
        }
        return (out, outEnds)
    }

    private static func number(_ id: String) -> Int64 {
        let u = id.utf8
        guard u.count <= 18, let first = u.first, first != 48, u.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return -1 }
        return Int64(id)!
    }

    /// A code column's dictionary as a list: entry c − 1 is the value of code c.
    private static func dictionaryValues(_ dictionary: [String: UInt16]) -> [String] {
        var values = [String](repeating: "", count: dictionary.count)
        for (value, code) in dictionary { values[Int(code) - 1] = value }
        return values
    }

    private static func strings(_ values: [String]) -> (offsets: [UInt32], bytes: [UInt8]) {
        var offsets: [UInt32] = [0], bytes: [UInt8] = []
        for v in values {
            bytes.append(contentsOf: v.utf8)
            offsets.append(UInt32(bytes.count))
        }
        return (offsets, bytes)
    }
}
