/// Deterministic, generated tour places around real Korean towns: the default dataset and workloads
/// of any size. Everything but the town (its point, names and codes) is generated, not real.
///
/// - Positions: a town is drawn with weight 1/(area_km2 + 0.3), so small dense towns get more places
///   (as in ../shared/workload/make_dataset.py), then a point uniform in a disc of the town's radius
///   √(area/π) around its representative point, rounded to 7 decimals (1 cm); with a `RegionTest`,
///   inside the town's 시군구 (below).
/// - Category: TourAPI content types skewed like TourAPI's own counts: 39 30 %, 12 20 %, 38 12 %,
///   32 10 %, 14 10 %, 28 8 %, 15 6 %, 25 4 %.
/// - Title: the town's name, a category word and a varied part, with some Latin letters, digits and
///   mixed case so collation edge cases occur; `created ≤ modified` (`yyyyMMddHHmmss`, real calendar
///   dates 2004-01-01…2026-06-30); festivals (15) get `eventStart ≤ eventEnd` (`yyyyMMdd`);
///   `image` for about 60 %; 1–4 accessibility tags for about 30 %; `tel` for about half;
///   `addr` is the town's real address plus a generated lot number; `cat1`–`cat3` plausible for
///   the category word; `lDongRegnCd`/`lDongSignguCd` are the town's legal-dong code's digits 1–2 and
///   3–5, `areacode` TourAPI's areaCode of that 시도 (`TourAreaCode`), and `sigungucode` is left out
///   (TourAPI's sigunguCode has no mapping from legal-dong codes). The shared workload's TSV keeps its
///   own format, with the legal-dong prefixes in `areacode`/`sigungucode` (`SharedWorkload`).
///
/// Reproducible: place `id` is drawn from its own SplitMix64 stream seeded by (seed, id), with exact
/// IEEE arithmetic only (no libm, no platform formatting), so a place is the same on every platform
/// and does not depend on how many places are generated.
///
/// With a `RegionTest` (the region index's own check, `RegionIndex.placeTest` in NearbyRegions: what
/// `nearby import` warns by), a point outside its town's 시군구 — a disc reaches over a border or into
/// the sea — is drawn again, from a stream of its own (so nothing else about the place changes), up
/// to `redraws` times: every place's
/// `lDongRegnCd`/`lDongSignguCd` then agree with its coordinates. A town whose code no point agrees
/// with (the towns file keeps a few codes the boundaries have replaced) gets the codes of the region
/// its point lies in. The default dataset and `nearby generate` use it.
public struct PlaceGenerator: Sendable {
    /// Where the point (lat, lon) lies with respect to the region named by `lDongRegnCd` +
    /// `lDongSignguCd`.
    public typealias RegionTest =
        @Sendable (_ lat: Double, _ lon: Double, _ lDongRegnCd: String, _ lDongSignguCd: String) -> RegionAnswer

    /// A `RegionTest`'s answer.
    public enum RegionAnswer: Sendable, Equatable {
        /// In the region the codes name.
        case inside
        /// In another region, whose codes these are.
        case outside(lDongRegnCd: String, lDongSignguCd: String)
        /// At sea or abroad.
        case unplaced
    }

    public let towns: [KoreanTown]
    public let seed: UInt64
    /// Keeps points inside their town's region, when set.
    public let regions: RegionTest?
    /// Prefix sums of the town weights, for drawing a town by binary search.
    let cumulativeWeight: [Double]
    /// Degrees of longitude per km at each town's latitude.
    let lonDegreesPerKm: [Double]
    /// Per town, the text every place of it repeats (built once: most of the generator's time is text).
    let townText: [TownText]

    struct TownText: Sendable {
        var name, address: String
        /// TourAPI's areaCode of the town's 시도 (`TourAreaCode`), nil for a code it does not know.
        var areacode: String?
        var lDongRegnCd, lDongSignguCd: String
        var phonePrefix: String?
    }

    static let kmPerDegree = 111.32
    static let createdFrom = CivilDate.days(year: 2004, month: 1, day: 1)
    static let createdUntil = CivilDate.days(year: 2026, month: 1, day: 1)
    static let modifiedUntil = CivilDate.days(year: 2026, month: 7, day: 1)
    static let festivalsFrom = CivilDate.days(year: 2024, month: 1, day: 1)
    static let festivalsUntil = CivilDate.days(year: 2028, month: 1, day: 1)

    /// Points drawn again, at most, for a place whose first point is outside its town's region.
    static let redraws = 64

    public init(towns: [KoreanTown], seed: UInt64, regions: RegionTest? = nil) {
        precondition(!towns.isEmpty, "PlaceGenerator needs at least one town")
        self.towns = towns
        self.seed = seed
        self.regions = regions
        var sum = 0.0
        cumulativeWeight = towns.map {
            sum += 1 / ($0.areaKm2 + 0.3)
            return sum
        }
        lonDegreesPerKm = towns.map { 1 / (Self.kmPerDegree * Self.cosine(degrees: $0.lat)) }
        townText = towns.map { t in
            let sido = String(t.code.prefix(2))
            let sigungu = String(t.code.prefix(5))
            return TownText(
                name: t.name, address: t.address + " ", areacode: TourAreaCode.areaCode(legalDong: sido),
                lDongRegnCd: sido, lDongSignguCd: String(sigungu.suffix(3)), phonePrefix: Self.phonePrefix[sido])
        }
    }

    /// Places with ids 1...count.
    public func places(count: Int) -> [Place] {
        count <= 0 ? [] : (1...count).map(place)
    }

    /// The place with this id (≥ 1).
    public func place(_ id: Int) -> Place {
        var rng = SplitMix64(seed: Self.mix(seed ^ Self.mix(UInt64(id))))
        let t = pickTown(&rng)
        let text = townText[t]
        var (lat, lon) = point(t, &rng)
        var (areacode, regn, signgu) = (text.areacode, text.lDongRegnCd, text.lDongSignguCd)
        if let regions, case let first = regions(lat, lon, regn, signgu), first != .inside {
            var again = SplitMix64(seed: Self.mix(Self.mix(seed ^ Self.mix(UInt64(id))) ^ Self.redrawStream))
            var inside = false
            for _ in 0..<Self.redraws where !inside {
                let p = point(t, &again)
                inside = regions(p.lat, p.lon, regn, signgu) == .inside
                if inside { (lat, lon) = p }
            }
            if !inside {
                // A town whose code no point of its disc agrees with (a code the boundaries no longer
                // know, e.g. a county since made a city): the first point, or the town's own point
                // when that is at sea, with the codes of the region it lies in.
                var answer = first
                if first == .unplaced {
                    (lat, lon) = (Self.round7(towns[t].lat), Self.round7(towns[t].lon))
                    answer = regions(lat, lon, regn, signgu)
                }
                if case .outside(let r, let s) = answer {
                    (regn, signgu) = (r, s)
                    areacode = TourAreaCode.areaCode(legalDong: r)
                }
            }
        }

        let category = Self.categoryTable[Int(rng.below(100))]
        let kind = Self.kinds[category]!
        let word = kind.words[Int(rng.below(UInt64(kind.words.count)))]
        let title = makeTitle(name: text.name, category: category, word: word.name, rng: &rng)

        let createdSecond = Self.second(in: Self.createdFrom, Self.createdUntil, &rng)
        let modifiedSecond = createdSecond + Int(rng.below(UInt64(Self.modifiedUntil * 86_400 - createdSecond)))
        var place = Place(
            id: String(id), title: title, lat: lat, lon: lon, category: category,
            created: CivilDate.timestamp(second: createdSecond), modified: CivilDate.timestamp(second: modifiedSecond),
            areacode: areacode,
            addr: text.address + String(1 + rng.below(999)),
            cat1: kind.cat1, cat2: word.cat2, cat3: word.cat3,
            lDongRegnCd: regn, lDongSignguCd: signgu)
        if category == 15 {
            let start = Int(rng.below(UInt64(Self.festivalsUntil - Self.festivalsFrom))) + Self.festivalsFrom
            let length = Self.festivalLengths[Int(rng.below(UInt64(Self.festivalLengths.count)))]
            place.eventStart = CivilDate.date(day: start)
            place.eventEnd = CivilDate.date(day: start + length)
        }
        if rng.below(10) < 6 {
            place.image =
                "http://tong.visitkorea.or.kr/cms/resource/\(10 + rng.below(90))/"
                + "\(1_000_000 + rng.below(3_000_000))_image2_1.jpg"
        }
        if rng.below(10) < 3 {
            var mask: UInt32 = 0
            for _ in 0...rng.below(4) {
                mask |= 1 << Self.accessibilityDraw[Int(rng.below(UInt64(Self.accessibilityDraw.count)))]
            }
            place.accessibility = Self.tagsByName.filter { mask & (1 << $0) != 0 }.map { Accessibility.tags[$0] }
        }
        if rng.below(2) == 0, let prefix = text.phonePrefix {
            place.tel = "\(prefix)-\(100 + rng.below(9_900))-\(Self.pad(Int(rng.below(10_000)), 4))"
        }
        return place
    }

    // MARK: - Drawing

    /// Tells the stream of a place's redrawn points from its main stream.
    static let redrawStream: UInt64 = 0x5245_4452_4157_5054

    /// A point uniform in the disc of town `t`'s radius √(area/π) around its representative point,
    /// rounded to 7 decimals.
    func point(_ t: Int, _ rng: inout SplitMix64) -> (lat: Double, lon: Double) {
        let town = towns[t]
        let r = (town.areaKm2 / Double.pi).squareRoot()
        var x = 0.0
        var y = 0.0
        repeat {
            x = 2 * rng.unit() - 1
            y = 2 * rng.unit() - 1
        } while x * x + y * y > 1
        return (Self.round7(town.lat + r * y / Self.kmPerDegree), Self.round7(town.lon + r * x * lonDegreesPerKm[t]))
    }

    func pickTown(_ rng: inout SplitMix64) -> Int {
        let u = rng.unit() * cumulativeWeight[cumulativeWeight.count - 1]
        var lo = 0
        var hi = cumulativeWeight.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if cumulativeWeight[mid] > u { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    func makeTitle(name: String, category: Int, word: String, rng: inout SplitMix64) -> String {
        func any(_ list: [String]) -> String { list[Int(rng.below(UInt64(list.count)))] }
        if category == 15 {
            switch rng.below(4) {
            case 0: return "제\(1 + rng.below(40))회 \(name) \(word)"
            case 1: return "\(2010 + rng.below(17)) \(name) \(word)"
            case 2: return "\(name) \(any(Self.nameParts)) \(word)"
            default: return "\(name) \(word)"
            }
        }
        switch rng.below(10) {
        case 0...2: return "\(name) \(word)"
        case 3...4: return "\(any(Self.nameParts)) \(word)"
        case 5: return "\(name) \(word) \(1 + rng.below(12))호점"
        case 6: return "\(any(Self.latinParts)) \(word)"
        case 7: return "\(name) \(any(Self.latinParts)) \(word)"
        case 8: return "\(any(Self.nameParts))\(word) \(name)점"
        default: return "\(name)\(word) \(1 + rng.below(999))"
        }
    }

    /// A second (since 1970-01-01, Korean wall-clock time) in the days [from, until).
    static func second(in from: Int, _ until: Int, _ rng: inout SplitMix64) -> Int {
        from * 86_400 + Int(rng.below(UInt64((until - from) * 86_400)))
    }

    /// SplitMix64's output function (a bijective 64-bit mixer), to seed one stream per place.
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    static func round7(_ v: Double) -> Double { (v * 1e7).rounded() / 1e7 }

    /// cos of an angle in degrees by its Taylor series to x¹²: exact IEEE operations in a fixed order,
    /// so the same bits on every platform (libm's cos may differ in the last bit). Error < 5e-13 for
    /// |angle| ≤ 45°, where Korea lies.
    static func cosine(degrees: Double) -> Double {
        let x = degrees * (Double.pi / 180)
        let x2 = x * x
        return 1 - x2 / 2 * (1 - x2 / 12 * (1 - x2 / 30 * (1 - x2 / 56 * (1 - x2 / 90 * (1 - x2 / 132)))))
    }

    static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    // MARK: - Vocabulary (generated-data flavour, not real places)

    /// 100 entries: each content type as many times as its percentage.
    static let categoryTable: [Int] = [(39, 30), (12, 20), (38, 12), (32, 10), (14, 10), (28, 8), (15, 6), (25, 4)]
        .flatMap { Array(repeating: $0.0, count: $0.1) }

    struct Word: Sendable {
        var name: String
        var cat2: String
        var cat3: String
    }
    struct Kind: Sendable {
        var cat1: String
        var words: [Word]
    }

    /// Category words with TourAPI-like service categories (cat1 large, cat2 middle, cat3 small).
    static let kinds: [Int: Kind] = [
        12: Kind(
            cat1: "A01",
            words: [
                Word(name: "전망대", cat2: "A0101", cat3: "A01010100"), Word(name: "공원", cat2: "A0101", cat3: "A01010500"),
                Word(name: "계곡", cat2: "A0101", cat3: "A01010900"),
                Word(name: "해수욕장", cat2: "A0101", cat3: "A01011200"),
                Word(name: "폭포", cat2: "A0101", cat3: "A01010800"), Word(name: "수목원", cat2: "A0101", cat3: "A01010700"),
                Word(name: "둘레길", cat2: "A0101", cat3: "A01010400"),
                Word(name: "관광지", cat2: "A0101", cat3: "A01010100"),
            ]),
        14: Kind(
            cat1: "A02",
            words: [
                Word(name: "박물관", cat2: "A0206", cat3: "A02060100"),
                Word(name: "미술관", cat2: "A0206", cat3: "A02060500"),
                Word(name: "도서관", cat2: "A0206", cat3: "A02060900"),
                Word(name: "문화센터", cat2: "A0206", cat3: "A02061100"),
                Word(name: "기념관", cat2: "A0206", cat3: "A02060200"),
                Word(name: "공연장", cat2: "A0206", cat3: "A02060600"),
            ]),
        15: Kind(
            cat1: "A02",
            words: [
                Word(name: "축제", cat2: "A0207", cat3: "A02070200"), Word(name: "문화제", cat2: "A0207", cat3: "A02070100"),
                Word(name: "페스티벌", cat2: "A0207", cat3: "A02070200"),
                Word(name: "한마당", cat2: "A0207", cat3: "A02070200"),
                Word(name: "불빛축제", cat2: "A0207", cat3: "A02070200"),
                Word(name: "Festival", cat2: "A0207", cat3: "A02070200"),
            ]),
        25: Kind(
            cat1: "C01",
            words: [
                Word(name: "여행코스", cat2: "C0112", cat3: "C01120001"),
                Word(name: "도보여행", cat2: "C0115", cat3: "C01150001"),
                Word(name: "자전거길", cat2: "C0114", cat3: "C01140001"),
                Word(name: "힐링코스", cat2: "C0113", cat3: "C01130001"),
            ]),
        28: Kind(
            cat1: "A03",
            words: [
                Word(name: "캠핑장", cat2: "A0302", cat3: "A03021700"),
                Word(name: "수영장", cat2: "A0302", cat3: "A03020700"),
                Word(name: "골프장", cat2: "A0302", cat3: "A03020700"),
                Word(name: "승마장", cat2: "A0302", cat3: "A03021000"),
                Word(name: "카약체험장", cat2: "A0303", cat3: "A03030500"),
                Word(name: "짚라인", cat2: "A0302", cat3: "A03022700"),
            ]),
        32: Kind(
            cat1: "B02",
            words: [
                Word(name: "펜션", cat2: "B0201", cat3: "B02010700"), Word(name: "호텔", cat2: "B0201", cat3: "B02010100"),
                Word(name: "게스트하우스", cat2: "B0201", cat3: "B02011100"),
                Word(name: "민박", cat2: "B0201", cat3: "B02010900"),
                Word(name: "리조트", cat2: "B0201", cat3: "B02010500"),
                Word(name: "한옥스테이", cat2: "B0201", cat3: "B02011600"),
            ]),
        38: Kind(
            cat1: "A04",
            words: [
                Word(name: "전통시장", cat2: "A0401", cat3: "A04010200"),
                Word(name: "상점가", cat2: "A0401", cat3: "A04010300"),
                Word(name: "아울렛", cat2: "A0401", cat3: "A04010400"),
                Word(name: "기념품점", cat2: "A0401", cat3: "A04010600"),
                Word(name: "오일장", cat2: "A0401", cat3: "A04010100"),
            ]),
        39: Kind(
            cat1: "A05",
            words: [
                Word(name: "식당", cat2: "A0502", cat3: "A05020100"), Word(name: "국밥", cat2: "A0502", cat3: "A05020100"),
                Word(name: "칼국수", cat2: "A0502", cat3: "A05020100"), Word(name: "횟집", cat2: "A0502", cat3: "A05020100"),
                Word(name: "갈비", cat2: "A0502", cat3: "A05020100"), Word(name: "카페", cat2: "A0502", cat3: "A05020900"),
                Word(name: "cafe", cat2: "A0502", cat3: "A05020900"),
                Word(name: "Café", cat2: "A0502", cat3: "A05020900"),
                Word(name: "분식", cat2: "A0502", cat3: "A05020100"),
                Word(name: "베이커리", cat2: "A0502", cat3: "A05020900"),
                Word(name: "Pizza", cat2: "A0502", cat3: "A05020400"),
                Word(name: "음식점", cat2: "A0502", cat3: "A05020100"),
            ]),
    ]

    static let nameParts = [
        "푸른", "행복한", "하늘", "솔바람", "별빛", "바다", "느티나무", "햇살", "들꽃", "산들", "해오름", "달빛",
        "소나무", "옛날", "우리", "참", "새", "큰", "작은", "뜰", "한울", "가온",
    ]
    static let latinParts = [
        "Blue", "blue", "BLUE", "The 숲", "K-", "No.1", "ONE", "Hill", "art", "mini", "24시", "1st", "B&B", "Jeju",
        "Ocean View", "ㄱ자", "(주)",
    ]
    /// Festival lengths in days after the first day: mostly short, some a month or two.
    static let festivalLengths = [0, 1, 2, 2, 3, 3, 6, 9, 14, 30, 59]
    /// Tag indices to draw from: the facility tags (not the visitor groups, which follow from them),
    /// the first four (wheelchair, elevator, restroom, parking) four times as likely as the rest.
    static let accessibilityDraw: [UInt32] = Accessibility.tags.indices
        .filter { !Accessibility.categories.contains(Accessibility.tags[$0]) }
        .flatMap { Array(repeating: UInt32($0), count: $0 < 4 ? 4 : 1) }
    /// Tag indices in name order, the order `Place.accessibility` keeps.
    static let tagsByName: [Int] = Accessibility.tags.indices.sorted { Accessibility.tags[$0] < Accessibility.tags[$1] }
    /// Telephone area codes by province code.
    static let phonePrefix: [String: String] = [
        "11": "02", "26": "051", "27": "053", "28": "032", "29": "062", "30": "042", "31": "052", "36": "044",
        "41": "031", "42": "033", "51": "033", "43": "043", "44": "041", "45": "063", "52": "063", "46": "061",
        "47": "054", "48": "055", "50": "064",
    ]
}

/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), in integers.
///
/// Source: H. Hinnant, "chrono-Compatible Low-Level Date Algorithms" (days_from_civil and
/// civil_from_days), exact for every date in range.
public enum CivilDate {
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian date `day` days after 1970-01-01 (before it when negative).
    public static func civil(day: Int) -> (year: Int, month: Int, day: Int) {
        let z = day + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// `yyyyMMdd`.
    static func date(day: Int) -> String {
        digits(civil(day: day), nil)
    }

    /// `yyyyMMddHHmmss`.
    static func timestamp(second: Int) -> String {
        digits(civil(day: second / 86_400), second % 86_400)
    }

    /// The date, and the time of day when given, as fixed-width decimal digits.
    private static func digits(_ c: (year: Int, month: Int, day: Int), _ time: Int?) -> String {
        var fields = [(c.year, 4), (c.month, 2), (c.day, 2)]
        if let t = time { fields += [(t / 3600, 2), (t / 60 % 60, 2), (t % 60, 2)] }
        return String(unsafeUninitializedCapacity: time == nil ? 8 : 14) { buf in
            var end = 0
            for (v, width) in fields {
                var v = v
                end += width
                for i in stride(from: end - 1, through: end - width, by: -1) {
                    buf[i] = UInt8(48 + v % 10)
                    v /= 10
                }
            }
            return end
        }
    }
}

extension PlaceGenerator {
    /// TSV columns: the benchmark workload's (../shared/workload/README.md) first, then the rest.
    /// `accessibility` is `;`-separated, as the TSV importer reads it; a missing field is empty.
    public static let tsvColumns = [
        "id", "lat", "lon", "category", "title", "created", "modified", "areacode", "sigungucode",
        "addr", "tel", "image", "cat1", "cat2", "cat3", "eventStart", "eventEnd", "accessibility",
        "lDongRegnCd", "lDongSignguCd",
    ]

    /// Appends one generated place as a TSV line (with its newline). Generated text never holds a tab
    /// or newline, so no quoting is needed.
    public static func appendTSV(_ p: Place, to out: inout [UInt8]) {
        func text(_ s: String?) {
            out.append(0x09)
            if let s { out.append(contentsOf: s.utf8) }
        }
        out.append(contentsOf: p.id.utf8)
        out.append(0x09)
        JSONNumber.append(p.lat, to: &out)
        out.append(0x09)
        JSONNumber.append(p.lon, to: &out)
        out.append(0x09)
        JSONNumber.append(p.category, to: &out)
        text(p.title)
        text(p.created)
        text(p.modified)
        text(p.areacode)
        text(p.sigungucode)
        text(p.addr)
        text(p.tel)
        text(p.image)
        text(p.cat1)
        text(p.cat2)
        text(p.cat3)
        text(p.eventStart)
        text(p.eventEnd)
        out.append(0x09)
        for (i, tag) in p.accessibility.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ";")) }
            out.append(contentsOf: tag.utf8)
        }
        text(p.lDongRegnCd)
        text(p.lDongSignguCd)
        out.append(0x0A)
    }
}
