import NearbyTestSupport
import Testing

@testable import NearbyCore

/// The one request parser: every parameter parses, renders back, and feeds the cursor fingerprint.
@Suite struct QueryParametersTests {
    /// A value for each parameter that makes a valid query on top of `base`, and a second one that
    /// differs (the fingerprint must tell them apart).
    static let base: [(name: String, value: String)] = [("lat", "37.5"), ("lon", "127")]
    static let values: [String: (String, String)] = [
        "lat": ("37.5", "37.6"), "lon": ("127", "127.1"), "radius": ("1000", "2000"), "knn": ("5", "6"),
        "bbox": ("126,37,128,38", "126,37,128,38.5"), "category": ("12", "39"), "areacode": ("1", "2"),
        "sigungucode": ("11", "12"), "keyword": ("경", "공원"), "created-since": ("20200101", "20210101"),
        "created-until": ("20200101", "20210101"), "modified-since": ("20200101", "20210101"),
        "modified-until": ("20200101", "20210101"), "date": ("20250505", "20250506"),
        "from": ("20250505", "20250506"), "to": ("20250505", "20250506"),
        "during": ("20250501,20250505", "20250501,20250506"),
        "with-image": ("true", "false"), "accessible": ("wheelchair", "restroom"), "sort": ("title", "-title"),
        "arrange": ("A", "C"), "limit": ("10", "20"), "page": ("1", "2"), "cursor": ("x", "y"),
        "distance": ("haversine", "geodesic"), "region": ("11110", "11140"),
        "cat": ("A05", "A05020900"), "lcls": ("FD", "FD05"), "ldong": ("11", "11110"), "kakao-category": ("CE7", "FD6"),
        "pet": ("all", "some"), "has-detail": ("barrier-free", "pet"),
        "explain": ("true", "false"), "total": ("exact", "none"), "lang": ("en", "ja"),
        "user": ("ana", "bo"), "bookmarked": ("true", "false"), "bookmarked-in": ("default", "seoul"),
        "min-rating": ("3", "4.5"), "has-memo": ("true", "false"), "visited": ("true", "false"),
        "not-visited": ("true", "false"), "keyword-in": ("title,memo", "memo"), "no-history": ("true", "false"),
    ]

    /// Areas for `region` by code: boxes, enough to check the parser's side (the real polygons are
    /// tested with the region index in NearbyKitTests).
    struct BoxAreas: AreaResolver {
        func area(_ text: String) throws(RequestError) -> AreaFilter {
            guard let n = Double(text) else { throw RequestError(parameter: "region", reason: "unknown") }
            let box = GeoBox(minLon: 126 + n / 1e6, minLat: 37, maxLon: 127, maxLat: 38)
            return AreaFilter(codes: [text], box: box) { lat, lon in box.contains(lat: lat, lon: lon) }
        }
        func union(_ areas: [AreaFilter]) -> AreaFilter {
            AreaFilter(codes: areas.flatMap(\.codes), box: areas[0].box) { lat, lon in
                areas.contains { $0.contains(lat: lat, lon: lon) }
            }
        }
    }

    @Test func everyParameterHasTestValues() {
        #expect(Set(QueryParameters.all.map(\.name)) == Set(Self.values.keys))
    }

    @Test func changingAnyParameterChangesTheFingerprintButPageCursorExplainAndTotalDoNot() throws {
        for p in QueryParameters.all where p.name != "cursor" {
            let (a, b) = Self.values[p.name]!
            func query(_ v: String) throws -> PlaceQuery {
                var pairs = Self.base.filter { $0.name != p.name } + [(p.name, v)]
                if p.name == "keyword-in" { pairs.append(("keyword", "경")) }
                if p.name == "knn" || p.name == "radius" {
                    pairs.append(p.name == "knn" ? ("radius", "5000") : ("knn", "3"))
                }
                return try QueryParameters.parse(pairs, areas: BoxAreas())
            }
            let fa = PageCursor.fingerprint(of: try query(a), generation: 1)
            let fb = PageCursor.fingerprint(of: try query(b), generation: 1)
            if p.name == "page" || p.name == "explain" || p.name == "total" || p.name == "no-history" {
                #expect(fa == fb, "\(p.name) must not change the fingerprint")
            } else {
                #expect(fa != fb, "changing \(p.name) must change the fingerprint")
            }
        }
        let q = try QueryParameters.parse(Self.base)
        #expect(PageCursor.fingerprint(of: q, generation: 1) != PageCursor.fingerprint(of: q, generation: 2))
    }

    @Test func renderIsTheInverseOfParseOnSampledQueries() throws {
        var sampler = QuerySampler(seed: 7)
        for n in 0..<2000 {
            let model: DistanceModel = n % 3 == 0 ? .geodesic : .haversine
            var q = sampler.query(model: model)
            if n % 5 == 0 { q.filter.region = try BoxAreas().area(String(11110 + n)) }
            let back = try QueryParameters.parse(QueryParameters.render(q), areas: BoxAreas())
            #expect(back == q, "\(QueryParameters.render(q))")
        }
    }

    @Test func listItemsBeginningWithACombiningMarkStillSplit() throws {
        // `,` followed by U+0304 is one Character: found by FuzzBatchLine (parse(render(q)) != q). The
        // split is at the comma scalar, so the second item is `\u{0304}2`, refused as no code.
        let error = try #require(throws: RequestError.self) {
            try QueryParameters.parse([("sigungucode", "11,\u{0304}2")])
        }
        #expect(error.parameter == "sigungucode" && error.reason.hasPrefix("\"\u{0304}2\""), "\(error)")
        let q = try QueryParameters.parse([("sigungucode", "11"), ("sigungucode", " 2,3 ")])
        #expect(q.filter.sigungucodes == ["11", "2", "3"])
        #expect(try QueryParameters.parse(QueryParameters.render(q)) == q)
    }

    @Test func listsAddUpAndOtherRepeatsAreRefused() throws {
        let q = try QueryParameters.parse([
            ("category", "12"), ("category", "39,14"), ("accessible", "wheelchair"), ("accessible", "restroom"),
        ])
        #expect(q.filter.categories == [12, 14, 39])
        #expect(q.filter.accessibility == ["wheelchair", "restroom"])
        #expect(throws: RequestError(parameter: "limit", reason: "given twice")) {
            try QueryParameters.parse([("limit", "1"), ("limit", "2")])
        }
    }

    @Test func categoryListsParseAsEveryShellWritesThem() throws {
        #expect(try QueryParameters.parse([("category", " 15 , 15 ")]).filter.categories == [15])
        #expect(throws: RequestError(parameter: "category", reason: #""12,,39" has an empty item"#)) {
            try QueryParameters.parse([("category", "12,,39")])
        }
        #expect(try QueryParameters.parse([("category", "-1")]).filter.categories == [-1])
        #expect(throws: RequestError.self) { try QueryParameters.parse([("category", "12,food")]) }
        #expect(throws: RequestError.self) { try QueryParameters.parse([("category", "")]) }
    }

    @Test func camelCaseNamesAreTheSameParameters() throws {
        let q = try QueryParameters.parse([("withImage", "true"), ("createdSince", "20200101")])
        #expect(q.filter.withImage && q.filter.created?.lowerBound == 20200101_000000)
    }

    @Test func defaultPageSizeIsTourAPIs() throws {
        #expect(try QueryParameters.parse([]).limit == QueryParameters.defaultLimit)
        #expect(QueryParameters.defaultLimit == 10)
        #expect(try QueryParameters.parse([("limit", "0")]).limit == 0)
    }

    @Test func errorsNameTheParameterAndQuoteTheValue() {
        func reason(_ pairs: [(name: String, value: String)]) -> RequestError? {
            do {
                _ = try QueryParameters.parse(pairs)
                return nil
            } catch { return error }
        }
        #expect(reason([("lat", "95"), ("lon", "0")])?.parameter == "lat")
        #expect(reason([("lat", "1")])?.parameter == "lon")
        #expect(reason([("radius", "100")])?.message(prefix: "--") == "--radius: needs a centre (lat and lon)")
        #expect(reason([("lat", "1"), ("lon", "1"), ("radius", "-1")])?.parameter == "radius")
        #expect(reason([("nope", "1")])?.parameter == "nope")
        // Found by FuzzBatchLine: an unknown name from a batch line is echoed on one line.
        #expect(reason([("sid\u{0C}gungucode", "1")])?.parameter == #"sid\u000cgungucode"#)
        #expect(reason([("sort", "title"), ("arrange", "A")])?.parameter == "arrange")
        #expect(reason([("page", "2"), ("cursor", "x")])?.parameter == "cursor")
        #expect(reason([("page", "9223372036854775807")])?.parameter == "page")
        #expect(reason([("keyword", "x"), ("limit", "a\u{1b}[31mb")])?.reason == #""a\u001b[31mb" is not an integer"#)
        let long = String(repeating: "9", count: 500) + "x"
        #expect(reason([("limit", long)])!.reason.count < 120)
    }

    /// `--areacode` is TourAPI's areaCode only; a legal-dong 시도 code (11 서울) is refused with the
    /// way to ask for it, and 31/36 (TourAPI's 경기/경남, legal-dong 울산/세종) read as TourAPI's.
    @Test func areacodeIsTourAPIsAndALegalDongCodeIsPointedToLdong() throws {
        let seoul = try QueryParameters.parse([("areacode", "1"), ("areacode", "39,31")])
        #expect(seoul.filter.areacodes == ["1", "31", "39"])
        #expect(
            throws: RequestError(
                parameter: "areacode",
                reason:
                    #""11" is not a TourAPI areaCode (1–8, 31–39); 11 is a legal-dong 시도 code (서울): use --ldong 11, or --areacode 1"#
            )
        ) {
            try QueryParameters.parse([("areacode", "1,11")])
        }
        #expect(throws: RequestError(parameter: "areacode", reason: #""99" is not a TourAPI areaCode (1–8, 31–39)"#)) {
            try QueryParameters.parse([("areacode", "99")])
        }
        for (ldong, area) in TourAreaCode.byLegalDong { #expect(TourAreaCode.isAreaCode(area), "\(ldong)") }
        #expect(Set(TourAreaCode.byLegalDong.values) == Set(TourAreaCode.names.keys))
    }

    /// Import stores 30 February (the benchmark workload's 30-day months); a filter names real days
    /// only, and a range across the end of February still finds such rows (they compare as digits).
    @Test func thirtiethOfFebruaryImportsButIsNoDayToFilterBy() throws {
        #expect(TourDate.isDay("20250230") && TourDate.isDateTime("20250230120000"))
        #expect(!TourDate.isDay("20251301") && !TourDate.isDay("20250132") && !TourDate.isDateTime("20250101240000"))
        #expect(throws: RequestError.self) { try QueryParameters.parse([("date", "2025-02-30")]) }
        let period = try QueryParameters.parse([("during", "2025-02-28,2025-03-01")]).filter.eventPeriod
        #expect(period?.contains(20_250_230) == true)
    }
}
