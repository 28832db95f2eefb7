import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyPostGIS

/// Sorted pages in SQL (`PostGISStore.keysetPage` over `007_order_indexes.sql`): every sort and TourAPI
/// arrange code under every filter equals the memory engine, page by page, and a keyset page across a
/// concurrent insert neither skips nor repeats a row.
@Suite struct PostGISSortTests {
    /// Every sort field in both directions, two-key orders of mixed and equal directions, and the
    /// arrange codes without a centre (A, C, D and, with an image only, O, Q, R).
    static let orders: [(name: String, order: PlaceOrder, withImage: Bool)] = {
        var orders: [(String, PlaceOrder, Bool)] = []
        // Personal keys read a user's data: `PostGISPersonalTests` sorts by them.
        for field in SortField.allCases where field != .distance && !field.isPersonal {
            for descending in [false, true] {
                let key = SortKey(field, descending: descending)
                orders.append((key.description, PlaceOrder([key]), false))
            }
        }
        for text in ["category,title", "-category,-modified", "category,-created", "-title,created"] {
            orders.append((text, PlaceOrder(parsing: text)!, false))
        }
        for a in Arrange.allCases where a.order.usesDistance == false {
            orders.append(("arrange \(a.rawValue)", a.order, a.requiresImage))
        }
        return orders
    }()

    /// Each order under each filter condition alone (`FilterExamples`, with one category and one area
    /// too: those are equalities in SQL), pages 1–3 by cursor and by number, with and without the total.
    @Test func everySortAndArrangeUnderEveryFilterEqualsTheMemoryEngine() throws {
        var g = QuerySampler(seed: 3131)
        // Ids apart from the ties' (numbers stay numbers, so both id orders are walked).
        let places =
            PostGISKeysetTests.ties()
            + g.places(2500).map {
                var p = $0
                p.id = Int(p.id).map { String($0 + 10_000_000) } ?? "n" + p.id
                return p
            }
        let store = try PostGISEngineTests.database(places)
        let engine = try PostGISEngine(store: store)
        let memory = MemoryEngine(places: places, generation: try store.generation(), cursorKey: engine.cursorKey)
        var filters = [PlaceFilter()] + PlaceFilter.Condition.allCases.map(FilterExamples.filter)
        filters.append(PlaceFilter(categories: [39]))
        filters.append(PlaceFilter(areacodes: ["3"]))
        for (name, order, withImage) in Self.orders {
            for (n, filter) in filters.enumerated() {
                var q = PlaceQuery(filter: filter, order: order, limit: 30)
                if withImage { q.filter.withImage = true }
                q.countsTotal = n % 2 == 0
                for page in 1...3 {
                    var numbered = q
                    numbered.page = page
                    let m = try memory.run(numbered)
                    #expect(try engine.run(numbered) == m, "\(name), filter \(n), page \(page)")
                    if page == 1 && n == 0 { #expect(m.places.count == 30, "\(name): a full first page") }
                }
                for page in 1...3 {
                    let m = try memory.run(q)
                    let p = try engine.run(q)
                    #expect(m == p, "\(name), filter \(n), page \(page) by cursor")
                    guard m == p, let next = m.nextCursor else { break }
                    q.cursor = next
                }
            }
        }
    }

    /// Page 2 of a keyset walk after another connection inserted rows just before and just after the
    /// boundary (page 1's last row) and committed.
    ///
    /// What is expected: the engine refuses page 1's cursor as stale (its fingerprint holds the
    /// generation the insert bumped), as every engine does after a write; it never answers a page of
    /// other data silently. The keyset statement itself, given the boundary row (what the cursor
    /// names), reads exactly the rows that follow the boundary in the order as committed now: the row
    /// inserted after it in its place, the one inserted before it never, and no row of page 1 again.
    @Test func aKeysetPageAcrossAConcurrentInsertNeitherSkipsNorRepeats() throws {
        var g = QuerySampler(seed: 808)
        let places = g.places(600)
        let url = try PostgresCluster.shared().makeDatabase()
        let store = try PostGISEngineTests.database(places, url: url)
        let engine = try PostGISEngine(store: store)
        for (name, order, _) in Self.orders {
            let q = PlaceQuery(order: order, limit: 30)
            let first = try engine.run(q)
            let boundary = first.places.last!
            let generation = try store.generation()
            let page1 = try store.keysetPage(
                .init(), order: order, after: nil, limit: 30, offset: 0, counting: false)
            #expect(page1.places.prefix(30).map(\.id) == first.places.map(\.id), "\(name)")

            // Two copies of the boundary, the same keys, ids just before and just after its own (the
            // id breaks the tie), inserted and committed by another connection.
            var before = boundary
            before.id = "00" + boundary.id
            var after = boundary
            after.id = boundary.id + "~"
            #expect(PlaceTable.idPrecedes(before.id, boundary.id) != PlaceTable.idPrecedes(after.id, boundary.id))
            if PlaceTable.idPrecedes(boundary.id, before.id) { swap(&before.id, &after.id) }
            let writer = try PostGISStore(url: url, readOnly: false)
            _ = try writer.write { w in
                try w.upsert(before)
                try w.upsert(after)
            }
            #expect(try store.generation() > generation)

            var resumed = q
            resumed.cursor = first.nextCursor
            #expect(throws: RequestError.staleCursor, "\(name)") { try engine.run(resumed) }

            let page2 = try store.keysetPage(
                .init(), order: order, after: boundary.id, limit: 30, offset: 0, counting: false)
            #expect(page2.cursorFound)
            let now = MemoryEngine(
                places: try Self.all(store), generation: try store.generation(), cursorKey: engine.cursorKey)
            let all = try now.run(PlaceQuery(order: order, limit: 0)).places.map(\.id)
            let at = all.firstIndex(of: boundary.id)!
            #expect(page2.places.map(\.id) == Array(all[(at + 1)...].prefix(31)), "\(name)")
            // The two copies sit on either side of the boundary; the one after it is on page 2 when it is
            // among the 31 rows that follow (ties of other rows on the keys may come between).
            #expect(all.firstIndex(of: before.id)! < at && all.firstIndex(of: after.id)! > at, "\(name)")
            #expect(page2.places.contains { $0.id == after.id } == (all.firstIndex(of: after.id)! <= at + 31))
            #expect(!page2.places.contains { $0.id == before.id }, "\(name)")
            #expect(Set(page2.places.map(\.id)).isDisjoint(with: first.places.map(\.id)), "\(name)")
            _ = try writer.write { w in
                try w.delete(id: before.id)
                try w.delete(id: after.id)
            }
        }
    }

    static func all(_ store: PostGISStore) throws -> [Place] {
        var places: [Place] = []
        try store.forEachPlaceByID { places.append($0) }
        return places
    }

    /// The unfiltered total reads the maintained row count, which every write keeps equal to count(*):
    /// a first import with repeated and deleted ids, then inserts, updates, deletes and a no-op.
    @Test func theRowCountFollowsEveryWrite() throws {
        var g = QuerySampler(seed: 99)
        let places = g.places(300)
        let url = try PostgresCluster.shared().makeDatabase()
        let store = try PostGISStore(url: url, readOnly: false)
        func check(_ step: String) throws {
            let counted = try store.count()
            let kept = try store.connection.query("SELECT value FROM nearby_meta WHERE key = 'placecount'").int64(0, 0)
            #expect(kept.map(Int.init) == counted, "\(step)")
            let engine = try PostGISEngine(store: store)
            #expect(try engine.run(PlaceQuery(order: PlaceOrder([SortKey(.title)]), limit: 5)).total == counted)
        }
        try check("empty")
        _ = try store.write { w in
            for p in places { try w.upsert(p) }
            try w.upsert(places[0])
            try w.delete(id: places[1].id)
            try w.delete(id: "no such id")
            try w.upsert(places[1])
            try w.delete(id: places[2].id)
        }
        try check("first import")
        _ = try store.write { w in
            var changed = places[3]
            changed.title = "changed"
            changed.modified = "29991231000000"
            try w.upsert(changed)
            var new = places[4]
            new.id = "new-1"
            try w.upsert(new)
            try w.delete(id: places[5].id)
            try w.delete(id: places[5].id)
            try w.upsert(places[2])
        }
        try check("later import")
        _ = try store.write { w in try w.upsert(places[6]) }
        try check("unchanged")
    }

    /// `--explain` on a sorted page shows PostgreSQL's plan: an index walk of the order's index that
    /// reads about a page of rows, and, with a category, the index of that category's order.
    @Test func explainShowsTheIndexWalk() throws {
        var g = QuerySampler(seed: 12)
        let store = try PostGISEngineTests.database(g.places(3000))
        try store.connection.execute("ANALYZE places")
        let engine = try PostGISEngine(store: store)
        var q = PlaceQuery(order: Arrange.C.order, limit: 30)
        q.countsTotal = false
        q.explain = true
        let e = try #require(try engine.run(q).explanation)
        #expect(e.plan.hasPrefix("postgis keyset page in SQL: "))
        #expect(e.plan.contains("places_modified_order"), "\(e.plan)")
        #expect(e.rowsTouched <= 40, "\(e)")
        q.filter.categories = [39]
        let c = try #require(try engine.run(q).explanation)
        #expect(c.plan.contains("places_category_modified"), "\(c.plan)")
        #expect(c.rowsTouched <= 40, "\(c)")
        q.filter.categories = nil
        q.countsTotal = true
        let counted = try #require(try engine.run(q).explanation)
        #expect(counted.plan.contains("nearby_meta"), "\(counted.plan)")
        #expect(counted.rowsTouched <= 45, "\(counted)")
    }
}
