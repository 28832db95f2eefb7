import Foundation

@testable import NearbyCore

/// The reference the engines are checked against: looks at every place, filters with plain code on
/// the `Place` fields, sorts everything with one comparator, slices. Slow and obviously right.
/// Shares only the definitions of the things it checks the engine *uses*: the distance formulas,
/// the Korean collation ranks and the keyword matcher (each tested by its own suite).
struct QueryBruteForce {
    let places: [Place]
    private let titleRank: [String: UInt32]

    init(_ places: [Place]) {
        self.places = places
        let ranks = KoreanCollation.ranks(of: places.map(\.title))
        titleRank = Dictionary(zip(places.map(\.title), ranks), uniquingKeysWith: { a, _ in a })
    }

    struct Answer: Equatable, CustomStringConvertible {
        /// Nil when the query does not count it (`countsTotal`).
        var total: Int?
        var ids: [String]
        var distances: [Double?]
        var description: String {
            "total \(total.map(String.init) ?? "none") ids \(ids.prefix(12))… distances \(distances.prefix(4))"
        }
    }

    /// The whole answer (every page) in order, and the total.
    func all(_ q: PlaceQuery) -> Answer {
        let distance = distanceFunction(q)
        var rows: [(p: Place, d: Double)] = []
        let items = q.personalData?.data.items ?? [:]
        for p in places where matches(p, q.filter, q.personal, items[p.id]) {
            let d = distance(p)
            if d.isNaN || d == .infinity { continue }  // a projection could not place it: in no answer
            switch q.shape {
            case .all: rows.append((p, d))
            case .radius(let r): if d <= r { rows.append((p, d)) }
            case .knn(_, let maxD): if d <= (maxD ?? .infinity) { rows.append((p, d)) }
            }
        }
        if case .knn(let k, _) = q.shape {
            rows.sort { $0.d != $1.d ? $0.d < $1.d : Self.idPrecedes($0.p.id, $1.p.id) }
            rows = Array(rows.prefix(k))
        }
        let keys = q.effectiveOrder.keys
        rows.sort { a, b in
            for key in keys {
                let (x, y): (Double, Double)
                switch key.field {
                case .distance: (x, y) = (a.d, b.d)
                case .title: (x, y) = (Double(titleRank[a.p.title]!), Double(titleRank[b.p.title]!))
                case .created: (x, y) = (Double(Self.stamp(a.p.created)), Double(Self.stamp(b.p.created)))
                case .modified: (x, y) = (Double(Self.stamp(a.p.modified)), Double(Self.stamp(b.p.modified)))
                case .category: (x, y) = (Double(a.p.category), Double(b.p.category))
                case .rating, .bookmarked, .memo, .visited:
                    (x, y) = (
                        Self.personalKey(key.field, items[a.p.id], q.personal),
                        Self.personalKey(key.field, items[b.p.id], q.personal)
                    )
                }
                if x != y { return key.descending ? x > y : x < y }
            }
            return Self.idPrecedes(a.p.id, b.p.id)
        }
        return Answer(
            total: q.countsTotal ? rows.count : nil, ids: rows.map(\.p.id),
            distances: rows.map { q.center == nil ? nil : $0.d })
    }

    /// One page of the answer, as `--limit/--page` defines it.
    func page(_ q: PlaceQuery) -> Answer { page(q, of: all(q)) }

    /// `q`'s page of `whole`, the answer of `all(q)`: many pages of one query, ranked once.
    func page(_ q: PlaceQuery, of whole: Answer) -> Answer {
        var a = whole
        guard q.limit > 0 else { return a }
        let start = min(a.ids.count, (q.page - 1) * q.limit)
        let end = min(a.ids.count, start + q.limit)
        a.ids = Array(a.ids[start..<end])
        a.distances = Array(a.distances[start..<end])
        return a
    }

    /// A personal sort key's value: missing values are the lowest.
    static func personalKey(_ field: SortField, _ item: PersonalData.Item?, _ pf: PersonalFilter) -> Double {
        guard let item else { return -.infinity }
        switch field {
        case .rating: return item.rating ?? -.infinity
        case .bookmarked:
            let times = item.bookmarks.filter { pf.bookmarkedIn == nil || $0.list == pf.bookmarkedIn }.map(\.added)
            return times.max().map(Double.init) ?? -.infinity
        case .memo: return item.memo.map { Double($0.updated) } ?? -.infinity
        case .visited: return item.visits.max().map(Double.init) ?? -.infinity
        default: return 0
        }
    }

    /// Whether `p` passes `f` and the personal conditions of `pf` on its `item`, each written out from
    /// its definition; the keyword in the title and/or the memo, as `keywordIn` says.
    func matches(_ p: Place, _ f: PlaceFilter, _ pf: PersonalFilter, _ item: PersonalData.Item?) -> Bool {
        var rest = f
        rest.keyword = nil
        guard matches(p, rest) else { return false }
        if let k = f.keyword {
            let m = KeywordMatcher(k)
            let targets = pf.keywordIn ?? [.title]
            let hit =
                (targets.contains(.title) && m.matches(p.title))
                || (targets.contains(.memo) && (item?.memo.map { m.matches($0.text) } ?? false))
            if !hit { return false }
        }
        if pf.bookmarked && (item?.bookmarks.isEmpty ?? true) { return false }
        if let l = pf.bookmarkedIn, !(item?.bookmarks.contains { $0.list == l } ?? false) { return false }
        if let r = pf.minRating, (item?.rating ?? 0) < r { return false }
        if pf.hasMemo && item?.memo == nil { return false }
        if pf.visited == true && (item?.visits.isEmpty ?? true) { return false }
        if pf.visited == false && !(item?.visits.isEmpty ?? true) { return false }
        return true
    }

    /// Whether `p` passes every condition `f` sets, each written out from its definition.
    func matches(_ p: Place, _ f: PlaceFilter) -> Bool {
        func levels(_ xs: String?...) -> [String] { xs.compactMap { $0 }.filter { !$0.isEmpty } }
        func hierarchy(_ wanted: Set<String>, _ codes: [String]) -> Bool {
            codes.contains { code in wanted.contains { code.hasPrefix($0) } }
        }
        for condition in f.conditions {
            let passes: Bool
            switch condition {
            case .categories: passes = f.categories!.contains(p.category)
            case .areacodes: passes = p.areacode.map(f.areacodes!.contains) ?? false
            case .sigungucodes: passes = p.sigungucode.map(f.sigungucodes!.contains) ?? false
            case .keyword: passes = KeywordMatcher(f.keyword!).matches(p.title)
            case .created: passes = p.created.map { f.created!.contains(Int64($0)!) } ?? false
            case .modified: passes = p.modified.map { f.modified!.contains(Int64($0)!) } ?? false
            case .eventPeriod:
                let r = f.eventPeriod!
                if let s = p.eventStart.map({ Int32($0)! }) {
                    let e = p.eventEnd.map { Int32($0)! } ?? s
                    passes = s <= r.upperBound && e >= r.lowerBound
                } else {
                    passes = false
                }
            case .withImage: passes = !(p.image ?? "").isEmpty
            case .accessibility:
                // A visitor group is had when the place names it or one of its facilities (Accessibility.members).
                let had = Set(p.accessibility).union(
                    Accessibility.members.filter { !$0.value.allSatisfy { !p.accessibility.contains($0) } }.keys)
                passes = Set(f.accessibility).isSubset(of: had)
            case .bbox:
                let b = f.bbox!
                let lonOK =
                    b.minLon <= b.maxLon
                    ? (b.minLon...b.maxLon).contains(p.lon) : (p.lon >= b.minLon || p.lon <= b.maxLon)
                passes = lonOK && (b.minLat...b.maxLat).contains(p.lat)
            case .region: passes = f.region!.contains(lat: p.lat, lon: p.lon)
            case .cat: passes = hierarchy(f.cat!, levels(p.cat1, p.cat2, p.cat3))
            case .lcls: passes = hierarchy(f.lcls!, levels(p.lclsSystm1, p.lclsSystm2, p.lclsSystm3))
            case .ldong:
                if let regn = p.lDongRegnCd, !regn.isEmpty {
                    passes = f.ldong!.contains { (regn + (p.lDongSignguCd ?? "")).hasPrefix($0) }
                } else {
                    passes = false
                }
            case .kakaoCategories: passes = p.kakaoCategory.map(f.kakaoCategories!.contains) ?? false
            case .pet: passes = p.pet.map(f.pet!.contains) ?? false
            case .details:
                // A stored detail: a text of at least one character in the kind's field.
                let texts: [PlaceDetail.Kind: String?] = [.barrierFree: p.barrierFree, .pet: p.petInfo]
                passes = f.details.allSatisfy { !((texts[$0] ?? nil) ?? "").isEmpty }
            }
            if !passes { return false }
        }
        return true
    }

    private func distanceFunction(_ q: PlaceQuery) -> (Place) -> Double {
        guard let c = q.center else { return { _ in 0 } }
        switch q.distance {
        case .haversine: return { Haversine.distance(lat1: c.lat, lon1: c.lon, lat2: $0.lat, lon2: $0.lon) }
        case .geodesic: return { Geodesic.wgs84.distance(lat1: c.lat, lon1: c.lon, lat2: $0.lat, lon2: $0.lon) }
        case .projected(let crs):
            let projection = try! Projection(epsg: crs.epsgCode(lat: c.lat, lon: c.lon))
            let o = projection.forward(lat: c.lat, lon: c.lon)
            return { p in
                let xy = projection.forward(lat: p.lat, lon: p.lon)
                return PlanarMetric.distance(x1: o.x, y1: o.y, x2: xy.x, y2: xy.y)
            }
        }
    }

    private static func stamp(_ s: String?) -> Int64 { s.map { Int64($0)! } ?? 0 }

    /// Integer ids (digits only, no leading zeros in test data) by value first, then others by bytes.
    static func idPrecedes(_ a: String, _ b: String) -> Bool {
        func key(_ s: String) -> (Int, [UInt8]) {
            s.allSatisfy(\.isASCII) && Int(s) != nil
                ? (0, Array(String(repeating: "0", count: 40 - s.count).utf8) + Array(s.utf8))
                : (1, Array(s.utf8))
        }
        let x = key(a)
        let y = key(b)
        return x.0 != y.0 ? x.0 < y.0 : x.1.lexicographicallyPrecedes(y.1)
    }
}
