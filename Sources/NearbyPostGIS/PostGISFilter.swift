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
/// (`004_filter_indexes.sql`). Every `PlaceFilter.Condition` is a case of the switch below: one SQL
/// cannot test exactly (a region's polygons) sets `isExact` to false, so the tests only narrow the
/// candidates and `MemoryEngine` checks the whole filter on them.
///
/// With a user's data (`personal`, `data`), the personal conditions narrow too: the places passing those
/// that need an item (`--bookmarked`, `--bookmarked-in`, `--min-rating`, `--has-memo`, `--visited`) as
/// one test on the id against the user's items, and the keyword, with `--keyword-in memo`, as the title's
/// test or the id of a place whose memo holds it. `--not-visited` narrows nothing here (`MemoryEngine`
/// drops the visited places).
struct PostGISFilter {
    private(set) var tests: [ColumnTest] = []
    private(set) var isExact = true

    init(_ f: PlaceFilter, personal: PersonalFilter = PersonalFilter(), data: PersonalData? = nil) {
        let memoKeyword = personal.keywordIn?.contains(.memo) ?? false
        let titleKeyword = personal.keywordIn?.contains(.title) ?? true
        for condition in f.conditions {
            switch condition {
            // One wanted value is an equality, which an index on (category, key) walks in the key's
            // order; `= ANY` of an array reads the index's rows unordered (PostgreSQL 15).
            case .categories:
                if f.categories!.count == 1 {
                    add("c1", "category = ?0::integer", ["\(f.categories!.first!)"])
                } else {
                    add(
                        "c", "category = ANY(?0::integer[])",
                        ["{" + f.categories!.map(String.init).joined(separator: ",") + "}"])
                }
            case .areacodes:
                if f.areacodes!.count == 1 {
                    add("a1", "areacode = ?0", [f.areacodes!.first!])
                } else {
                    add("a", "areacode = ANY(?0::text[])", [PostGISStore.arrayLiteral(f.areacodes!)])
                }
            case .sigungucodes: add("s", "sigungucode = ANY(?0::text[])", [PostGISStore.arrayLiteral(f.sigungucodes!)])
            case .accessibility:
                // `RowFilter` requires the known tags' bits; unknown tags (which the request parser
                // refuses) require nothing, here as there.
                if let m = Accessibility.mask(f.accessibility), m != 0 {
                    add("m", "(accessmask & ?0::integer) = ?0::integer", ["\(Int32(bitPattern: m))"])
                }
            case .withImage: add("i", "image <> ''", [])
            case .created: stamps("cr", "createdts", f.created!)
            case .modified: stamps("mo", "modifiedts", f.modified!)
            case .eventPeriod:
                let r = f.eventPeriod!
                add(
                    "e", "eventstartday <> 0 AND eventstartday <= ?1::integer AND eventendday >= ?0::integer",
                    ["\(r.lowerBound)", "\(r.upperBound)"])
            case .bbox:
                let b = f.bbox!
                let lon =
                    b.crossesAntimeridian
                    ? "(lon >= ?2::float8 OR lon <= ?3::float8)" : "lon BETWEEN ?2::float8 AND ?3::float8"
                add(
                    b.crossesAntimeridian ? "xa" : "x", "lat BETWEEN ?0::float8 AND ?1::float8 AND \(lon)",
                    ["\(b.minLat)", "\(b.maxLat)", "\(b.minLon)", "\(b.maxLon)"])
            case .keyword:
                guard memoKeyword else {
                    keyword(KeywordMatcher(f.keyword!))
                    break
                }
                guard let data else {
                    isExact = false
                    break
                }
                let memos = PostGISStore.arrayLiteral(personal.memoMatchIDs(data, keyword: f.keyword!))
                guard titleKeyword else {
                    add("me", Self.idIn("?0"), [memos])
                    break
                }
                keyword(KeywordMatcher(f.keyword!))
                let title = tests.removeLast()
                let n = title.values.count
                add(title.tag + "m", "(\(title.sql) OR \(Self.idIn("?\(n)")))", title.values + [memos])
            case .cat: levels("ca", ["cat1", "cat2", "cat3"], f.cat!)
            case .lcls: levels("lc", ["lclssystm1", "lclssystm2", "lclssystm3"], f.lcls!)
            case .ldong:
                add(
                    "ld",
                    "ldongregncd <> '' AND EXISTS (SELECT FROM unnest(?0::text[]) w WHERE starts_with(ldongregncd || coalesce(ldongsigngucd, ''), w))",
                    [PostGISStore.arrayLiteral(f.ldong!)])
            case .kakaoCategories:
                add(
                    "ka", "kakaocategory <> '' AND kakaocategory = ANY(?0::text[])",
                    [PostGISStore.arrayLiteral(f.kakaoCategories!)])
            case .pet: add("pe", "pet <> '' AND pet = ANY(?0::text[])", [PostGISStore.arrayLiteral(f.pet!)])
            // A stored detail is a text of at least one character (`PlaceDetail.Kind.isStored`); NULL fails.
            case .details:
                for kind in PlaceDetail.Kind.allCases where f.details.contains(kind) {
                    add("d" + kind.name.prefix(1), "\(kind.field.name.lowercased()) <> ''", [])
                }
            // Polygon membership stays in Swift (`AreaFilter`); SQL narrows to the region's box.
            case .region: isExact = false
            }
        }
        if let data, let ids = personal.passingIDs(data) {
            add("pi", Self.idIn("?0"), [PostGISStore.arrayLiteral(ids)])
        }
        // PostgreSQL tests a row's conditions of equal estimated cost in the order written: the cheap
        // comparisons first, so a row they reject never reaches the code prefixes' array scans or the
        // keyword's substring or regular expression (a page no row passes reads every row; with the
        // keyword first it ran the expression on each, several times the page's time).
        let cost = ["ca": 1, "lc": 1, "ld": 1, "k": 2, "kr": 2, "me": 2, "km": 2, "krm": 2]
        tests = tests.enumerated().sorted { a, b in
            (cost[a.element.tag] ?? 0, a.offset) < (cost[b.element.tag] ?? 0, b.offset)
        }.map(\.element)
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

    /// A level of cat or lcls (`CodeFamily`) starting with a wanted code. Text compares as bytes here
    /// and as canonically equivalent Strings in Swift, as for area codes: the same for the ASCII codes
    /// TourAPI and Kakao use.
    private mutating func levels(_ tag: String, _ columns: [String], _ wanted: Set<String>) {
        let any = columns.map {
            "(\($0) <> '' AND EXISTS (SELECT FROM unnest(?0::text[]) w WHERE starts_with(\($0), w)))"
        }
        add(tag, "(" + any.joined(separator: " OR ") + ")", [PostGISStore.arrayLiteral(wanted)])
    }

    /// A `yyyyMMddHHmmss` range on a stored stamp; a missing date is 0, which no range holds (`RowFilter`
    /// rejects it before the range).
    private mutating func stamps(_ tag: String, _ column: String, _ r: ClosedRange<Int64>) {
        add(
            tag, "\(column) <> 0 AND \(column) BETWEEN ?0::bigint AND ?1::bigint",
            ["\(r.lowerBound)", "\(r.upperBound)"])
    }

    /// The place's id is one of the text[] `parameter`: a semi-join PostgreSQL can hash or answer
    /// from the primary key, however many ids the user has.
    static func idIn(_ parameter: String) -> String { "id IN (SELECT unnest(\(parameter)::text[]))" }

    private mutating func add(_ tag: String, _ sql: String, _ values: [String]) {
        tests.append(ColumnTest(tag: tag, sql: sql, values: values))
    }
}
