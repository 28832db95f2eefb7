import Dispatch

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Writes an index snapshot (format: `IndexSnapshot`) from places fed one at a time, holding only
/// a small buffer per column: the columns are appended to a `SpillFile` (page cache, not the heap) and
/// read back one at a time by `write`, so collecting a million places during an import costs the
/// import no memory, and the snapshot's own peak is its largest temporary, not the sum of its columns.
///
/// `append` every place (in any order; a cache read in id order skips the id sort), then `write`
/// once: it puts the rows in the tree's Hilbert order (their id ranks become a column) and writes
/// each section with `pwrite` as soon as it is final. The titles' collation ranks, the largest part
/// of the work, are computed on a second thread while the other sections are written.
public struct SnapshotWriter {
    private let spill: SpillFile
    private var idBytes = SpillColumn<UInt8>(), idEnds = SpillColumn<UInt32>()
    /// The id as a number when it is at most 18 ASCII digits without a leading zero, else −1
    /// (`PlaceTable.idPrecedes` then decides).
    private var idNumbers = SpillColumn<Int64>()
    private var lastId: (text: String, number: Int64)?
    private var inIdOrder = true
    /// The titles' collation keys (`KoreanCollation`), built as places come in (during an import, on
    /// the feed's thread), so that writing only sorts them.
    private var titleKeys = SpillColumn<UInt8>(), titleKeyEnds = SpillColumn<Int>()
    private var keyBuilder = KoreanCollation.Builder()
    private var foldedUnits = SpillColumn<UInt16>(), foldedEnds = SpillColumn<UInt32>()
    private var lats = SpillColumn<Double>(), lons = SpillColumn<Double>()
    private var category = SpillColumn<Int32>(), created = SpillColumn<Int64>(), modified = SpillColumn<Int64>()
    private var eventStart = SpillColumn<Int32>(), eventEnd = SpillColumn<Int32>(), flags = SpillColumn<UInt32>()
    /// The packed columns' frames (`PackedColumn`), known before the layout.
    private var createdFrame = PackedColumn<Int64>.Frame(), modifiedFrame = PackedColumn<Int64>.Frame()
    private var eventStartFrame = PackedColumn<Int32>.Frame(), eventEndFrame = PackedColumn<Int32>.Frame()
    /// Coded text columns (`CodeColumn`): areacode, sigungucode, then the `CodeFamily` keys by raw
    /// value; the codes are spilled, the dictionaries held.
    private var codes: [SpillColumn<UInt16>]
    private var dictionaries: [[String: UInt16]]
    static let nodeSize = 16

    /// A writer whose columns wait in a spill file in the folder of `path` (where the snapshot goes).
    public init(spillingBeside path: String) throws(IndexSnapshot.Problem) {
        spill = try SpillFile(beside: path)
        codes = Array(repeating: SpillColumn(), count: 2 + CodeFamily.allCases.count)
        dictionaries = Array(repeating: [:], count: 2 + CodeFamily.allCases.count)
    }

    /// Places appended so far.
    public var count: Int { lats.count }

    /// Adds one place, given by the fields the snapshot holds (dates as the cache stores them;
    /// `accessibility`, the bits of its known tags, `Accessibility.bit`; `hasDetail`, whether a detail of
    /// each kind is stored for it, `PlaceDetail.Kind.isStored`; `codeKeys`, its `CodeFamily` keys by raw value).
    public mutating func append(
        id: String, title: String, lat: Double, lon: Double, category: Int, created: String?, modified: String?,
        areacode: String?, sigungucode: String?, hasImage: Bool, eventStart: String?, eventEnd: String?,
        accessibility: UInt32, hasDetail: (PlaceDetail.Kind) -> Bool, codeKeys: [String?]
    ) {
        let number = Self.number(id)
        if inIdOrder, let last = lastId {
            let ordered =
                last.number >= 0 && number >= 0
                ? last.number < number
                : PlaceTable.idPrecedes(last.text, id) || last.text == id
            if !ordered { inIdOrder = false }
        }
        lastId = (id, number)
        idNumbers.append(number, to: spill)
        idBytes.append(contentsOf: id.utf8, to: spill)
        idEnds.append(UInt32(truncatingIfNeeded: idBytes.count), to: spill)
        KoreanCollation.appendSortKey(title, to: &keyBuilder)
        titleKeys.append(contentsOf: keyBuilder.key, to: spill)
        titleKeyEnds.append(titleKeys.count, to: spill)
        keyBuilder.key.removeAll(keepingCapacity: true)
        foldedUnits.append(contentsOf: KeywordMatcher.fold(title), to: spill)
        foldedEnds.append(UInt32(truncatingIfNeeded: foldedUnits.count), to: spill)
        lats.append(lat, to: spill)
        lons.append(lon, to: spill)
        self.category.append(Int32(truncatingIfNeeded: category), to: spill)
        let created = PlaceTable.timestamp(created)
        let modified = PlaceTable.timestamp(modified)
        let start = PlaceTable.day(eventStart)
        let end = PlaceTable.day(eventEnd ?? eventStart)
        self.created.append(created, to: spill)
        createdFrame.add(created)
        self.modified.append(modified, to: spill)
        modifiedFrame.add(modified)
        self.eventStart.append(start, to: spill)
        eventStartFrame.add(start)
        self.eventEnd.append(end, to: spill)
        eventEndFrame.add(end)
        flags.append(
            accessibility | (hasImage ? PlaceTable.imageBit : 0) | PlaceTable.detailFlags(has: hasDetail), to: spill)
        appendCode(0, areacode)
        appendCode(1, sigungucode)
        for (i, key) in codeKeys.enumerated() { appendCode(2 + i, key) }
    }

    private mutating func appendCode(_ column: Int, _ value: String?) {
        codes[column].append(CodeColumn.Builder.code(of: value, in: &dictionaries[column]), to: spill)
    }

    /// Adds one place record.
    public mutating func append(_ p: Place) {
        append(
            id: p.id, title: p.title, lat: p.lat, lon: p.lon, category: p.category, created: p.created,
            modified: p.modified, areacode: p.areacode, sigungucode: p.sigungucode,
            hasImage: !(p.image?.isEmpty ?? true), eventStart: p.eventStart, eventEnd: p.eventEnd,
            accessibility: Accessibility.placeMask(p.accessibility), hasDetail: p.hasDetail,
            codeKeys: CodeFamily.allCases.map { $0.key(of: p) })
    }

    /// Writes the snapshot of the appended places for the cache state `stamp` to `path`, atomically
    /// (`IndexSnapshot.writeAtomically`). Call it once.
    public mutating func write(stamp: IndexSnapshot.Stamp, to path: String) throws {
        idBytes.flush(to: spill)
        idEnds.flush(to: spill)
        idNumbers.flush(to: spill)
        titleKeys.flush(to: spill)
        titleKeyEnds.flush(to: spill)
        foldedUnits.flush(to: spill)
        foldedEnds.flush(to: spill)
        lats.flush(to: spill)
        lons.flush(to: spill)
        category.flush(to: spill)
        created.flush(to: spill)
        modified.flush(to: spill)
        eventStart.flush(to: spill)
        eventEnd.flush(to: spill)
        flags.flush(to: spill)
        for i in codes.indices { codes[i].flush(to: spill) }
        if let failure = spill.failure {
            throw IndexSnapshot.Problem.unreadable("spill file beside \(path): \(failure)")
        }
        guard idBytes.count < Int(UInt32.max), foldedUnits.count < Int(UInt32.max) else {
            throw IndexSnapshot.Problem.damaged("more than 4 GiB of ids or titles")
        }
        let n = count
        // Id order first, so a position is an id rank and equal Hilbert keys keep id order (the bytes
        // do not depend on the order places came in); then curve order, so the tree's items are the rows.
        let byId = inIdOrder ? nil : try idOrder()
        var points = [Double](repeating: 0, count: 2 * n)
        let order: [Int32]
        do {
            var xs = try lons.values(in: spill)
            var ys = try lats.values(in: spill)
            if let byId {
                xs = byId.map { xs[Int($0)] }
                ys = byId.map { ys[Int($0)] }
            }
            order = PackedRTree.hilbertOrder(xs: xs, ys: ys)
            for row in 0..<n {
                points[2 * row] = xs[Int(order[row])]
                points[2 * row + 1] = ys[Int(order[row])]
            }
        }
        let (treeLevels, treeBoxes) = PackedRTree.shape(count: n, nodeSize: Self.nodeSize)
        // Row r holds the place appended at `source[r]`; `order[r]` is its id rank.
        let source = byId.map { b in order.map { b[Int($0)] } } ?? order
        let renumbered = dictionaries.indices.map { CodeColumn.Builder.renumber(&dictionaries[$0]) }
        let dictionaryStrings = dictionaries.map { Self.strings(Self.dictionaryValues($0)) }
        var categories = try category.values(in: spill)
        let categoryFrame = PackedColumn<Int32>.Frame(categories)
        let statistics = TableStatistics(
            category: categories, areaCodes: try codes[0].values(in: spill).lazy.map { renumbered[0][Int($0)] },
            areaValues: dictionaries[0].count)

        // The layout first (every section's length is known), then each section into place.
        let codeTags =
            [("AREA", "ARDO", "ARDB"), ("SIGU", "SGDO", "SGDB")]
            + IndexSnapshot.codeTags.map { ($0 + "C", $0 + "O", $0 + "B") }
        var tags: [(String, Int, Int)] = [
            ("TPTS", 8, 2 * n), ("TCOS", 8, n), ("TBOX", 8, treeBoxes), ("TLVL", 8, treeLevels.count),
            ("IDRK", 4, n), ("IDRW", 4, n), ("CATG", categoryFrame.width, n), ("AREA", 2, n), ("SIGU", 2, n),
            ("ARDO", 4, dictionaryStrings[0].offsets.count), ("ARDB", 1, dictionaryStrings[0].bytes.count),
            ("SGDO", 4, dictionaryStrings[1].offsets.count), ("SGDB", 1, dictionaryStrings[1].bytes.count),
            ("CRTD", createdFrame.width, n), ("MODF", modifiedFrame.width, n), ("EVST", eventStartFrame.width, n),
            ("EVEN", eventEndFrame.width, n), ("FLAG", 4, n), ("RANK", 4, n),
            ("FTUN", 2, foldedUnits.count), ("FTEN", 4, n), ("IDOF", 4, n + 1), ("IDBY", 1, idBytes.count),
        ]
        for (i, (c, o, b)) in codeTags.enumerated().dropFirst(2) {
            tags += [(c, 2, n), (o, 4, dictionaryStrings[i].offsets.count), (b, 1, dictionaryStrings[i].bytes.count)]
        }
        tags += SortOrders.sections(count: n, statistics: statistics)
        tags += CategoryOrder.fields.map { (CategoryOrder.tag(of: $0), 4, n) }
        // The title postings are built before the layout, which needs their length (rows in row order).
        var postings: (keys: [UInt32], starts: [UInt32], rows: [UInt32])
        do {
            let units = try foldedUnits.values(in: spill)
            let ends = try foldedEnds.values(in: spill)
            postings = TitlePostings.build(count: n) { row, add in
                let i = Int(source[row])
                for u in units[(i == 0 ? 0 : Int(ends[i - 1]))..<Int(ends[i])] {
                    TitlePostings.keys(ofTitleUnit: u, add)
                }
            }
        }
        tags += [
            (TitlePostings.keysTag, 4, postings.keys.count), (TitlePostings.startsTag, 4, postings.starts.count),
            (TitlePostings.rowsTag, 4, postings.rows.count),
        ]
        tags.append((IndexSnapshot.sumsTag, 8, 0))  // its count once the body's length is known
        let tableEnd = IndexSnapshot.headerSize + IndexSnapshot.entrySize * tags.count
        var offsets: [String: Int] = [:]
        var end = IndexSnapshot.align(tableEnd + 8)
        for (tag, size, count) in tags.dropLast() {
            offsets[tag] = end
            end = IndexSnapshot.align(
                end + size * count + (IndexSnapshot.packedTags.contains(tag) ? IndexSnapshot.packedExtra : 0))
        }
        let shift = IndexSnapshot.blockShift
        let sumsOffset = end
        let blocks = (sumsOffset + (1 << shift) - 1) >> shift
        offsets[IndexSnapshot.sumsTag] = sumsOffset
        tags[tags.count - 1].2 = blocks
        let fileLength = sumsOffset + 8 * blocks

        try IndexSnapshot.writeAtomically(to: path) { fd in
            func failed() -> IndexSnapshot.Problem { .unreadable("\(path): \(String(cString: strerror(errno)))") }
            guard ftruncate(fd, off_t(fileLength)) == 0 else { throw failed() }
            // Each row's category, for the date orders split by category.
            let rowCategories = PackedColumn(source.map { categories[Int($0)] })
            // Peak memory: before each large section, what the sections before it freed goes back.
            func put<T: BitwiseCopyable>(_ tag: String, _ values: [T]) throws {
                if values.count * MemoryLayout<T>.stride >= 1 << 20 { FreedMemory.giveBack() }
                guard values.withUnsafeBytes({ writeAll(fd, $0, at: offsets[tag]!) }) else { throw failed() }
            }
            func put<T: BitwiseCopyable>(_ tag: String, _ values: Column<T>) throws {
                guard values.withUnsafeBufferPointer({ writeAll(fd, UnsafeRawBufferPointer($0), at: offsets[tag]!) })
                else { throw failed() }
            }
            func inRowOrder<T>(_ values: [T]) -> [T] { source.map { values[Int($0)] } }
            /// A `PackedColumn`: its base, then its codes and padding.
            func putPacked<T>(_ tag: String, _ frame: PackedColumn<T>.Frame, _ values: [T]) throws {
                try put(tag, [frame.base.littleEndian])
                guard frame.encode(values).withUnsafeBytes({ writeAll(fd, $0, at: offsets[tag]! + 8) }) else {
                    throw failed()
                }
            }
            /// The stored order of a sort key's column (`SortOrders`), ties by id rank.
            func putOrder<T: BinaryInteger>(_ field: SortField, _ values: [T]) throws {
                try put(
                    SortOrders.tag(of: field),
                    SortOrders.rows(count: n, key: { Int64(values[$0]) }, idRank: { UInt32(order[$0]) }))
            }
            /// A sort key's packed column, then its stored order (and, for a date, the order split by category).
            func putSorted<T>(_ tag: String, _ field: SortField, _ frame: PackedColumn<T>.Frame, _ values: [T]) throws {
                try putPacked(tag, frame, values)
                let rows = SortOrders.rows(count: n, key: { Int64(values[$0]) }, idRank: { UInt32(order[$0]) })
                try put(SortOrders.tag(of: field), rows)
                if CategoryOrder.fields.contains(field) {
                    try put(
                        CategoryOrder.tag(of: field),
                        CategoryOrder.rows(order: Column(rows), category: rowCategories, statistics: statistics))
                }
            }
            // The titles' ranks on a second thread (sorting their keys is most of the work), the other
            // sections meanwhile, each read back from the spill file, put in row order, written and freed.
            let ranks = BackgroundValue { [spill = spill, titleKeys = titleKeys, titleKeyEnds = titleKeyEnds] in
                try Self.titleRanks(spill: spill, keys: titleKeys, ends: titleKeyEnds, source: source)
            }
            do {
                let tree = PackedRTree(orderedPoints: points, items: nil, ranks: nil, nodeSize: Self.nodeSize)
                precondition(
                    tree.boxes.count == treeBoxes && tree.levels.elementsEqual(treeLevels),
                    "PackedRTree.shape disagrees with the tree")
                try put("TPTS", points)
                try put("TCOS", (0..<n).map { Haversine.cosLat(points[2 * $0 + 1]) })
                points = []
                try put("TBOX", tree.boxes)
                try put("TLVL", tree.levels)
            }
            try put("IDRK", order.map { UInt32($0) })
            var rowsByIdRank = [UInt32](repeating: 0, count: n)
            for (row, k) in order.enumerated() { rowsByIdRank[Int(k)] = UInt32(row) }
            try put("IDRW", rowsByIdRank)
            rowsByIdRank = []
            try putSorted("CATG", .category, categoryFrame, inRowOrder(categories))
            categories = []
            for (i, (c, o, b)) in codeTags.enumerated() {
                try put(c, inRowOrder(try codes[i].values(in: spill)).map { renumbered[i][Int($0)] })
                try put(o, dictionaryStrings[i].offsets)
                try put(b, dictionaryStrings[i].bytes)
            }
            try putSorted("CRTD", .created, createdFrame, inRowOrder(try created.values(in: spill)))
            try putSorted("MODF", .modified, modifiedFrame, inRowOrder(try modified.values(in: spill)))
            try putPacked("EVST", eventStartFrame, inRowOrder(try eventStart.values(in: spill)))
            try putPacked("EVEN", eventEndFrame, inRowOrder(try eventEnd.values(in: spill)))
            try put("FLAG", inRowOrder(try flags.values(in: spill)))
            /// A text column (value i is `units[ends[i − 1] ..< ends[i]]`, from 0 for i = 0) in row order:
            /// the units go out through a small buffer, so only the column read back is held.
            func putText<T: BitwiseCopyable>(
                _ unitsTag: String, _ endsTag: String, _ units: [T], _ ends: [UInt32], leadingZero: Bool
            ) throws {
                var outEnds = [UInt32]()
                var total = 0
                var offset = offsets[unitsTag]!
                outEnds.reserveCapacity(n + 1)
                if leadingZero { outEnds.append(0) }
                var buffer = [T]()
                buffer.reserveCapacity(Self.textBuffer)
                func flush() throws {
                    guard buffer.withUnsafeBytes({ writeAll(fd, $0, at: offset) }) else { throw failed() }
                    offset += buffer.count * MemoryLayout<T>.stride
                    buffer.removeAll(keepingCapacity: true)
                }
                for i in source.map(Int.init) {
                    let start = i == 0 ? 0 : Int(ends[i - 1])
                    buffer.append(contentsOf: units[start..<Int(ends[i])])
                    total += Int(ends[i]) - start
                    outEnds.append(UInt32(total))
                    if buffer.count >= Self.textBuffer { try flush() }
                }
                try flush()
                try put(endsTag, outEnds)
            }
            try putText(
                "FTUN", "FTEN", try foldedUnits.values(in: spill), try foldedEnds.values(in: spill), leadingZero: false)
            try putText("IDBY", "IDOF", try idBytes.values(in: spill), try idEnds.values(in: spill), leadingZero: true)
            try put(TitlePostings.keysTag, postings.keys)
            try put(TitlePostings.startsTag, postings.starts)
            try put(TitlePostings.rowsTag, postings.rows)
            postings = ([], [], [])
            try put(TableStatistics.categoryTag, statistics.categorySection)
            try put(TableStatistics.areaTag, statistics.areaSection)
            FreedMemory.giveBack()
            let titleRanks = try ranks.value()
            try put("RANK", titleRanks)
            try putOrder(.title, titleRanks)
            FreedMemory.giveBack()

            // The block checksums read the body back (from the page cache), as a reader checks it.
            guard let sums = IndexSnapshot.blockSums(of: fd, bodyStart: tableEnd + 8, end: sumsOffset, shift: shift)
            else { throw failed() }
            try put(IndexSnapshot.sumsTag, sums)
            let body = sums.withUnsafeBytes { SnapshotHash.of($0) }
            var header = [UInt8](repeating: 0, count: tableEnd + 8)
            func set<T: FixedWidthInteger>(_ v: T, at o: Int) {
                withUnsafeBytes(of: v.littleEndian) { for (k, b) in $0.enumerated() { header[o + k] = b } }
            }
            header.replaceSubrange(0..<8, with: IndexSnapshot.magic)
            set(IndexSnapshot.formatVersion, at: 8)
            set(UInt32(tags.count), at: 12)
            set(stamp.identity, at: 16)
            set(stamp.generation, at: 24)
            set(UInt64(n), at: 32)
            set(UInt64(fileLength), at: 40)
            set(UInt32(Self.nodeSize), at: 48)
            set(UInt32(1 << shift), at: 52)
            set(body, at: 56)
            for (i, (tag, size, count)) in tags.enumerated() {
                let e = IndexSnapshot.headerSize + IndexSnapshot.entrySize * i
                header.replaceSubrange(e..<e + 4, with: Array(tag.utf8))
                set(UInt32(size), at: e + 4)
                set(UInt64(offsets[tag]!), at: e + 8)
                set(UInt64(count), at: e + 16)
            }
            set(
                header.withUnsafeBytes { SnapshotHash.of(UnsafeRawBufferPointer(rebasing: $0[0..<tableEnd])) },
                at: tableEnd)
            guard header.withUnsafeBytes({ writeAll(fd, $0, at: 0) }) else { throw failed() }
        }
    }

    /// The titles' Korean-collation ranks (`KoreanCollation.ranks`) by row (title `source[r]` for row r).
    private static func titleRanks(
        spill: SpillFile, keys: SpillColumn<UInt8>, ends: SpillColumn<Int>, source: [Int32]
    ) throws(IndexSnapshot.Problem) -> [UInt32] {
        let r = KoreanCollation.SortKeys(keys: try keys.values(in: spill), ends: try ends.values(in: spill)).ranks()
        return source.map { r[Int($0)] }
    }

    /// Append positions in id order (`PlaceTable.idPrecedes`).
    private func idOrder() throws(IndexSnapshot.Problem) -> [Int32] {
        let numbers = try idNumbers.values(in: spill)
        let bytes = try idBytes.values(in: spill)
        let ends = try idEnds.values(in: spill)
        func id(_ i: Int) -> String {
            String(decoding: bytes[(i == 0 ? 0 : Int(ends[i - 1]))..<Int(ends[i])], as: UTF8.self)
        }
        return (0..<Int32(count)).sorted { i, j in
            let a = numbers[Int(i)]
            let b = numbers[Int(j)]
            return a >= 0 && b >= 0 ? a < b : PlaceTable.idPrecedes(id(Int(i)), id(Int(j)))
        }
    }

    /// Units of a text section written at once (`putText`).
    private static let textBuffer = 1 << 16

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
        var offsets: [UInt32] = [0]
        var bytes: [UInt8] = []
        for v in values {
            bytes.append(contentsOf: v.utf8)
            offsets.append(UInt32(bytes.count))
        }
        return (offsets, bytes)
    }
}

/// A value computed on another thread (`DispatchQueue.global()`), waited for by `value()`.
private final class BackgroundValue<T>: @unchecked Sendable {
    // @unchecked: `result` is written by the task before it leaves `group`, read after `wait`.
    private let group = DispatchGroup()
    private var result: Result<T, any Error>?

    init(_ work: @escaping @Sendable () throws -> T) {
        DispatchQueue.global().async(group: group) { [self] in result = Result(catching: work) }
    }

    func value() throws -> T {
        group.wait()
        return try result!.get()
    }
}
