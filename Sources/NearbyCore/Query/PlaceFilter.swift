import Foundation

/// What a place must satisfy to be in a query's answer. Every set condition must hold (AND);
/// an unset condition (nil, false, empty) lets every place through.
///
/// Dates are compared as the numbers TourAPI writes: `created`/`modified` as `yyyyMMddHHmmss`,
/// festival periods as `yyyyMMdd`. All ranges are inclusive at both ends; a day-only upper bound
/// means the end of that day (`20250505` as an upper bound is `20250505235959`).
public struct PlaceFilter: Sendable, Hashable {
    /// Content type ids to keep; nil keeps every category.
    public var categories: Set<Int>?
    /// TourAPI area codes to keep (compared as text: "1" is not "01"); nil keeps all.
    public var areacodes: Set<String>?
    /// TourAPI sigungu codes to keep (compared as text); nil keeps all.
    public var sigungucodes: Set<String>?
    /// Text the title must contain (see `KeywordMatcher`: NFC, case-insensitive, Hangul initial consonants).
    public var keyword: String?
    /// Inclusive `yyyyMMddHHmmss` range for `created`; places without `created` never match.
    public var created: ClosedRange<Int64>?
    /// Inclusive `yyyyMMddHHmmss` range for `modified`; places without `modified` never match.
    public var modified: ClosedRange<Int64>?
    /// Inclusive `yyyyMMdd` period the festival must overlap (`d...d` = running on day d). Places
    /// without `eventStart` never match; a missing `eventEnd` means a one-day event.
    public var eventPeriod: ClosedRange<Int32>?
    /// Keep only places with an image (TourAPI `firstimage`).
    public var withImage: Bool
    /// Accessibility tags a place must all have (names from `Accessibility.tags`).
    public var accessibility: [String]
    /// Box the place must lie in.
    public var bbox: GeoBox?
    /// Administrative area the place must lie in (`--region`), by polygon membership.
    public var region: AreaFilter?
    /// TourAPI cat1..3 codes, lclsSystm1..3 codes, legal-dong codes and Kakao category groups to keep
    /// (`--cat`, `--lcls`, `--ldong`, `--kakao-category`; rules in `CodeFamily`); nil keeps all.
    public var cat: Set<String>?
    public var lcls: Set<String>?
    public var ldong: Set<String>?
    public var kakaoCategories: Set<String>?
    /// Pet-friendliness levels to keep (`--pet`: all, some, no; `PetFriendliness`); nil keeps all.
    public var pet: Set<String>?
    /// Kinds of TourAPI detail the cache must hold for the place, all of them (`--has-detail`: a
    /// barrier-free detail, detailWithTour2; a pet detail, detailPetTour2; `PlaceDetail.Kind.isStored`);
    /// empty keeps all. KorWithService2's and KorPetTourService2's lists are KorService2's with one.
    public var details: Set<PlaceDetail.Kind> = []

    public init(
        categories: Set<Int>? = nil, areacodes: Set<String>? = nil, sigungucodes: Set<String>? = nil,
        keyword: String? = nil, created: ClosedRange<Int64>? = nil, modified: ClosedRange<Int64>? = nil,
        eventPeriod: ClosedRange<Int32>? = nil, withImage: Bool = false, accessibility: [String] = [],
        bbox: GeoBox? = nil
    ) {
        self.categories = categories
        self.areacodes = areacodes
        self.sigungucodes = sigungucodes
        self.keyword = keyword
        self.created = created
        self.modified = modified
        self.eventPeriod = eventPeriod
        self.withImage = withImage
        self.accessibility = accessibility
        self.bbox = bbox
    }

    /// True when no condition is set: every place matches (lets the engine count whole subtrees).
    /// Equality with the empty filter compares every stored property, so a new one cannot be left out.
    @inline(__always)
    public var isEmpty: Bool { self == Self.unfiltered }

    /// The filter that lets every place through.
    public static let unfiltered = PlaceFilter()

    /// The conditions this filter sets, in `Condition` order.
    public var conditions: [Condition] { Condition.allCases.filter { $0.isSet(in: self) } }

    /// One case per stored property (the raw value is its name). Every layer that translates a
    /// filter (the PostGIS SQL, the request parser's tests, the brute-force reference) switches over
    /// it, so a new condition does not compile until each layer says what it does with it; the filter
    /// layer tests check that the cases and the properties stay one list.
    public enum Condition: String, CaseIterable, Sendable {
        case categories, areacodes, sigungucodes, keyword, created, modified, eventPeriod, withImage
        case accessibility, bbox, region, cat, lcls, ldong, kakaoCategories, pet, details

        /// Whether `f` sets this condition (an unset one lets every place through).
        public func isSet(in f: PlaceFilter) -> Bool {
            switch self {
            case .categories: f.categories != nil
            case .areacodes: f.areacodes != nil
            case .sigungucodes: f.sigungucodes != nil
            case .keyword: f.keyword != nil
            case .created: f.created != nil
            case .modified: f.modified != nil
            case .eventPeriod: f.eventPeriod != nil
            case .withImage: f.withImage
            case .accessibility: !f.accessibility.isEmpty
            case .bbox: f.bbox != nil
            case .region: f.region != nil
            case .cat: f.cat != nil
            case .lcls: f.lcls != nil
            case .ldong: f.ldong != nil
            case .kakaoCategories: f.kakaoCategories != nil
            case .pet: f.pet != nil
            case .details: !f.details.isEmpty
            }
        }
    }
}

/// A longitude/latitude box, inclusive. `minLon > maxLon` means the box crosses the antimeridian
/// (it covers minLon...180 and -180...maxLon).
public struct GeoBox: Sendable, Hashable {
    public var minLon: Double, minLat: Double, maxLon: Double, maxLat: Double

    public init(minLon: Double, minLat: Double, maxLon: Double, maxLat: Double) {
        self.minLon = minLon
        self.minLat = minLat
        self.maxLon = maxLon
        self.maxLat = maxLat
    }

    public var crossesAntimeridian: Bool { minLon > maxLon }

    @inlinable
    public func contains(lat: Double, lon: Double) -> Bool {
        guard lat >= minLat && lat <= maxLat else { return false }
        return minLon <= maxLon ? (lon >= minLon && lon <= maxLon) : (lon >= minLon || lon <= maxLon)
    }

    /// Parses `minLon,minLat,maxLon,maxLat` (each a `DecimalNumber`); nil when malformed or out of range.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { DecimalNumber.double($0) }
        guard parts.count == 4, let a = parts[0], let b = parts[1], let c = parts[2], let d = parts[3],
            [a, b, c, d].allSatisfy(\.isFinite),
            (-180...180).contains(a), (-180...180).contains(c),
            (-90...90).contains(b), (-90...90).contains(d), b <= d
        else { return nil }
        self.init(minLon: a, minLat: b, maxLon: c, maxLat: d)
    }
}

/// Parses the date bounds a query takes into TourAPI's numeric forms. Only days of the calendar
/// (`TourDate.isCalendarDay`): 2025-02-30 and 2025-02-29 are refused, 2024-02-29 is a day.
public enum DateBound {
    /// `yyyyMMdd`, `yyyy-MM-dd` or `yyyyMMddHHmmss` as a `yyyyMMddHHmmss` number. A day-only bound is
    /// the start of the day, or with `endOfDay` its last second (so ranges stay inclusive). Nil if
    /// malformed or not a day of the calendar.
    public static func timestamp(_ text: String, endOfDay: Bool = false) -> Int64? {
        let digits = text.filter { $0 != "-" }
        guard digits.allSatisfy(\.isASCII), let value = Int64(digits), value >= 0 else { return nil }
        if digits.count == 14, text.count == 14 {
            return TourDate.isDateTime(value) && TourDate.isCalendarDay(value / 1_000_000) ? value : nil
        }
        guard let day = self.day(text) else { return nil }
        return Int64(day) * 1_000_000 + (endOfDay ? 235959 : 0)
    }

    /// `yyyyMMdd` or `yyyy-MM-dd` as a `yyyyMMdd` number; nil if malformed or not a day of the calendar.
    public static func day(_ text: String) -> Int32? {
        let dashed =
            text.count == 10
            && text.split(separator: "-", omittingEmptySubsequences: false)
                .map(\.count) == [4, 2, 2]
        guard dashed || (text.count == 8 && !text.contains("-")) else { return nil }
        let digits = text.filter { $0 != "-" }
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int64(digits),
            TourDate.isCalendarDay(value)
        else { return nil }
        return Int32(value)
    }
}

/// A `PlaceFilter` compiled against one `PlaceTable`: checks a row with a few array loads and compares.
struct RowFilter {
    let table: PlaceTable
    let passAll: Bool
    /// A list, not a Set: queries name one to three categories, and a linear test beats hashing per row.
    private let categories: [Int32]?
    /// Codes as lists too: a query names a few, and a linear test beats hashing on a count of every row.
    private let areacodes: (codes: [UInt16], text: Set<String>)?
    private let sigungucodes: (codes: [UInt16], text: Set<String>)?
    private var keyword: (matcher: KeywordMatcher, titles: FoldedTitles)?
    private let created: ClosedRange<Int64>?
    private let modified: ClosedRange<Int64>?
    private let eventPeriod: ClosedRange<Int32>?
    private let requiredFlags: UInt32
    private let bbox: GeoBox?
    private let region: AreaFilter?
    /// The code filters (`CodeFamily`), each as a table of the dictionary codes that pass.
    private let codeTests: [CodeTest]
    /// Whether the code filters are the filter's only conditions (`codeTotal`).
    private let onlyCodes: Bool
    /// The user's data and conditions (`PersonalRows`), when the query has personal conditions.
    private let personal: PersonalRows?

    init(_ f: PlaceFilter, table: PlaceTable, personal: PersonalRows? = nil) {
        self.table = table
        self.personal = personal
        passAll = f.isEmpty && personal == nil
        guard !passAll else {
            // No condition: nothing to compile (this is every plain query's path).
            categories = nil
            areacodes = nil
            sigungucodes = nil
            keyword = nil
            created = nil
            modified = nil
            eventPeriod = nil
            requiredFlags = 0
            bbox = nil
            region = nil
            codeTests = []
            onlyCodes = false
            return
        }
        categories = f.categories.map { Array(Set($0.map { Int32(truncatingIfNeeded: $0) })).sorted() }
        areacodes = f.areacodes.map { (table.areacode.codes(of: $0).sorted(), $0) }
        sigungucodes = f.sigungucodes.map { (table.sigungucode.codes(of: $0).sorted(), $0) }
        keyword = f.keyword.map { (KeywordMatcher($0), table.foldedTitles()) }
        created = f.created
        modified = f.modified
        eventPeriod = f.eventPeriod
        requiredFlags =
            (Accessibility.mask(f.accessibility) ?? 0) | (f.withImage ? PlaceTable.imageBit : 0)
            | PlaceTable.detailFlags(f.details)
        bbox = f.bbox
        region = f.region
        codeTests = CodeFamily.allCases.compactMap { family in
            family.wanted(in: f).map { CodeTest(family, table.codeColumns[family.rawValue], wanted: $0) }
        }
        var rest = f
        for family in CodeFamily.allCases { family.clear(in: &rest) }
        onlyCodes = rest.isEmpty && personal == nil && !codeTests.isEmpty
    }

    @inline(__always)
    func callAsFunction(_ row: Int) -> Bool {
        if passAll { return true }
        let t = table
        if let categories, !categories.contains(t.category[row]) { return false }
        if requiredFlags != 0 && t.flags[row] & requiredFlags != requiredFlags { return false }
        if let created, t.created[row] == 0 || !created.contains(t.created[row]) { return false }
        if let modified, t.modified[row] == 0 || !modified.contains(t.modified[row]) { return false }
        if let eventPeriod {
            let start = t.eventStart[row]
            if start == 0 || start > eventPeriod.upperBound || t.eventEnd[row] < eventPeriod.lowerBound { return false }
        }
        if let areacodes, !Self.has(t.areacode, row, areacodes, t.places.isEmpty ? nil : t.places[row].areacode) {
            return false
        }
        if let sigungucodes,
            !Self.has(t.sigungucode, row, sigungucodes, t.places.isEmpty ? nil : t.places[row].sigungucode)
        {
            return false
        }
        if let bbox, !bbox.contains(lat: t.lat(row), lon: t.lon(row)) { return false }
        if let region, !region.contains(lat: t.lat(row), lon: t.lon(row)) { return false }
        if !codeTests.isEmpty && !passesCodes(row) { return false }
        if let personal {
            guard personal.passes(row) else { return false }
            if let keyword {
                let inTitle = personal.keywordInTitle && keyword.titles.matches(keyword.matcher, at: row)
                return inTitle || personal.memoMatches(row)
            }
            return true
        }
        if let keyword, !keyword.titles.matches(keyword.matcher, at: row) { return false }
        return true
    }

    /// Calls `take` with every row of `rows` that passes, ascending. With a code family (`--ldong`,
    /// `--cat`, …), its column and pass table are read first as raw memory (a few cycles a row), and the
    /// whole test runs only where it passes: a scan of every row (the clusters of a filter, a total)
    /// then costs little more than reading one column.
    func forEachPassing(_ rows: Range<Int>, _ take: (Int) -> Void) {
        guard !passAll, let first = codeTests.first, personal == nil else {
            for row in rows where self(row) { take(row) }
            return
        }
        first.codes.withUnsafeBufferPointer(in: rows) { codes in
            first.pass.withUnsafeBufferPointer { pass in
                for (i, code) in codes.enumerated() {
                    if Int(code) < pass.count && !pass[Int(code)] { continue }
                    if self(rows.lowerBound + i) { take(rows.lowerBound + i) }
                }
            }
        }
    }

    /// How many of `rows` pass: the area column read first as raw memory (a few cycles a row), the
    /// whole test only where it matches. The total behind a filtered page.
    func count(_ rows: Range<Int>) -> Int {
        if passAll { return rows.count }
        if let wanted = areacodes?.codes, personal == nil {
            // The keyword's matcher and titles taken out once: read per row, they cost reference counts.
            var rest = self
            rest.keyword = nil
            let keyword = self.keyword
            return table.areacode.codes.withUnsafeBufferPointer { codes in
                wanted.withUnsafeBufferPointer { wanted in
                    var c = 0
                    for row in rows {
                        let code = codes[row]
                        var hit = code == UInt16.max
                        for w in wanted where w == code { hit = true }
                        guard hit else { continue }
                        if let keyword, !keyword.titles.matches(keyword.matcher, at: row) { continue }
                        if rest(row) { c += 1 }
                    }
                    return c
                }
            }
        }
        if !codeTests.isEmpty && personal == nil {
            var c = 0
            forEachPassing(rows) { _ in c += 1 }
            return c
        }
        var c = 0
        for row in rows where self(row) { c += 1 }
        return c
    }

    /// Every row's code filters in one pass over the tests (by index: iterating would copy each test,
    /// a few reference counts a row).
    @inline(__always)
    private func passesCodes(_ row: Int) -> Bool {
        codeTests.withUnsafeBufferPointer { tests in
            for i in 0..<tests.count where !tests[i].passes(row, table) { return false }
            return true
        }
    }

    /// The number of rows that pass, from the rows per code (`PlaceTable.codeCounts`) without reading a
    /// row, when the filter is one code family alone and no row's code overflowed the dictionary; else nil.
    func codeTotal() -> Int? {
        guard onlyCodes, codeTests.count == 1 else { return nil }
        let test = codeTests[0]
        let counts = table.codeCounts(test.family)
        guard counts.overflow == 0 else { return nil }
        var total = 0
        for (code, n) in counts.counts.enumerated() where code < test.pass.count && test.pass[code] { total += n }
        return total
    }

    /// The share of rows the code filters keep, from the rows per code (each family's share multiplied:
    /// an estimate when there are several); nil without code filters.
    func codeShare() -> Double? {
        guard !codeTests.isEmpty, table.count > 0 else { return nil }
        var share = 1.0
        for test in codeTests {
            let counts = table.codeCounts(test.family)
            var kept = counts.overflow
            for (code, n) in counts.counts.enumerated() where code < test.pass.count && test.pass[code] { kept += n }
            share *= Double(kept) / Double(table.count)
        }
        return share
    }

    private static func has(
        _ column: CodeColumn, _ row: Int, _ wanted: (codes: [UInt16], text: Set<String>),
        _ text: @autoclosure () -> String?
    ) -> Bool {
        let code = column.codes[row]
        if code == UInt16.max { return text().map(wanted.text.contains) ?? false }
        return wanted.codes.contains(code)
    }
}

/// One code family's filter compiled against a table: which dictionary codes pass, by code.
struct CodeTest {
    let family: CodeFamily
    let codes: Column<UInt16>
    /// `pass[code]` for codes 0...dictionary count (0, no value, never passes); codes past it
    /// (`UInt16.max`: the dictionary overflowed) are compared as text.
    let pass: [Bool]
    let wanted: Set<String>

    init(_ family: CodeFamily, _ column: CodeColumn, wanted: Set<String>) {
        var pass = [Bool](repeating: false, count: column.dictionary.count + 1)
        for (key, code) in column.dictionary where Int(code) < pass.count && family.matches(key: key, wanted: wanted) {
            pass[Int(code)] = true
        }
        self.family = family
        codes = column.codes
        self.pass = pass
        self.wanted = wanted
    }

    @inline(__always)
    func passes(_ row: Int, _ table: PlaceTable) -> Bool {
        let code = Int(codes[row])
        if code < pass.count { return pass[code] }
        guard !table.places.isEmpty, let key = family.key(of: table.places[row]) else { return false }
        return family.matches(key: key, wanted: wanted)
    }
}
