import NearbyCore

/// Rebuilds `places_rtree` from `places` in one pass, writing a packed tree straight into the R*Tree's
/// shadow tables instead of inserting row by row.
///
/// Why: SQLite's R*Tree has no bulk load, and each insert rewrites a leaf and its ancestors as blobs,
/// about 20 µs a row: 1M places would take 20 s. Packing costs a sort and one write per node (about
/// 1.5 s for 1M), and the packed tree is also better for queries (full nodes, little overlap).
///
/// How (the layout documented at the top of SQLite's ext/rtree/rtree.c): the tree is stored in
/// `places_rtree_node(nodeno, data)`, `places_rtree_rowid(rowid, nodeno)` (leaf holding each row) and
/// `places_rtree_parent(nodeno, parentnode)`. Node 1 is the root. Each node blob is exactly the size of the
/// root blob SQLite created: a 2-byte big-endian tree depth (meaningful in the root only), a 2-byte cell
/// count, then cells of an 8-byte big-endian rowid (or child node number) and four big-endian Float32
/// coordinates minLon, maxLon, minLat, maxLat. Cells are sorted along a Hilbert curve of the
/// point, grouped `fanout` at a time into leaves, and the leaves likewise into parents up to the root,
/// as in flatbush. Later writes go through SQLite's ordinary R*Tree code on top of the packed tree.
/// `SELECT rtreecheck('places_rtree')` validates the result (the tests run it).
enum RTreeBulkLoader {
    static let createSQL = "CREATE VIRTUAL TABLE places_rtree USING rtree(rowid, minLon, maxLon, minLat, maxLat)"

    /// One cell: a rowid (leaf) or node number (inner node) and its box.
    private struct Cell {
        var id: Int64
        var minLon, maxLon, minLat, maxLat: Float
    }

    /// Replaces the R*Tree's contents with a packed tree of every row of `places`. Run inside the
    /// write transaction, so it commits or rolls back with the rows.
    static func rebuild(_ db: SQLiteConnection) throws(SQLiteError) {
        try db.execute("DROP TABLE places_rtree; \(createSQL)")
        let nodeSize = Int(try db.integer("SELECT length(data) FROM places_rtree_node WHERE nodeno = 1"))
        let fanout = (nodeSize - 4) / 24
        var level = try leafCells(db)
        guard !level.isEmpty else { return }

        let writeNode = try db.prepare("INSERT OR REPLACE INTO places_rtree_node(nodeno, data) VALUES(?1, ?2)")
        let writeParent = try db.prepare("INSERT INTO places_rtree_parent(nodeno, parentnode) VALUES(?1, ?2)")
        var leafOfRow: [(rowid: Int64, node: Int64)] = []
        leafOfRow.reserveCapacity(level.count)
        var blob = [UInt8](repeating: 0, count: nodeSize)
        var nextNode: Int64 = 2
        var depth = 0
        while true {
            let isRoot = level.count <= fanout
            var parents: [Cell] = []
            for start in stride(from: 0, to: level.count, by: fanout) {
                let group = level[start..<min(start + fanout, level.count)]
                let node: Int64 = isRoot ? 1 : nextNode
                nextNode += 1
                encode(group, depth: isRoot ? depth : 0, into: &blob)
                try writeNode.bind(1, node)
                try writeNode.bind(2, blob)
                try writeNode.step()
                writeNode.reset()
                for cell in group {
                    if depth == 0 {
                        leafOfRow.append((cell.id, node))
                    } else {
                        try writeParent.bind(1, cell.id)
                        try writeParent.bind(2, node)
                        try writeParent.step()
                        writeParent.reset()
                    }
                }
                parents.append(bounds(of: group, id: node))
            }
            if isRoot { break }
            level = parents
            depth += 1
        }
        // In rowid order, so the b-tree is appended to rather than split at random.
        leafOfRow.sort { $0.rowid < $1.rowid }
        let writeRow = try db.prepare("INSERT INTO places_rtree_rowid(rowid, nodeno) VALUES(?1, ?2)")
        for (rowid, node) in leafOfRow { try writeRow.run(rowid, node) }
    }

    /// Every place's box, sorted along the Hilbert curve of its point.
    private static func leafCells(_ db: SQLiteConnection) throws(SQLiteError) -> [Cell] {
        let rows = try db.prepare("SELECT rowid, lon, lat FROM places")
        var keyed: [(key: UInt32, cell: Cell)] = []
        while try rows.step() {
            let lon = rows.double(1)
            let lat = rows.double(2)
            let (minLon, maxLon) = PlaceCacheWriter.floatBounds(lon)
            let (minLat, maxLat) = PlaceCacheWriter.floatBounds(lat)
            let cell = Cell(
                id: rows.int64(0), minLon: Float(minLon), maxLon: Float(maxLon),
                minLat: Float(minLat), maxLat: Float(maxLat))
            keyed.append((curveKey(lon: lon, lat: lat), cell))
        }
        keyed.sort { $0.key < $1.key }
        return keyed.map(\.cell)
    }

    /// The point's position on the Hilbert curve `PackedRTree` packs with, over a 65,536² lon/lat grid.
    static func curveKey(lon: Double, lat: Double) -> UInt32 {
        func cell(_ v: Double) -> UInt32 { UInt32(max(0, min(65535, v * 65535))) }
        return hilbertIndex(x: cell((lon + 180) / 360), y: cell((lat + 90) / 180))
    }

    private static func bounds(of cells: ArraySlice<Cell>, id: Int64) -> Cell {
        var box = Cell(id: id, minLon: .infinity, maxLon: -.infinity, minLat: .infinity, maxLat: -.infinity)
        for c in cells {
            box.minLon = min(box.minLon, c.minLon)
            box.maxLon = max(box.maxLon, c.maxLon)
            box.minLat = min(box.minLat, c.minLat)
            box.maxLat = max(box.maxLat, c.maxLat)
        }
        return box
    }

    /// Writes a node blob: depth, count, cells, zero padding (the blob keeps its full size).
    private static func encode(_ cells: ArraySlice<Cell>, depth: Int, into blob: inout [UInt8]) {
        for i in blob.indices { blob[i] = 0 }
        func put<T: FixedWidthInteger>(_ value: T, at offset: Int) {
            withUnsafeBytes(of: value.bigEndian) { bytes in
                for (i, b) in bytes.enumerated() { blob[offset + i] = b }
            }
        }
        put(UInt16(depth), at: 0)
        put(UInt16(cells.count), at: 2)
        var offset = 4
        for c in cells {
            put(c.id, at: offset)
            put(c.minLon.bitPattern, at: offset + 8)
            put(c.maxLon.bitPattern, at: offset + 12)
            put(c.minLat.bitPattern, at: offset + 16)
            put(c.maxLat.bitPattern, at: offset + 20)
            offset += 24
        }
    }
}
