import NearbyCore

extension PostGISStore {
    /// One page of places in a sort order, read in SQL, with the total of the filter (nil when not
    /// counted) and the generation.
    struct KeysetPage {
        var generation: Int64
        var total: Int?
        /// False when a cursor's row is not in `places` (the cursor is stale).
        var cursorFound: Bool
        var places: [Place]
    }

    /// The column each sort field orders by (`004_filter_indexes.sql`); distance is measured in Swift.
    static func sortColumn(_ field: SortField) -> String? {
        switch field {
        case .title: "titlekey"
        case .created: "createdts"
        case .modified: "modifiedts"
        case .category: "category"
        case .distance, .rating, .bookmarked, .memo, .visited: nil
        }
    }

    /// Up to `limit` places passing `prefilter` (every one for 0) in `order` then id, after skipping
    /// `offset`, or, given `after`, the id of a cursor's row, those after that row in the same order.
    /// One more row than `limit` is read, to tell whether a next page exists. `order` has no distance.
    ///
    /// The statement is an index walk (`007_order_indexes.sql` has an index for each stored order):
    /// `ORDER BY` the keys and idkey, `LIMIT`, and for a cursor a keyset condition on the row's keys,
    /// read from its row by id. When every key ascends, as idkey does, the condition is one row
    /// comparison, `(key…, idkey) > (…)`, which the index reads as its range. Otherwise the keys of the
    /// first key's direction bound the range (`(key…) <= (…)` for descending keys) and the exact
    /// condition (greater on one key, equal on those before) drops the range's rows up to the cursor's.
    /// `counting`: the total of the filter, a `count(*)` over the same indexes, or, unfiltered, the
    /// maintained row count (`placecount`); else none, and the page is all that is read.
    func keysetPage(
        _ prefilter: Prefilter, order: PlaceOrder, after id: String?, limit: Int, offset: Int,
        counting: Bool
    ) throws -> KeysetPage {
        try wrap {
            let (name, sql, parameters) = keysetStatement(
                prefilter, order: order, after: id, limit: limit, offset: offset, counting: counting)
            let r = try connection.prepared(name, sql, parameters)
            var places: [Place] = []
            places.reserveCapacity(r.count)
            for row in 0..<r.count where !r.isNull(row, 3) { places.append(try place(r, row, first: 3)) }
            return KeysetPage(
                generation: r.int64(0, 0) ?? 0, total: counting ? Int(r.int64(0, 1) ?? 0) : nil,
                cursorFound: r.int64(0, 2) == 1, places: places)
        }
    }

    /// PostgreSQL's plan for `keysetPage`'s statement with the same arguments, run (EXPLAIN ANALYZE,
    /// without timings): its text, one line a node, and the rows its scans read (the rows they returned
    /// and those their filters removed).
    func explainKeysetPage(
        _ prefilter: Prefilter, order: PlaceOrder, after id: String?, limit: Int, offset: Int,
        counting: Bool
    ) throws -> (plan: [String], rowsRead: Int) {
        try wrap {
            let (_, sql, parameters) = keysetStatement(
                prefilter, order: order, after: id, limit: limit, offset: offset, counting: counting)
            let r = try connection.query("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) " + sql, parameters)
            let lines = (0..<r.count).compactMap { r.text($0, 0) }
            return (lines, Self.rowsRead(explained: lines))
        }
    }

    /// The rows the scans of an EXPLAIN ANALYZE read: each scan node's `rows=R loops=L` (R × L), plus
    /// the `Rows Removed by Filter` (or Index Recheck) under it.
    static func rowsRead(explained lines: [String]) -> Int {
        var total = 0
        var inScan = false
        for line in lines {
            if line.contains("->") || !line.hasPrefix(" ") {
                inScan = line.contains(" Scan ") || line.contains("Scan on")
                guard inScan, let a = line.range(of: "rows="), let l = line.range(of: "loops=") else { continue }
                let rows = Int(line[a.upperBound...].prefix { $0.isNumber }) ?? 0
                let loops = Int(line[l.upperBound...].prefix { $0.isNumber }) ?? 1
                total += rows * loops
            } else if inScan, let removed = line.range(of: "Rows Removed by ") {
                let rest = line[removed.upperBound...]
                if let colon = rest.firstIndex(of: ":") {
                    total += Int(rest[rest.index(after: colon)...].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
        }
        return total
    }

    /// `keysetPage`'s prepared statement: its name (one per shape of filter, order, limit, counting and
    /// cursor), text and parameters.
    private func keysetStatement(
        _ prefilter: Prefilter, order: PlaceOrder, after id: String?, limit: Int, offset: Int,
        counting: Bool
    ) -> (name: String, sql: String, parameters: [String?]) {
        typealias Key = (column: String, descending: Bool)
        let keys: [Key] =
            order.keys.map { (column: Self.sortColumn($0.field)!, descending: $0.descending) } + [("idkey", false)]
        let (clause, tag, filterParameters) = prefilter.sql()
        var parameters = filterParameters
        var name =
            "nearby_keyset" + tag + "_"
            + order.keys.map { ($0.descending ? "d" : "a") + $0.field.rawValue }.joined()
            + "_l\(limit)" + (counting ? "" : "_n")
        var cursorRow = ""
        var found = "1"
        var pageClause = clause
        if let id {
            parameters.append(id)
            name += "_k"
            cursorRow =
                "LEFT JOIN (SELECT \(keys.map(\.column).joined(separator: ", ")) FROM places WHERE id = $\(parameters.count)) c ON true"
            found = "(c.idkey IS NOT NULL)::integer"
            // The leading keys of the first key's direction: a row comparison the index reads as a range.
            let run = keys.prefix { $0.descending == keys[0].descending }
            func row(_ prefix: String, _ k: ArraySlice<Key>) -> String {
                "(" + k.map { prefix + $0.column }.joined(separator: ", ") + ")"
            }
            let condition: String
            if run.count == keys.count {
                condition = "\(row("p.", run)) > \(row("c.", run))"
            } else {
                let range = "\(row("p.", run)) \(keys[0].descending ? "<=" : ">=") \(row("c.", run))"
                let after = keys.indices.map { i in
                    let equal = keys[..<i].map { "p.\($0.column) = c.\($0.column)" }
                    return "("
                        + (equal + ["p.\(keys[i].column) \(keys[i].descending ? "<" : ">") c.\(keys[i].column)"])
                        .joined(separator: " AND ") + ")"
                }.joined(separator: " OR ")
                condition = "\(range) AND (\(after))"
            }
            pageClause = (clause.isEmpty ? " WHERE " : clause + " AND ") + condition
        }
        parameters.append(String(offset))
        let orderBy = keys.map { "p.\($0.column)" + ($0.descending ? " DESC" : "") }.joined(separator: ", ")
        let total =
            !counting
            ? "NULL::bigint"
            : clause.isEmpty
                ? "(SELECT value FROM nearby_meta WHERE key = 'placecount')" : "(SELECT count(*) FROM places\(clause))"
        let sql = """
            SELECT g.value, \(total), \(found), p.*
            FROM (SELECT value FROM nearby_meta WHERE key = 'generation') g(value) \(cursorRow)
            LEFT JOIN LATERAL (SELECT \(Self.placeColumns) FROM places p\(pageClause)
              ORDER BY \(orderBy) LIMIT \(limit > 0 ? String(limit + 1) : "ALL") OFFSET $\(parameters.count)::bigint) p ON true
            """
        return (name, sql, parameters)
    }
}
