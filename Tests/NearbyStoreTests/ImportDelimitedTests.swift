import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

@Suite struct ImportDelimitedTests {
    static let header = "id\tlat\tlon\tcategory\ttitle\tcreated\tmodified\tareacode\tsigungucode\n"

    @Test func workloadTSV() throws {
        let tsv =
            Self.header
            + "1\t36.2474772\t126.7874685\t32\t무정리 숙박 282\t20170617143226\t20191228090652\t44\t44760\n"
            + "2\t37.5697101\t126.9645337\t14\t송월동 문화시설 70\t20101230054336\t20230916162902\t11\t11110\n"
        let parsed = try parseFile(tsv, name: "w.tsv")
        #expect(parsed.format == .tsv)
        #expect(parsed.errors.isEmpty)
        #expect(parsed.lines == [2, 3])
        #expect(
            parsed.places == [
                Place(
                    id: "1", title: "무정리 숙박 282", lat: 36.2474772, lon: 126.7874685, category: 32,
                    created: "20170617143226", modified: "20191228090652", areacode: "44", sigungucode: "44760"),
                Place(
                    id: "2", title: "송월동 문화시설 70", lat: 37.5697101, lon: 126.9645337, category: 14,
                    created: "20101230054336", modified: "20230916162902", areacode: "11", sigungucode: "11110"),
            ])
    }

    @Test func csvQuotingOptionalColumnsAndCRLF() throws {
        let csv =
            "id,title,lat,lon,category,accessibility,addr,note\r\n"
            + "a1,\"덕수궁, \"\"대한문\"\"\",37.5658,126.9751,12,wheelchair; restroom;wheelchair,\"서울 중구\nsecond line\",x\r\n"
            + "a2,시청,37.5665,126.978,14,,,\r\n"
        let parsed = try parseFile(csv, name: "p.csv")
        #expect(parsed.format == .csv)
        #expect(parsed.errors.isEmpty)
        #expect(parsed.lines == [2, 4])
        #expect(
            parsed.places == [
                Place(
                    id: "a1", title: "덕수궁, \"대한문\"", lat: 37.5658, lon: 126.9751, category: 12,
                    addr: "서울 중구\nsecond line", accessibility: ["restroom", "wheelchair"]),
                Place(id: "a2", title: "시청", lat: 37.5665, lon: 126.978, category: 14),
            ])
    }

    @Test func badRecordsAreSkippedWithExactMessages() throws {
        let rows = [
            "1\t\t126.9\t12\tno lat\t\t\t\t",  // 2
            "2\tabc\t126.9\t12\tnot a number\t\t\t\t",  // 3
            "3\t91\t126.9\t12\tlat too big\t\t\t\t",  // 4
            "4\t37.5\t-180.5\t12\tlon too small\t\t\t\t",  // 5
            "5\tNaN\t126.9\t12\tnan\t\t\t\t",  // 6
            "6\t37.5\tInfinity\t12\tinf\t\t\t\t",  // 7
            "7\t37.5\t1e999\t12\toverflow\t\t\t\t",  // 8
            "8\t37.5\t126.9\tx\tcategory\t\t\t\t",  // 9
            "9\t37.5\t126.9\t12\tshort date\t2024\t\t\t",  // 10
            "10\t37.5\t126.9\t12\tmonth 13\t\t20241301000000\t\t",  // 11
            "11\t37.5\t126.9\t12\thour 24\t20240101240000\t\t\t",  // 12
            "12\t37.5\t126.9\t12\tfine\t\t\t\t",  // 13
            "12\t37.6\t127.0\t12\tduplicate\t\t\t\t",  // 14
            "13\t37.5\t126.9\t12",  // 15
            "\t37.5\t126.9\t12\tno id\t\t\t\t",  // 16
            "15\t37.5\t126.9\t12\t\t\t\t\t",  // 17
        ]
        let parsed = try parseFile(Self.header + rows.joined(separator: "\n") + "\n", name: "bad.tsv")
        #expect(
            parsed.messages == [
                "bad.tsv:2: lat: missing",
                "bad.tsv:3: lat: \"abc\" is not a number",
                "bad.tsv:4: lat: 91.0 is outside [-90, 90]",
                "bad.tsv:5: lon: -180.5 is outside [-180, 180]",
                "bad.tsv:6: lat: \"NaN\" is not a finite number",
                "bad.tsv:7: lon: \"Infinity\" is not a finite number",
                "bad.tsv:8: lon: not a finite number",
                "bad.tsv:9: category: \"x\" is not an integer",
                "bad.tsv:10: created: \"2024\" is not a yyyyMMddHHmmss date-time",
                "bad.tsv:11: modified: \"20241301000000\" is not a yyyyMMddHHmmss date-time",
                "bad.tsv:12: created: \"20240101240000\" is not a yyyyMMddHHmmss date-time",
                "bad.tsv:15: row: 4 fields, the header has 9",
                "bad.tsv:16: id: missing",
                "bad.tsv:17: title: missing",
            ])
        // A repeated id is passed on; the writer keeps the newest (see PlaceCacheWriteTests).
        #expect(parsed.places.map(\.id) == ["12", "12"])
        #expect(parsed.places.first?.title == "fine")
    }

    @Test func strictModeThrowsTheFirstBadRecord() throws {
        let tsv =
            Self.header + "1\t37.5\t126.9\t12\tok\t\t\t\t\n2\t99\t126.9\t12\tbad\t\t\t\t\n3\tx\t1\t1\tbad too\t\t\t\t\n"
        #expect(throws: RecordError(file: "s.tsv", line: 3, field: "lat", reason: "99.0 is outside [-90, 90]")) {
            try parseFile(tsv, name: "s.tsv", strict: true)
        }
        #expect(try parseFile(tsv, name: "s.tsv").errors.count == 2)
    }

    @Test func invalidUTF8NamesTheLineAndField() throws {
        let bytes =
            Array((Self.header + "1\t37.5\t126.9\t12\t").utf8) + [0xEA, 0xB0, 0x41] + Array("\t\t\t\t\n".utf8)
            + Array("2\t37.5\t126.9\t12\tok\t\t\t\t\n".utf8)
        let parsed = try parseFile(bytes, name: "u.tsv")
        #expect(parsed.messages == ["u.tsv:2: title: invalid UTF-8"])
        #expect(parsed.places.map(\.id) == ["2"])
    }

    @Test func decomposedHangulComesOutNFC() throws {
        let decomposed = "경복궁".decomposedStringWithCanonicalMapping
        #expect(Array(decomposed.utf8) != Array("경복궁".utf8))
        let parsed = try parseFile(Self.header + "1\t37.5796\t126.977\t12\t\(decomposed)\t\t\t\t\n", name: "n.tsv")
        #expect(parsed.places.map { Array($0.title.utf8) } == [Array("경복궁".utf8)])
        #expect(TextNormalization.isKnownNFC("경복궁 Gyeongbokgung 景福宮 「」"))
        #expect(!TextNormalization.isKnownNFC(decomposed))
        #expect(!TextNormalization.isKnownNFC("e\u{301}"))
    }

    @Test func headerWithoutRequiredColumnsIsOneError() {
        #expect(
            refusal("id\tname\tlatitude\n1\tx\t2\n", name: "h.tsv")
                == "h.tsv: not a supported format: the header row lacks title, lat, lon, category (CSV/TSV need a header naming at least id, title, lat, lon, category (or TourAPI's contentid, title, mapy, mapx, contenttypeid); found: id, name, latitude)"
        )
        #expect(
            refusal("id,lat,lat,lon,title,category\n", name: "d.csv") == "d.csv: header row: column lat appears twice")
    }

    @Test func csvSyntaxErrors() throws {
        let csv = "id,title,lat,lon,category\n1,\"a\"b,1,1,1\n2,x\"y,1,1,1\n3,ok,1,1,1\n4,\"never closed,1,1,1\n"
        let parsed = try parseFile(csv, name: "q.csv")
        #expect(
            parsed.messages == [
                "q.csv:2: csv: text after a closing quote",
                "q.csv:3: csv: a quote inside an unquoted field",
                "q.csv:5: csv: unterminated quoted field",
            ])
        #expect(parsed.places.map(\.id) == ["3"])
    }
}
