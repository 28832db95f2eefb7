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
        case .distance: nil
        }
    }

    /// Up to `limit` places passing `prefilter` (every one for 0) in `order` then id, after skipping
    /// `offset`, or, given `after`, the id of a cursor's row, those after that row in the same order:
    /// a keyset condition on the row's keys (greater on one key, equal on every key before it), plus
    /// the first key's bound alone, which an index on the first key reads as its range. So a page
    /// reads its own rows, from an index or a top-N sort of the filtered rows, not all of them. One
    /// more row than `limit` is read, to tell whether a next page exists. `order` has no distance.
    /// `counting`: the total is a `count(*)` of the filter, else left out (the page alone is read).
    func keysetPage(
        _ prefilter: Prefilter, order: PlaceOrder, after id: String?, limit: Int, offset: Int,
        counting: Bool
    ) throws -> KeysetPage {
        try wrap {
            let keys =
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
                let after = keys.indices.map { i in
                    let equal = keys[..<i].map { "p.\($0.column) = c.\($0.column)" }
                    return "("
                        + (equal + ["p.\(keys[i].column) \(keys[i].descending ? "<" : ">") c.\(keys[i].column)"])
                        .joined(separator: " AND ") + ")"
                }.joined(separator: " OR ")
                let range = "p.\(keys[0].column) \(keys[0].descending ? "<=" : ">=") c.\(keys[0].column)"
                pageClause = (clause.isEmpty ? " WHERE " : clause + " AND ") + "\(range) AND (\(after))"
            }
            parameters.append(String(offset))
            let orderBy = keys.map { "p.\($0.column)" + ($0.descending ? " DESC" : "") }.joined(separator: ", ")
            let r = try connection.prepared(
                name,
                """
                SELECT g.value, \(counting ? "(SELECT count(*) FROM places\(clause))" : "NULL::bigint"), \(found), p.*
                FROM (SELECT value FROM nearby_meta WHERE key = 'generation') g(value) \(cursorRow)
                LEFT JOIN LATERAL (SELECT \(Self.placeColumns) FROM places p\(pageClause)
                  ORDER BY \(orderBy) LIMIT \(limit > 0 ? String(limit + 1) : "ALL") OFFSET $\(parameters.count)::bigint) p ON true
                """, parameters)
            var places: [Place] = []
            places.reserveCapacity(r.count)
            for row in 0..<r.count where !r.isNull(row, 3) { places.append(try place(r, row, first: 3)) }
            return KeysetPage(
                generation: r.int64(0, 0) ?? 0, total: counting ? Int(r.int64(0, 1) ?? 0) : nil,
                cursorFound: r.int64(0, 2) == 1, places: places)
        }
    }
}
