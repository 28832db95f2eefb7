import Foundation
import NearbyTestSupport
import Testing

@testable import NearbyCore

/// The date orders split by category (`CategoryOrder`) and the title postings (`TitlePostings`), each
/// against the scan: the structures themselves, and every plan over them (forced, and the planner's
/// choice) against the brute force on generated places, in memory and from a snapshot, and against the
/// column scan on the default dataset. Titles include Hanja, compatibility and conjoining jamo and
/// fullwidth letters; keywords include initial consonants (초성).
@Suite struct IndexPlansTests {
    static let places: [Place] = {
        var g = QuerySampler(seed: 3636)
        var places = g.places(2500)
        let prefixes = ["景福宮 ", "南山 ", "佛國寺", "ㄱㄴ", "Ｃａｆｅ ", "海雲臺", "①번가 ", "\u{1100}공원 ", "까치 "]
        for i in places.indices where i % 5 == 0 { places[i].title = g.pick(prefixes) + places[i].title }
        return places
    }()
    static let keywords = [
        "경", "ㄱ", "ㄱㅂㄱ", "경ㅂ궁", "서울", "景福", "宮", "ㅅㅇ", "cafe", "CAFE", "1번", "ㄴ", "ㄲ", "까", "공원",
        "해", "ㅎㅇ", "海", "ᄀ", "ㄱㄴ", "없는말", "N",
    ]
    static let reference = QueryBruteForce(places)
    static let memory = MemoryEngine(places: places.shuffled())
    static let mapped: MemoryEngine = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nearby-indexplans-\(getpid())").path
        defer { unlink(path) }
        let stamp = IndexSnapshot.Stamp(identity: 0x36, generation: 1)
        try! IndexSnapshot.write(places.shuffled(), stamp: stamp, to: path)
        let byId = Dictionary(uniqueKeysWithValues: places.map { ($0.id, $0) })
        return try! IndexSnapshot.engine(path, wanted: stamp) { ids in ids.compactMap { byId[$0] } }
    }()

    static func answer(_ a: QueryAnswer) -> QueryBruteForce.Answer {
        QueryBruteForce.Answer(total: a.total, ids: a.places.map(\.id), distances: a.distances)
    }

    @Test func thePostingsHoldEveryMatchAndOneUnitIsExact() throws {
        let titles = FoldedTitles(Self.places.map(\.title))
        let postings = TitlePostings(titles)
        #expect(postings.holdsOnlyRows(Self.places.count))
        for k in 0..<postings.keys.count {
            let rows = postings.rows[Int(postings.starts[k])..<Int(postings.starts[k + 1])]
            #expect(zip(rows, rows.dropFirst()).allSatisfy { $0 < $1 }, "key \(postings.keys[k]) ascending")
        }
        let syllables = Set(Self.places.flatMap { $0.title.unicodeScalars.map { String($0) } })
        for keyword in Self.keywords + syllables.sorted() {
            let matcher = KeywordMatcher(keyword)
            let matches = Set((0..<titles.count).filter { titles.matches(matcher, at: $0) })
            let range = try #require(postings.candidates(matcher))
            let candidates = Set(postings.rows[range].map(Int.init))
            #expect(matches.isSubset(of: candidates), "\(keyword)")
            if TitlePostings.isExact(matcher) { #expect(matches == candidates, "\(keyword)") }
        }
    }

    /// Every row of each category's run, in that date's order, once.
    @Test func theCategoryRunsAreTheDateOrdersSplitByCategory() throws {
        for engine in [Self.memory, Self.mapped] {
            let t = engine.table
            for field in CategoryOrder.fields {
                let order = try #require(t.categoryOrder(field, now: true))
                #expect(Set(order.rows) == Set(0..<UInt32(t.count)))
                let key: (Int) -> Int64 = field == .created ? { t.created[$0] } : { t.modified[$0] }
                for c in t.tableStatistics().categoryCounts.keys {
                    let run = order.run(of: c).map { Int(order.rows[$0]) }
                    #expect(run.allSatisfy { t.category[$0] == c })
                    #expect(
                        zip(run, run.dropFirst()).allSatisfy {
                            (key($0), t.idRank($0)) < (key($1), t.idRank($1))
                        })
                }
            }
        }
    }

    static func query(_ g: inout QuerySampler) -> PlaceQuery {
        var q = PlaceQuery()
        if g.chance(0.75) {
            q.filter.categories = Set((0..<g.int(1...3)).map { _ in g.pick(QuerySampler.categories + [99, 7]) })
        }
        let year = { (g: inout QuerySampler) in Int64(g.int(2015...2025)) * 10_000_000_000 }
        if g.chance(0.4) {
            let a = year(&g) + Int64(g.int(1...12)) * 100_000_000
            q.filter.modified = a...(g.chance(0.5) ? 99_991_231_235_959 : a + 20_000_000_000)
        }
        if g.chance(0.4) {
            let a = year(&g) + 101_000_000
            q.filter.created = a...(a + Int64(g.int(0...3)) * 10_000_000_000 + 1_230_235_959)
        }
        if g.chance(0.35) { q.filter.keyword = g.pick(Self.keywords) }
        if g.chance(0.2) { q.filter.ldong = [g.pick(["11", "26", "50"])] }
        if g.chance(0.15) { q.filter.areacodes = [String(g.int(1...8))] }
        if g.chance(0.1) { q.filter.withImage = true }
        let orders: [[SortKey]] = [
            [SortKey(.category), SortKey(.created, descending: true)], [SortKey(.category), SortKey(.modified)],
            [SortKey(.category, descending: true), SortKey(.created)], [SortKey(.created, descending: true)],
            [SortKey(.modified, descending: true)], [SortKey(.modified)], [SortKey(.title)], [],
        ]
        q.order = PlaceOrder(g.pick(orders))
        q.limit = g.pick([0, 1, 20, 50])
        q.page = q.limit == 0 ? 1 : g.int(1...4)
        q.countsTotal = g.chance(0.8)
        return q
    }

    @Test func everyPlanGivesTheBruteForceAnswer() throws {
        var g = QuerySampler(seed: 3637)
        var plans: Set<String> = []
        for n in 0..<120 {
            var q = Self.query(&g)
            q.explain = true
            var plain = q
            plain.explain = false
            let expected = Self.reference.page(plain)
            for engine in [Self.memory, Self.mapped] {
                for plan in PlanChoice.allCases {
                    let got = try engine.run(q, plan: plan)
                    #expect(Self.answer(got) == expected, "query \(n), plan \(plan): \(q)")
                    if Self.answer(got) != expected { return }
                    plans.insert(String(got.explanation?.plan.prefix(while: { $0 != ":" }) ?? ""))
                }
            }
        }
        #expect(plans.isSuperset(of: ["category runs", "keyword postings", "order walk", "column scan"]), "\(plans)")
    }

    /// The default dataset (real towns and their names), each plan against the column scan: keywords
    /// are syllables of its titles and their initial consonants.
    @Test func onTheDefaultDatasetEveryPlanGivesTheScansAnswer() throws {
        let places = try RepositoryData.defaultPlaces(count: 20_000)
        let engine = MemoryEngine(places: places)
        let syllables = Array(Set(places.flatMap { $0.title.unicodeScalars.filter { Hangul.isSyllable($0.value) } }))
            .sorted { $0.value < $1.value }
        let ldongs = Array(Set(places.compactMap(\.lDongRegnCd))).sorted()
        #expect(syllables.count > 50 && !ldongs.isEmpty)
        var g = QuerySampler(seed: 3638)
        for n in 0..<40 {
            var q = Self.query(&g)
            if q.filter.keyword != nil || g.chance(0.3) {
                let s = g.pick(syllables)
                let initial = Hangul.compatibilityInitials[Int(Hangul.initialIndex(ofSyllable: s.value))]
                q.filter.keyword = g.pick([String(s), String(initial), String(initial) + String(g.pick(syllables))])
            }
            if q.filter.ldong != nil { q.filter.ldong = [g.pick(ldongs)] }
            let want = try engine.run(q, plan: .scan)
            for plan in [PlanChoice.categoryRuns, .postings, .cheapest] {
                let got = try engine.run(q, plan: plan)
                #expect(
                    got.total == want.total && got.places.map(\.id) == want.places.map(\.id)
                        && got.nextCursor == want.nextCursor, "query \(n), plan \(plan): \(q)")
            }
        }
    }

    /// A filter on one code family alone (`--ldong 11`, `--ldong 11140`, `--cat A05`): the total from the
    /// rows per code (`PlaceTable.codeCounts`) and the page from a walk, against the brute force in memory
    /// and from a snapshot; with another condition beside it, the scan's count (the code column read
    /// first) against the brute force too.
    @Test func aCodeFilterAloneIsCountedFromTheRowsPerCode() throws {
        var g = QuerySampler(seed: 3639)
        let regions = Array(Set(Self.places.compactMap(\.lDongRegnCd))).sorted()
        let towns = Array(Set(Self.places.compactMap { p in p.lDongRegnCd.map { $0 + (p.lDongSignguCd ?? "") } }))
            .sorted()
        #expect(regions.count > 2 && towns.count > regions.count)
        for n in 0..<80 {
            var q = PlaceQuery()
            var codes: Set<String> = []
            for _ in 0..<g.int(1...2) {
                let pool = g.chance(0.5) ? regions : towns
                codes.insert(g.pick(pool))
            }
            q.filter.ldong = codes
            if g.chance(0.15) {
                q.filter.ldong = nil
                q.filter.cat = [g.pick(["A01", "A05", "A0502", "B02"])]
            }
            let alone = !g.chance(0.3)
            if !alone { q.filter.withImage = true }
            q.order = PlaceOrder(g.pick([[], [SortKey(.title)], [SortKey(.modified, descending: true)]]))
            q.limit = g.pick([1, 1, 20, 0])
            q.page = q.limit == 0 ? 1 : g.int(1...3)
            q.explain = true
            var plain = q
            plain.explain = false
            let expected = Self.reference.page(plain)
            for engine in [Self.memory, Self.mapped] {
                for plan in [PlanChoice.cheapest, .orderWalk, .scan] {
                    let got = try engine.run(q, plan: plan)
                    #expect(Self.answer(got) == expected, "query \(n), plan \(plan): \(q)")
                    if alone && plan == .cheapest && q.limit == 1 {
                        let explained = try #require(got.explanation)
                        #expect(explained.plan.contains("total: code counts"), "query \(n): \(explained)")
                        #expect(explained.rowsTouched < engine.table.count / 2, "query \(n): \(explained)")
                    }
                }
            }
        }
    }

    @Test func explainNamesThePlans() throws {
        var q = try QueryParameters.parse([
            ("category", "12"), ("modified-since", "20200101"), ("sort", "category,-created"), ("limit", "50"),
            ("page", "2"), ("explain", "true"),
        ])
        let runs = try #require(try Self.mapped.run(q).explanation)
        #expect(runs.plan.hasPrefix("category runs: created descending within categories [12]"), "\(runs)")
        #expect(runs.plan.contains("total: modified range lengths in category runs"), "\(runs)")

        q = try QueryParameters.parse([
            ("ldong", "11"), ("keyword", "경"), ("sort", "title"), ("limit", "30"), ("explain", "true"),
        ])
        let postings = try #require(try Self.mapped.run(q).explanation)
        #expect(postings.plan.hasPrefix("keyword postings:"), "\(postings)")
    }
}
