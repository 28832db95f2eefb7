import Testing

@testable import NearbyCore

/// The one number grammar (`DecimalNumber`), calendar days, and lists without holes, as the request
/// parser and batch lines read them.
@Suite struct StrictGrammarTests {
    @Test func decimalNumbers() {
        for (text, value) in [
            ("37", 37.0), ("-37.5", -37.5), ("+37.5", 37.5), ("37.", 37), (".5", 0.5), ("3.75e1", 37.5),
            ("375E-1", 37.5), ("1e+2", 100), (" 37.5\t", 37.5), ("0", 0), ("-0", 0), ("00012", 12),
        ] {
            #expect(DecimalNumber.double(text) == value, "\(text)")
        }
        for text in [
            "", " ", "+", "-", ".", "e5", "1e", "1e+", "0x25", "0X25", "0x1p5", "nan", "NaN", "inf", "-inf", "infinity",
            "37\u{0}abc", "37\u{0}", "\u{0}37", "37abc", "abc", "37.5.1", "1,5", "1 5", "\u{B}37", "37\n", "1e999",
            "--1",
            "+-1", "١٢", "３７", "1_000",
        ] {
            #expect(DecimalNumber.double(text) == nil, "\(text.debugDescription)")
        }
        #expect(
            DecimalNumber.integer("42") == 42 && DecimalNumber.integer(" -7 ") == -7 && DecimalNumber.integer("+7") == 7
        )
        for text in ["", "0x10", "1.0", "1e3", "9223372036854775808", "7\u{0}", "٧", "+", " "] {
            #expect(DecimalNumber.integer(text) == nil, "\(text.debugDescription)")
        }
    }

    func reason(_ pairs: [(String, String)]) -> RequestError? {
        do {
            _ = try QueryParameters.parse(pairs.map { (name: $0.0, value: $0.1) })
            return nil
        } catch { return error }
    }

    @Test func theRequestParserUsesTheGrammar() {
        for (name, value) in [
            ("lat", "37\u{0}abc"), ("lat", "0x25"), ("lon", "0x7f"), ("radius", "0x7d0"), ("radius", "2000\u{0}"),
            ("lat", "nan"), ("lon", "inf"), ("knn", "0x5"), ("limit", "0x10"), ("page", "1\u{0}"),
        ] {
            var pairs = [("lat", "37.5"), ("lon", "127"), ("radius", "100")].filter { $0.0 != name }
            pairs.append((name, value))
            #expect(reason(pairs)?.parameter == name, "\(name)=\(value.debugDescription)")
        }
        #expect(GeoBox(parsing: "0x7e,37,128,38") == nil)
        #expect(GeoBox(parsing: "126,37,128,38\u{0}x") == nil)
        #expect(GeoBox(parsing: " 126 , 37 ,128,38 ") == GeoBox(minLon: 126, minLat: 37, maxLon: 128, maxLat: 38))
    }

    @Test func batchLinesUseTheGrammar() throws {
        let tsv = try BatchLine.tsv(Array("1\t0x25\t127\t100".utf8), header: ["qid", "lat", "lon", "radius"])
        #expect(reason(tsv.pairs.map { ($0.name, $0.value) })?.parameter == "lat")
        let json = try BatchLine.json(Array(#"{"lat":"37\u0000x","lon":127,"radius":100}"#.utf8))
        #expect(reason(json.pairs.map { ($0.name, $0.value) })?.parameter == "lat")
    }

    @Test func calendarDays() {
        for day in ["20240229", "20000229", "2024-02-29", "20251231", "20250131", "20250430"] {
            #expect(DateBound.day(day) != nil, "\(day)")
        }
        for day in [
            "20250229", "19000229", "2025-02-30", "20250431", "20250631", "20250931", "20251131", "20250230",
            "20250001", "20250100",
        ] {
            #expect(DateBound.day(day) == nil, "\(day)")
        }
        #expect(DateBound.timestamp("20240229235959") == 20_240_229_235_959)
        #expect(DateBound.timestamp("20250229000000") == nil)
        #expect(DateBound.timestamp("20250230") == nil)
        #expect(
            TourDate.isCalendarDay(20_240_229) && !TourDate.isCalendarDay(20_250_229)
                && !TourDate.isCalendarDay(21_000_229))
        for (name, value) in [
            ("date", "2025-02-30"), ("from", "20250229"), ("to", "20250431"), ("during", "20250101,20250230"),
            ("created-since", "20250230"), ("modified-until", "20250230120000"),
        ] {
            #expect(reason([(name, value)])?.parameter == name, "\(name)=\(value)")
        }
    }

    @Test func listsHaveNoEmptyItemsAndCodesTheirShape() throws {
        for (name, value) in [
            ("category", "12,,39"), ("category", "12,"), ("category", ","), ("areacode", "1, ,2"),
            ("sigungucode", "1,,2"),
            ("cat", "A01,"), ("lcls", ",FD"), ("ldong", "11,,11110"), ("kakao-category", "FD6,,CE7"),
            ("pet", "all,,some"), ("accessible", "wheelchair,,"), ("region", "11110,,11140"),
            ("sigungucode", "abc"), ("sigungucode", "1a"), ("kakao-category", "ZZZ"), ("kakao-category", "FD"),
            ("kakao-category", "FD66"), ("kakao-category", "F6D"),
        ] {
            #expect(reason([(name, value)])?.parameter == name, "\(name)=\(value)")
        }
        #expect(
            try QueryParameters.parse([("kakao-category", "fd6, CE7"), ("sigungucode", "1,25")]).filter.kakaoCategories
                == ["FD6", "CE7"])
        #expect(try QueryParameters.parse([("category", "12"), ("category", "39")]).filter.categories == [12, 39])
    }

    @Test func aPageTooDeepNamesWhatWasSent() {
        #expect(reason([("limit", "9223372036854775807")])?.parameter == "limit")
        #expect(reason([("limit", "3000000000")])?.parameter == "limit")
        #expect(reason([("limit", "100"), ("page", "9223372036854775807")])?.parameter == "page")
        #expect(reason([("page", "300000000")])?.parameter == "page")
    }
}
