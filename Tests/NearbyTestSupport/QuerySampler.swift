import Foundation
import NearbyCore

/// Seeded random places and queries of every shape, filter and sort (SplitMix64): the same seed gives
/// the same sequence on every machine, so a failing property test or a benchmark run reproduces.
/// Places cluster around four Korean cities, with duplicate coordinates, integer and text ids and every
/// optional field sometimes missing: the cases the engines must agree on.
public struct QuerySampler: Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    public mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
    public mutating func double(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + Double(next() >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
    }
    public mutating func chance(_ p: Double) -> Bool { double(0...1) < p }
    public mutating func pick<T>(_ xs: [T]) -> T { xs[int(0...xs.count - 1)] }

    public static let syllables = Array("경복궁서울역해운대부산광안리카페공원박물관시장산사찰호텔한옥마을가나다라마바사").map(String.init)
    public static let categories = [12, 14, 15, 25, 28, 32, 38, 39]
    public static let centres = [(37.5665, 126.9780), (35.1796, 129.0756), (33.4996, 126.5312), (37.4563, 126.7052)]

    public mutating func title() -> String {
        var t = (0..<int(1...4)).map { _ in pick(Self.syllables) }.joined()
        if chance(0.1) { t = pick(["Seoul ", "cafe ", "N서울타워 ", "63빌딩 "]) + t }
        return t
    }

    public mutating func date() -> String {
        String(
            format: "%04d%02d%02d%02d%02d%02d", int(2015...2025), int(1...12), int(1...28), int(0...23), int(0...59),
            int(0...59))
    }

    /// `n` places clustered around a few Korean cities, with some duplicates of one coordinate and
    /// every optional field sometimes missing. Ids are integers, plus a few text ids.
    public mutating func places(_ n: Int) -> [Place] {
        (0..<n).map { i in
            let c = pick(Self.centres)
            var lat = c.0 + double(-0.15...0.15)
            var lon = c.1 + double(-0.15...0.15)
            if i % 17 == 0 { (lat, lon) = (37.5665, 126.9780) }  // many places at one point
            let category = chance(0.05) ? 99 : pick(Self.categories)
            let created = chance(0.9) ? date() : nil
            var start: String?
            var end: String?
            if category == 15 || chance(0.05) {
                let s = int(2024...2025) * 10000 + int(1...12) * 100 + int(1...20)
                start = String(s)
                end = chance(0.8) ? String(s + int(0...8)) : nil
            }
            let tags = Accessibility.tags.prefix(5).filter { _ in chance(0.3) }
            var p = Place(
                id: i % 50 == 49 ? "x\(next() % 1000)-\(i)" : String(int(1...9) * 100_000 + i),
                title: title(), lat: lat, lon: lon, category: category,
                created: created, modified: created.map { max($0, date()) },
                areacode: chance(0.9) ? String(int(1...8)) : nil, sigungucode: chance(0.9) ? String(int(1...20)) : nil,
                image: chance(0.5) ? "http://img/\(i).jpg" : (chance(0.1) ? "" : nil),
                eventStart: start, eventEnd: end, accessibility: Array(tags))
            codes(&p)
            details(&p, i)
            return p
        }
    }

    /// Classification, legal-dong and Kakao codes (`CodeFamily`): whole hierarchies, single levels,
    /// empty text and missing values.
    private mutating func codes(_ p: inout Place) {
        func levels(_ all: [(String, String, String)]) -> (String?, String?, String?) {
            let (a, b, c) = pick(all)
            switch int(0...5) {
            case 0: return (nil, nil, nil)
            case 1: return (nil, nil, c)
            case 2: return (a, "", nil)
            default: return (a, b, c)
            }
        }
        (p.cat1, p.cat2, p.cat3) = levels(Self.cats)
        (p.lclsSystm1, p.lclsSystm2, p.lclsSystm3) = levels(Self.lclss)
        if chance(0.8) {
            p.lDongRegnCd = pick(["11", "26", "50", "28", "51", "42"])
            p.lDongSignguCd = pick(["110", "140", "", nil])
        }
        p.kakaoCategory = pick(["CE7", "FD6", "AT4", "", nil, nil])
        p.pet = pick(["all", "some", "no", nil, nil])
        if chance(0.1) { p.accessibility = Array(Set(p.accessibility + [pick(Accessibility.categories)])).sorted() }
    }

    /// The stored details (`--has-detail`), from the place's index so the other fields' draws stay as
    /// they were: a barrier-free detail on a third, a pet detail on a quarter (some of these with no pet
    /// level, as a detail whose acmpyTypeCd says none), and empty texts, which are no detail.
    private func details(_ p: inout Place, _ i: Int) {
        switch i % 6 {
        case 1, 4: p.barrierFree = #"{"wheelchair":"대여 가능"}"#
        case 5: p.barrierFree = ""
        default: break
        }
        switch i % 8 {
        case 2, 3: p.petInfo = #"{"acmpyTypeCd":"전구역 동반가능"}"#
        case 7: p.petInfo = i % 16 == 7 ? #"{"acmpyNeedMtr":"목줄"}"# : ""
        default: break
        }
    }

    static let cats = [
        ("A01", "A0101", "A01010100"), ("A05", "A0502", "A05020900"), ("A05", "A0502", "A05020100"),
        ("A02", "A0201", "A02010600"),
    ]
    static let lclss = [
        ("FD", "FD05", "FD050100"), ("FD", "FD01", "FD010100"), ("HS", "HS01", "HS010100"), ("NA", "NA01", "NA010100"),
    ]

    /// A random filter: each condition set with some probability.
    public mutating func filter() -> PlaceFilter {
        var f = PlaceFilter()
        if chance(0.3) { f.categories = Set((0..<int(1...3)).map { _ in pick(Self.categories) }) }
        if chance(0.15) { f.areacodes = Set([String(int(1...8)), String(int(1...8))]) }
        if chance(0.1) { f.sigungucodes = [String(int(1...20))] }
        if chance(0.15) { f.keyword = pick(["경", "공원", "cafe", "서울", "ㄱㅂㄱ", "Seoul"]) }
        if chance(0.15) {
            let a = Int64(int(2016...2024)) * 10_000_000_000 + 0101_000000
            f.created = a...(a + 20_000_000_000)
        }
        if chance(0.1) {
            let a = Int64(int(2016...2024)) * 10_000_000_000 + 0101_000000
            f.modified = a...Int64(20_251_231_235_959)
        }
        if chance(0.15) {
            let d = Int32(int(2024...2025) * 10000 + int(1...12) * 100 + int(1...25))
            f.eventPeriod = d...(d + Int32(int(0...3)))
        }
        if chance(0.2) { f.withImage = true }
        if chance(0.15) { f.accessibility = Array(Accessibility.tags.prefix(4).filter { _ in chance(0.4) }) }
        if chance(0.1) { f.accessibility.append(pick(Accessibility.categories)) }
        if chance(0.1) { f.pet = Set((0..<int(1...2)).map { _ in pick(PetFriendliness.levels) }) }
        if chance(0.1) {
            f.cat = Set((0..<int(1...2)).map { _ in pick(["A05", "A0502", "A05020900", "A01", "A01010100", "A0"]) })
        }
        if chance(0.1) { f.lcls = Set((0..<int(1...2)).map { _ in pick(["FD", "FD05", "HS01", "NA010100"]) }) }
        if chance(0.1) { f.ldong = Set((0..<int(1...2)).map { _ in pick(["11", "11110", "26", "51", "42140"]) }) }
        if chance(0.1) { f.kakaoCategories = Set((0..<int(1...2)).map { _ in pick(["CE7", "FD6", "AT4"]) }) }
        // Stored details from a generator of their own, seeded by the state here: the draws after this
        // filter stay as they were before the condition existed.
        var side = SplitMix64(seed: state ^ 0xD1B5_4A32_D192_ED03)
        if side.unit() < 0.08 { f.details = Set(PlaceDetail.Kind.allCases.filter { _ in side.unit() < 0.6 }) }
        if chance(0.15) {
            let c = pick(Self.centres)
            f.bbox = GeoBox(minLon: c.1 - 0.1, minLat: c.0 - 0.1, maxLon: c.1 + double(0...0.2), maxLat: c.0 + 0.1)
        }
        return f
    }

    public mutating func order(hasCentre: Bool) -> PlaceOrder {
        // Personal keys (rating, …) need a user's data: `PersonalQueryTests` draws those.
        var fields = SortField.allCases.filter { (hasCentre || $0 != .distance) && !$0.isPersonal }
        var keys: [SortKey] = []
        for _ in 0..<int(0...3) where !fields.isEmpty {
            let f = fields.remove(at: int(0...fields.count - 1))
            keys.append(SortKey(f, descending: chance(0.4)))
        }
        return PlaceOrder(keys)
    }

    /// A random query of every shape, around the generated places.
    public mutating func query(model: DistanceModel) -> PlaceQuery {
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
        if chance(0.15) { q.countsTotal = false }
        return q
    }
}
