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
/// (`004_filter_indexes.sql`). A region is not a test here: then `isExact` is false and the tests only
/// narrow the candidates `MemoryEngine` then checks.
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
        if let k = f.keyword { keyword(KeywordMatcher(k)) }
        codes(f)
        // Polygon membership stays in Swift (`AreaFilter`); SQL narrows to the region's box.
        if f.region != nil { isExact = false }
    }

    /// The folded title holds the folded keyword; a lone initial consonant also matches the syllables
    /// that begin with it (`KeywordMatcher`'s rule), as a bracket of the jamo and their range.
    private mutating func keyword(_ k: KeywordMatcher) {
        let scalars = String(decoding: k.units, as: UTF16.self).unicodeScalars
        guard scalars.contains(where: { Hangul.initialIndex(ofJamo: $0.value) != nil }) else {
            return add("k", "strpos(titlefold, ?0) > 0", [String(decoding: k.units, as: UTF16.self)])
        }
        var pattern = ""
        for s in scalars {
            if let l = Hangul.initialIndex(ofJamo: s.value) {
                let first = Hangul.syllableBase + l * Hangul.syllablesPerInitial
                pattern += "[\(s)\(Unicode.Scalar(first)!)-\(Unicode.Scalar(first + Hangul.syllablesPerInitial - 1)!)]"
            } else if s.isASCII && !(s.properties.isAlphabetic || ("0"..."9").contains(s)) {
                pattern += "\\" + String(s)
            } else {
                pattern += String(s)
            }
        }
        add("kr", "titlefold ~ ?0", [pattern])
    }

    /// The code families (`CodeFamily`): a level of cat or lcls, or the legal-dong code, starting with
    /// a wanted code; Kakao's group and the pet level equal to one. Text compares as bytes here and
    /// as canonically equivalent Strings in Swift, as for area codes: the same for the ASCII codes
    /// TourAPI and Kakao use.
    private mutating func codes(_ f: PlaceFilter) {
        func levels(_ tag: String, _ columns: [String], _ wanted: Set<String>) {
            let any = columns.map { "(\($0) <> '' AND EXISTS (SELECT FROM unnest(?0::text[]) w WHERE starts_with(\($0), w)))" }
            add(tag, "(" + any.joined(separator: " OR ") + ")", [PostGISStore.arrayLiteral(wanted)])
        }
        if let w = f.cat { levels("ca", ["cat1", "cat2", "cat3"], w) }
        if let w = f.lcls { levels("lc", ["lclssystm1", "lclssystm2", "lclssystm3"], w) }
        if let w = f.ldong {
            add("ld", "ldongregncd <> '' AND EXISTS (SELECT FROM unnest(?0::text[]) w WHERE starts_with(ldongregncd || coalesce(ldongsigngucd, ''), w))",
                [PostGISStore.arrayLiteral(w)])
        }
        if let w = f.kakaoCategories { add("ka", "kakaocategory <> '' AND kakaocategory = ANY(?0::text[])", [PostGISStore.arrayLiteral(w)]) }
        if let w = f.pet { add("pe", "pet <> '' AND pet = ANY(?0::text[])", [PostGISStore.arrayLiteral(w)]) }
    }

    private mutating func add(_ tag: String, _ sql: String, _ values: [String]) {
        tests.append(ColumnTest(tag: tag, sql: sql, values: values))
    }
}
