import NearbyKit
import Testing

/// Batch files: TSV columns named like the parameters go through the one request parser, as JSON lines do.
@Suite struct BatchQueriesTests {
    func read(_ text: String, defaults: [(name: String, value: String)] = []) throws(UsageError) -> [BatchQueries.Job] {
        try BatchQueries.read(Array(text.utf8), file: "q.tsv", defaults: defaults, areas: nil)
    }

    func failure(_ text: String) -> String? {
        do {
            _ = try read(text)
            return nil
        } catch { return error.description }
    }

    @Test func namedColumnsEqualTheJSONLine() throws {
        let tsv = try read(
            "qid\tcategory\tareacode\tkeyword\tcreated-since\tsort\tlimit\tpage\n"
                + "7\t12,39\t1\t동\t20150101\ttitle\t30\t2\n"
                + "x\t\t\t\t\t-modified\t10\t\n")
        let json = try BatchQueries.read(
            Array(
                ("{\"qid\":7,\"category\":[12,39],\"areacode\":\"1\",\"keyword\":\"동\",\"createdSince\":\"20150101\",\"sort\":\"title\",\"limit\":30,\"page\":2}\n"
                    + "{\"qid\":\"x\",\"sort\":\"-modified\",\"limit\":10}\n").utf8), file: "q.jsonl", defaults: [],
            areas: nil)
        #expect(tsv.map(\.query) == json.map(\.query))
        #expect(tsv.map(\.qid) == [.int(7), .string("x")])
        #expect(tsv[1].query.filter.categories == nil)  // empty cells set nothing
        #expect(tsv[0].source == "q.tsv:2")
    }

    @Test func theRadiusWorkloadHeaderStillReads() throws {
        let jobs = try read(
            "qid\tlat\tlon\tradius_m\tlimit\n1\t37.5665\t126.978\t800\t0\n", defaults: [("sort", "distance")])
        #expect(jobs.count == 1 && jobs[0].query.shape == .radius(800) && jobs[0].query.limit == 0)
    }

    @Test func badHeadersAndRowsNameTheLine() {
        #expect(
            failure("qid\tcolour\n1\tred\n")
                == #"q.tsv:1: header: "colour" is not qid or a query parameter (see nearby query --help)"#)
        #expect(failure("qid\tlimit\tlimit\n") == #"q.tsv:1: header: "limit" is given twice"#)
        #expect(failure("qid\tlimit\n1\t2\t3\n") == "q.tsv:2: expected 2 tab-separated columns (qid limit), found 3")
        #expect(failure("qid\tlimit\n\n1\t-2\n")?.hasPrefix("q.tsv:3: ") == true)
    }

    /// A TSV cell is refused when it is not UTF-8 (it was decoded with U+FFFD: a query for other text).
    @Test func invalidUTF8InACellIsRefused() throws {
        func failure(_ bytes: [UInt8]) -> String? {
            do {
                _ = try BatchQueries.read(bytes, file: "q.tsv", defaults: [], areas: nil)
                return nil
            } catch { return error.description }
        }
        #expect(
            failure(Array("qid\tkeyword\n1\tcaf".utf8) + [0xFF, 0x0A])
                == "q.tsv:2: keyword: column 2 is not valid UTF-8")
        #expect(failure(Array("qid\tkey".utf8) + [0xC3, 0x0A]) == "q.tsv:1: header: column 2 is not valid UTF-8")
        #expect(try read("qid\tkeyword\n1\t café \n")[0].query.filter.keyword == " café ")
    }
}
