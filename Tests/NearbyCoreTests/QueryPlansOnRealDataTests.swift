import NearbyTestSupport
import Testing

@testable import NearbyCore

/// Every plan of a sorted page gives the column scan's answer on the default dataset (real towns and
/// their names; the scan is checked against the brute force in NearbyCoreTests): order walks over the
/// stored orders, one-area walks over the orders split by area, counted totals and `total=none`.
@Suite struct QueryPlansOnRealDataTests {
    @Test func everyPlanGivesTheScansAnswer() throws {
        let places = try RepositoryData.defaultPlaces(count: 30_000)
        let engine = MemoryEngine(places: places)
        let areas = Array(Set(places.map(\.areacode))).compactMap { $0 }.sorted()
        let words = Array(Set(places.flatMap { $0.title.split(separator: " ").map { String($0.prefix(1)) } })).sorted()
        #expect(areas.count > 3 && words.count > 10)
        var g = QuerySampler(seed: 2611)
        var plans: [String] = []
        for n in 0..<60 {
            var q = PlaceQuery()
            q.explain = true
            if g.chance(0.5) { q.filter.areacodes = [g.pick(areas)] }
            if g.chance(0.4) { q.filter.categories = [g.pick(QuerySampler.categories)] }
            if g.chance(0.4) { q.filter.keyword = g.pick(words) }
            if g.chance(0.2) { q.filter.withImage = true }
            let field = g.pick([SortField.title, .modified, .created, .category])
            q.order = PlaceOrder([SortKey(field, descending: g.chance(0.4))])
            if g.chance(0.2) { q.order.keys.append(SortKey(field == .title ? .created : .title)) }
            if g.chance(0.2), field == .created {
                q.filter.created = 20_180_101_000_000...20_221_231_235_959
            }
            q.limit = g.pick([1, 10, 30])
            q.page = g.int(1...3)
            q.countsTotal = g.chance(0.7)
            let want = try engine.run(q, plan: .scan)
            // Twice each: the second one-area query walks the order split by area.
            for plan in [PlanChoice.orderWalk, .cheapest, .cheapest] {
                let got = try engine.run(q, plan: plan)
                let same =
                    got.total == want.total && got.places.map(\.id) == want.places.map(\.id)
                    && got.nextCursor == want.nextCursor
                #expect(same, "query \(n), plan \(plan): \(q)")
                plans.append(got.explanation?.plan ?? "")
            }
        }
        // The queries reach the plans this is about.
        #expect(
            plans.contains { $0.contains("within areacode") }
                && plans.contains { $0.hasPrefix("order walk") && !$0.contains("within") })
    }
}
