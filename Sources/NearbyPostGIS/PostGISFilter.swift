import NearbyCore

/// One test of a row's columns in SQL: `sql` with ?0, ?1… for its `values`; `tag` names it in the
/// prepared statement's name (one statement per set of tests).
struct ColumnTest {
    var tag: String
    var sql: String
    var values: [String]
}

/// The conditions of a `PlaceFilter` as SQL tests of `places`' columns, each passing exactly the rows
/// `RowFilter` passes for it: they compare the keys `MemoryEngine` compares, stored by the writer
/// (`004_filter_indexes.sql`). Keyword, region, code families and pet are not tests here: when one is
/// set, `isExact` is false and the tests only narrow the candidates `MemoryEngine` then checks.
struct PostGISFilter {
    private(set) var tests: [ColumnTest] = []
    private(set) var isExact = true

    init(_ f: PlaceFilter) {
        if let c = f.categories { add("c", "category = ANY(?0::integer[])", ["{" + c.map(String.init).joined(separator: ",") + "}"]) }
        if let a = f.areacodes { add("a", "areacode = ANY(?0::text[])", [PostGISStore.arrayLiteral(a)]) }
        if let s = f.sigungucodes { add("s", "sigungucode = ANY(?0::text[])", [PostGISStore.arrayLiteral(s)]) }
        if let m = Accessibility.mask(f.accessibility), m != 0 {
            add("m", "(accessmask & ?0::integer) = ?0::integer", ["\(Int32(bitPattern: m))"])
        }
        if f.withImage { add("i", "image <> ''", []) }
        // A missing date is 0, which no range holds (RowFilter rejects it before the range).
        if let r = f.created { add("cr", "createdts <> 0 AND createdts BETWEEN ?0::bigint AND ?1::bigint", ["\(r.lowerBound)", "\(r.upperBound)"]) }
        if let r = f.modified { add("mo", "modifiedts <> 0 AND modifiedts BETWEEN ?0::bigint AND ?1::bigint", ["\(r.lowerBound)", "\(r.upperBound)"]) }
        if let r = f.eventPeriod {
            add("e", "eventstartday <> 0 AND eventstartday <= ?1::integer AND eventendday >= ?0::integer", ["\(r.lowerBound)", "\(r.upperBound)"])
        }
        if let b = f.bbox {
            let lon = b.crossesAntimeridian ? "(lon >= ?2::float8 OR lon <= ?3::float8)" : "lon BETWEEN ?2::float8 AND ?3::float8"
            add(b.crossesAntimeridian ? "xa" : "x", "lat BETWEEN ?0::float8 AND ?1::float8 AND \(lon)",
                ["\(b.minLat)", "\(b.maxLat)", "\(b.minLon)", "\(b.maxLon)"])
        }
        if f.keyword != nil || f.region != nil || f.pet != nil || CodeFamily.allCases.contains(where: { $0.wanted(in: f) != nil }) {
            isExact = false
        }
    }

    private mutating func add(_ tag: String, _ sql: String, _ values: [String]) {
        tests.append(ColumnTest(tag: tag, sql: sql, values: values))
    }
}
