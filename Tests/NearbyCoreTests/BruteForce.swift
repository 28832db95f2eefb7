import Foundation
@testable import NearbyCore

/// The reference the engines are checked against: looks at every place, filters with plain code on
/// the `Place` fields, sorts everything with one comparator, slices. Slow and obviously right.
/// Shares only the definitions of the things it checks the engine *uses*: the distance formulas,
/// the Korean collation ranks and the keyword matcher (each tested by its own suite).
struct BruteForce {
    let places: [Place]
    private let titleRank: [String: UInt32]

    init(_ places: [Place]) {
        self.places = places
        let ranks = KoreanCollation.ranks(of: places.map(\.title))
        titleRank = Dictionary(zip(places.map(\.title), ranks), uniquingKeysWith: { a, _ in a })
    }

    struct Answer: Equatable, CustomStringConvertible {
        var total: Int
        var ids: [String]
        var distances: [Double?]
        var description: String { "total \(total) ids \(ids.prefix(12))… distances \(distances.prefix(4))" }
    }

    /// The whole answer (every page) in order, and the total.
    func all(_ q: PlaceQuery) -> Answer {
        let distance = distanceFunction(q)
        var rows: [(p: Place, d: Double)] = []
        for p in places where matches(p, q.filter) {
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
                }
                if x != y { return key.descending ? x > y : x < y }
            }
            return Self.idPrecedes(a.p.id, b.p.id)
        }
        return Answer(total: rows.count, ids: rows.map(\.p.id), distances: rows.map { q.center == nil ? nil : $0.d })
    }

    /// One page of the answer, as `--limit/--page` defines it.
    func page(_ q: PlaceQuery) -> Answer {
        var a = all(q)
        guard q.limit > 0 else { return a }
        let start = min(a.ids.count, (q.page - 1) * q.limit), end = min(a.ids.count, start + q.limit)
        a.ids = Array(a.ids[start..<end]); a.distances = Array(a.distances[start..<end])
        return a
    }

    func matches(_ p: Place, _ f: PlaceFilter) -> Bool {
        if let c = f.categories, !c.contains(p.category) { return false }
        if let a = f.areacodes, !(p.areacode.map(a.contains) ?? false) { return false }
        if let s = f.sigungucodes, !(p.sigungucode.map(s.contains) ?? false) { return false }
        if let k = f.keyword, !KeywordMatcher(k).matches(p.title) { return false }
        if let r = f.created, !(p.created.map { r.contains(Int64($0)!) } ?? false) { return false }
        if let r = f.modified, !(p.modified.map { r.contains(Int64($0)!) } ?? false) { return false }
        if let r = f.eventPeriod {
            guard let s = p.eventStart.map({ Int32($0)! }) else { return false }
            let e = p.eventEnd.map { Int32($0)! } ?? s
            if s > r.upperBound || e < r.lowerBound { return false }
        }
        if f.withImage && (p.image ?? "").isEmpty { return false }
        if !Set(f.accessibility).isSubset(of: p.accessibility) { return false }
        if let b = f.bbox {
            let lonOK = b.minLon <= b.maxLon ? (b.minLon...b.maxLon).contains(p.lon) : (p.lon >= b.minLon || p.lon <= b.maxLon)
            if !(lonOK && (b.minLat...b.maxLat).contains(p.lat)) { return false }
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
        let x = key(a), y = key(b)
        return x.0 != y.0 ? x.0 < y.0 : x.1.lexicographicallyPrecedes(y.1)
    }
}

/// Seeded generator of test places and queries (SplitMix64), so every failure reproduces.
struct QueryFixtures {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
    mutating func double(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + Double(next() >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
    }
    mutating func chance(_ p: Double) -> Bool { double(0...1) < p }
    mutating func pick<T>(_ xs: [T]) -> T { xs[int(0...xs.count - 1)] }

    static let syllables = Array("경복궁서울역해운대부산광안리카페공원박물관시장산사찰호텔한옥마을가나다라마바사").map(String.init)
    static let categories = [12, 14, 15, 25, 28, 32, 38, 39]
    static let centres = [(37.5665, 126.9780), (35.1796, 129.0756), (33.4996, 126.5312), (37.4563, 126.7052)]

    mutating func title() -> String {
        var t = (0..<int(1...4)).map { _ in pick(Self.syllables) }.joined()
        if chance(0.1) { t = pick(["Seoul ", "cafe ", "N서울타워 ", "63빌딩 "]) + t }
        return t
    }

    mutating func date() -> String {
        String(format: "%04d%02d%02d%02d%02d%02d", int(2015...2025), int(1...12), int(1...28), int(0...23), int(0...59), int(0...59))
    }

    /// `n` places clustered around a few Korean cities, with some duplicates of one coordinate and
    /// every optional field sometimes missing. Ids are integers, plus a few text ids.
    mutating func places(_ n: Int) -> [Place] {
        (0..<n).map { i in
            let c = pick(Self.centres)
            var lat = c.0 + double(-0.15...0.15), lon = c.1 + double(-0.15...0.15)
            if i % 17 == 0 { (lat, lon) = (37.5665, 126.9780) }  // many places at one point
            let category = chance(0.05) ? 99 : pick(Self.categories)
            let created = chance(0.9) ? date() : nil
            var start: String?, end: String?
            if category == 15 || chance(0.05) {
                let s = int(2024...2025) * 10000 + int(1...12) * 100 + int(1...20)
                start = String(s); end = chance(0.8) ? String(s + int(0...8)) : nil
            }
            let tags = Accessibility.tags.prefix(5).filter { _ in chance(0.3) }
            return Place(
                id: i % 50 == 49 ? "x\(next() % 1000)-\(i)" : String(int(1...9) * 100_000 + i),
                title: title(), lat: lat, lon: lon, category: category,
                created: created, modified: created.map { max($0, date()) },
                areacode: chance(0.9) ? String(int(1...8)) : nil, sigungucode: chance(0.9) ? String(int(1...20)) : nil,
                image: chance(0.5) ? "http://img/\(i).jpg" : (chance(0.1) ? "" : nil),
                eventStart: start, eventEnd: end, accessibility: Array(tags))
        }
    }

    /// A random filter: each condition set with some probability.
    mutating func filter() -> PlaceFilter {
        var f = PlaceFilter()
        if chance(0.3) { f.categories = Set((0..<int(1...3)).map { _ in pick(Self.categories) }) }
        if chance(0.15) { f.areacodes = Set([String(int(1...8)), String(int(1...8))]) }
        if chance(0.1) { f.sigungucodes = [String(int(1...20))] }
        if chance(0.15) { f.keyword = pick(["경", "공원", "cafe", "서울", "ㄱㅂㄱ", "Seoul"]) }
        if chance(0.15) { let a = Int64(int(2016...2024)) * 10_000_000_000; f.created = a...(a + 20_000_000_000) }
        if chance(0.1) { let a = Int64(int(2016...2024)) * 10_000_000_000; f.modified = a...Int64(20251231235959) }
        if chance(0.15) { let d = Int32(int(2024...2025) * 10000 + int(1...12) * 100 + int(1...28)); f.eventPeriod = d...(d + Int32(int(0...1)) * 30) }
        if chance(0.2) { f.withImage = true }
        if chance(0.15) { f.accessibility = Array(Accessibility.tags.prefix(4).filter { _ in chance(0.4) }) }
        if chance(0.15) {
            let c = pick(Self.centres)
            f.bbox = GeoBox(minLon: c.1 - 0.1, minLat: c.0 - 0.1, maxLon: c.1 + double(0...0.2), maxLat: c.0 + 0.1)
        }
        return f
    }

    mutating func order(hasCentre: Bool) -> PlaceOrder {
        var fields = SortField.allCases.filter { hasCentre || $0 != .distance }
        var keys: [SortKey] = []
        for _ in 0..<int(0...3) where !fields.isEmpty {
            let f = fields.remove(at: int(0...fields.count - 1))
            keys.append(SortKey(f, descending: chance(0.4)))
        }
        return PlaceOrder(keys)
    }

    /// A random query of every shape, around the generated places.
    mutating func query(model: DistanceModel) -> PlaceQuery {
        let c = pick(Self.centres)
        var q = PlaceQuery(distance: model)
        let hasCentre = chance(0.85)
        if hasCentre { q.center = Coordinate(lat: c.0 + double(-0.1...0.1), lon: c.1 + double(-0.1...0.1)) }
        switch hasCentre ? int(0...3) : 0 {
        case 1, 2: q.shape = .radius(pick([0, 500, 3000, 8000, 20000, 500_000]))
        case 3: q.shape = .knn(k: pick([1, 5, 30, 5000]), maxDistance: chance(0.5) ? nil : pick([1000.0, 10000]))
        default: q.shape = .all
        }
        q.filter = chance(0.5) ? PlaceFilter() : filter()
        q.order = chance(0.4) ? PlaceOrder([]) : order(hasCentre: hasCentre)
        q.limit = pick([0, 1, 10, 30])
        q.page = q.limit == 0 ? 1 : int(1...3)
        return q
    }
}
