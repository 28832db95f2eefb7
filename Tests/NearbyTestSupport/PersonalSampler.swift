import NearbyCore

/// Generated personal data and personal queries: users with hundreds to thousands of items over the
/// generated places (and a few ids of no place), times drawn from a small set so that sorts meet ties.
extension QuerySampler {
    public static let lists = ["default", "seoul", "food"]

    /// One user's data: `items` places (drawn from `places`, plus ids of no place), each with some of a
    /// bookmark (in one to three lists), a rating, a memo and visits.
    public mutating func personalData(user: String, places: [Place], items: Int) -> PersonalData {
        var out: [String: PersonalData.Item] = [:]
        func time() -> Int64 { 1_764_000_000_000 + Int64(int(0...40)) * 3_600_000 }
        for _ in 0..<items {
            let id = chance(0.03) ? "gone-\(int(0...999))" : pick(places).id
            var item = out[id] ?? PersonalData.Item()
            if chance(0.5) {
                for list in Self.lists where chance(0.5) || item.bookmarks.isEmpty {
                    if !item.bookmarks.contains(where: { $0.list == list }) {
                        item.bookmarks.append(.init(list: list, added: time()))
                    }
                }
                item.bookmarks.sort { $0.list < $1.list }
            }
            if chance(0.5) { item.rating = Double(int(2...10)) / 2 }
            if chance(0.4) {
                let text = (0..<int(1...4)).map { _ in pick(Self.syllables) }.joined()
                let created = time()
                item.memo = .init(text: text, created: created, updated: created + Int64(int(0...3)) * 60_000)
            }
            if chance(0.4) { item.visits = Array(Set((0..<int(1...3)).map { _ in time() })).sorted() }
            out[id] = item
        }
        // An item with nothing in it is no item (the tables hold none).
        return PersonalData(user: user, items: out.filter { $0.value != PersonalData.Item() })
    }

    /// Random personal conditions for `user` (at least one, unless `allowNone`).
    public mutating func personal(user: String, hasKeyword: Bool) -> PersonalFilter {
        var p = PersonalFilter()
        p.user = user
        if chance(0.25) { p.bookmarked = true }
        if chance(0.2) { p.bookmarkedIn = pick(Self.lists) }
        if chance(0.25) { p.minRating = Double(int(2...10)) / 2 }
        if chance(0.2) { p.hasMemo = true }
        if chance(0.25) { p.visited = chance(0.5) }
        if hasKeyword && chance(0.6) { p.keywordIn = pick([[.title, .memo], [.memo], [.title]]) }
        if chance(0.2) { p.recordsHistory = false }
        return p
    }

    /// A random query with personal conditions and, often, personal sort keys, over `data`.
    public mutating func personalQuery(model: DistanceModel, data: PersonalData) -> PlaceQuery {
        var q = query(model: model)
        if chance(0.3) && q.filter.keyword == nil { q.filter.keyword = pick(Self.syllables) }
        q.personal = personal(user: data.user, hasKeyword: q.filter.keyword != nil)
        if chance(0.6) {
            var keys = q.order.keys.filter { !$0.field.isPersonal }
            let personalKeys: [SortField] = [.rating, .bookmarked, .memo, .visited]
            let f = pick(personalKeys)
            keys.insert(SortKey(f, descending: chance(0.6)), at: chance(0.7) ? 0 : keys.count)
            if chance(0.3), let g = personalKeys.filter({ $0 != f }).randomElementUsing(&self) {
                keys.insert(SortKey(g, descending: chance(0.5)), at: 1)
            }
            q.order = PlaceOrder(keys)
        }
        q.personalData = PersonalDataRef(data)
        return q
    }
}

extension Array {
    fileprivate func randomElementUsing(_ g: inout QuerySampler) -> Element? { isEmpty ? nil : g.pick(self) }
}
