import Foundation

/// A TourAPI place as the replay server keeps it: its list item's fields in TourAPI's order and
/// spelling (every value a string), whether it is hidden (`showflag` 0), the id it replaced, and its
/// details.
public struct ReplayPlace: Sendable {
    public var fields: [(String, String)]
    public var hidden = false
    public var oldContentid: String?
    public var overview: String?
    /// `detailWithTour2` item fields, `contentid` included.
    public var barrierFree: [(String, String)]?
    /// `detailPetTour2` item fields, `contentid` included.
    public var pet: [(String, String)]?

    public init(fields: [(String, String)]) { self.fields = fields }

    public var id: String { self["contentid"] ?? "" }

    public subscript(key: String) -> String? {
        get { fields.first { $0.0 == key }?.1 }
        set {
            if let i = fields.firstIndex(where: { $0.0 == key }) {
                if let newValue { fields[i].1 = newValue } else { fields.remove(at: i) }
            } else if let newValue {
                fields.append((key, newValue))
            }
        }
    }

    /// The list item: `areaBasedList2`'s fields, and in a sync list `showflag` and `oldContentid`.
    func item(sync: Bool) -> [(String, String)] {
        guard sync else { return fields }
        return fields + [("showflag", hidden ? "0" : "1")] + (oldContentid.map { [("oldContentid", $0)] } ?? [])
    }

    /// `detailCommon2`'s item: the common fields and the overview.
    var commonItem: [(String, String)] {
        fields + [("overview", overview ?? ""), ("homepage", "")]
    }
}

/// A Kakao Local document.
public struct ReplayKakaoDocument: Sendable {
    public var fields: [(String, String)]
    public var group: String
    public var x: Double
    public var y: Double

    public init(fields: [(String, String)]) {
        self.fields = fields
        group = fields.first { $0.0 == "category_group_code" }?.1 ?? ""
        x = Double(fields.first { $0.0 == "x" }?.1 ?? "") ?? 0
        y = Double(fields.first { $0.0 == "y" }?.1 ?? "") ?? 0
    }
}

/// One code of a code list (`ReplayCatalog.codeLists`): its level in the list's tree, the code, its name
/// and the code of the level above ("" at level 1).
public struct ReplayCode: Sendable, Equatable {
    public var level: Int
    public var code: String
    public var name: String
    public var parent: String

    public init(level: Int, code: String, name: String, parent: String = "") {
        self.level = level
        self.code = code
        self.name = name
        self.parent = parent
    }
}

/// What the replay server serves: TourAPI places by content id, code lists, and Kakao documents.
public struct ReplayCatalog: Sendable {
    public private(set) var places: [String: ReplayPlace] = [:]
    /// The code lists by operation (`areaCode2`, `categoryCode2`, `ldongCode2`, `lclsSystmCode2`), each in
    /// the service's order (a code, then those under it); a list not here answers the empty page.
    public var codeLists: [String: [ReplayCode]] = [:]
    public var kakao: [ReplayKakaoDocument] = []
    private var order = OrderBox()

    public init() {}

    /// Places as `areaBasedList2` with `arrange=C` lists them: newest `modifiedtime` first, then the
    /// larger content id (as numbers when both are).
    var ordered: [ReplayPlace] {
        if let done = order.places { return done }
        let sorted = places.values.sorted { a, b in
            let (ma, mb) = (a["modifiedtime"] ?? "", b["modifiedtime"] ?? "")
            if ma != mb { return ma > mb }
            if let x = Int(a.id), let y = Int(b.id) { return x > y }
            return a.id > b.id
        }
        order.places = sorted
        return sorted
    }

    /// Adds or replaces a place.
    public mutating func put(_ place: ReplayPlace) {
        order = OrderBox()
        places[place.id] = place
    }

    public mutating func remove(_ id: String) {
        order = OrderBox()
        places[id] = nil
    }

    /// Changes a place as its publisher would: `body` edits it, and its `modifiedtime` becomes `now`.
    public mutating func change(_ id: String, now: String = ReplayCatalog.now(), _ body: (inout ReplayPlace) -> Void) {
        guard var place = places[id] else { return }
        body(&place)
        place["modifiedtime"] = now
        put(place)
    }

    /// Hides a place (`showflag` 0 from now on).
    public mutating func hide(_ id: String, now: String = ReplayCatalog.now()) {
        change(id, now: now) { $0.hidden = true }
    }

    /// Gives a place a new content id (the sync list names the old one in `oldContentid`).
    public mutating func rename(_ id: String, to newID: String, now: String = ReplayCatalog.now()) {
        guard var place = places[id] else { return }
        remove(id)
        place["contentid"] = newID
        place.oldContentid = id
        place.barrierFree = place.barrierFree.map { [("contentid", newID)] + $0.filter { $0.0 != "contentid" } }
        place.pet = place.pet.map { [("contentid", newID)] + $0.filter { $0.0 != "contentid" } }
        place["modifiedtime"] = now
        put(place)
    }

    /// What `churn` did.
    public struct Churn: Sendable, Equatable {
        public var changed = 0, hidden = 0, added = 0
        public init(changed: Int = 0, hidden: Int = 0, added: Int = 0) {
            (self.changed, self.hidden, self.added) = (changed, hidden, added)
        }
    }

    /// `count` changes as a day of publishing makes them, the same for the same catalog: of every ten,
    /// one place hidden (`showflag` 0), one added (ids after the largest, generated with `seed`) and
    /// eight changed (their telephone number); the places changed and hidden spread evenly over the
    /// shown places in id order. Each is dated `now`.
    @discardableResult
    public mutating func churn(_ count: Int, seed: UInt64 = 11, now: String = ReplayCatalog.now()) -> Churn {
        let shown = places.values.filter { !$0.hidden }.map(\.id).sorted {
            (Int($0) ?? .max, $0) < (Int($1) ?? .max, $1)
        }
        var done = Churn()
        guard count > 0 else { return done }
        done.hidden = min(count / 10, shown.count)
        done.added = count / 10
        done.changed = min(count - done.hidden - done.added, shown.count - done.hidden)
        let picked = done.changed + done.hidden
        for n in 0..<picked {
            let id = shown[n * shown.count / picked]
            if (n + 1) * done.hidden / picked > n * done.hidden / picked {
                hide(id, now: now)
            } else {
                change(id, now: now) { $0["tel"] = "02-999-\(1000 + n % 9000)" }
            }
        }
        let first = (places.keys.compactMap { Int($0) }.max() ?? 3_000_000) + 1
        let extra = ReplayCatalog.generated(count: done.added, seed: seed, firstID: first)
        for var place in extra.places.values {
            place["modifiedtime"] = now
            put(place)
        }
        return done
    }

    /// The time now in Korea, `yyyyMMddHHmmss`, as TourAPI writes `modifiedtime`.
    public static func now() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 9 * 3600)
        formatter.dateFormat = "yyyyMMddHHmmss"
        return formatter.string(from: Date())
    }

    /// `count` places of TourAPI's list shape, the same for the same `seed`: spread over South Korea's
    /// mainland box, every content type, dated in 2024, ids from 3,000,001; every fifth has a
    /// barrier-free detail and every seventh a pet detail.
    public static func generated(count: Int, seed: UInt64 = 1, firstID: Int = 3_000_001) -> ReplayCatalog {
        var catalog = ReplayCatalog()
        var state = seed
        func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        let types = ["12", "14", "15", "25", "28", "32", "38", "39"]
        for n in 0..<count {
            let id = String(firstID + n)
            let lat = 34.8 + next() * 2.9
            let lon = 126.6 + next() * 2.6
            let month = 1 + n % 12
            let day = 1 + n % 28
            let created = String(format: "2023%02d%02d%02d%02d00", month, day, n % 24, n % 60)
            let modified = String(format: "2024%02d%02d%02d%02d%02d", month, day, n % 24, (n / 24) % 60, n % 60)
            var place = ReplayPlace(fields: [
                ("addr1", "테스트로 \(n + 1)"), ("addr2", ""), ("areacode", ""), ("cat1", ""), ("cat2", ""),
                ("cat3", ""), ("contentid", id), ("contenttypeid", types[n % types.count]),
                ("createdtime", created), ("firstimage", ""), ("firstimage2", ""), ("cpyrhtDivCd", ""),
                ("mapx", String(format: "%.10f", lon)), ("mapy", String(format: "%.10f", lat)), ("mlevel", "6"),
                ("modifiedtime", modified), ("sigungucode", ""), ("tel", "02-000-\(1000 + n % 9000)"),
                ("title", "장소 \(n + 1)"), ("zipcode", ""), ("lDongRegnCd", ""), ("lDongSignguCd", ""),
                ("lclsSystm1", ""), ("lclsSystm2", ""), ("lclsSystm3", ""),
            ])
            place.overview = "장소 \(n + 1)의 소개"
            if n % 5 == 0 {
                place.barrierFree = [("contentid", id), ("parking", "장애인 주차구역 있음"), ("wheelchair", "대여 가능")]
            }
            if n % 7 == 0 { place.pet = [("contentid", id), ("acmpyTypeCd", "일부구역 동반가능")] }
            catalog.put(place)
        }
        return catalog
    }

    /// Adds the code lists of a file of tab-separated `list`, `level`, `code`, `name`, `parent` lines
    /// (a header line first), each list's codes in the file's order.
    public mutating func addCodeLists(fromFile path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 5, let level = Int(f[1]) else { throw CocoaError(.fileReadCorruptFile) }
            codeLists[f[0], default: []].append(ReplayCode(level: level, code: f[2], name: f[3], parent: f[4]))
        }
    }

    /// Adds the TourAPI list items of a JSON file (a response, a bare array of items): each object with
    /// `contentid`, `mapx` and `mapy`, its string values kept in order.
    public mutating func addPlaces(fromFile path: String) throws {
        for object in try Self.objects(inFile: path) where object.contains(where: { $0.0 == "mapx" }) {
            put(ReplayPlace(fields: object))
        }
    }

    /// Attaches the `detailWithTour2` items of a JSON file to their places.
    public mutating func addBarrierFree(fromFile path: String) throws {
        for object in try Self.objects(inFile: path) {
            guard let id = object.first(where: { $0.0 == "contentid" })?.1, var place = places[id] else { continue }
            place.barrierFree = object
            put(place)
        }
    }

    /// Attaches the `detailPetTour2` items of a file (JSON, or one item a line) to their places.
    public mutating func addPet(fromFile path: String) throws {
        for object in try Self.objects(inFile: path) {
            guard let id = object.first(where: { $0.0 == "contentid" })?.1, var place = places[id] else { continue }
            place.pet = object
            put(place)
        }
    }

    /// Adds the Kakao documents of a file of category or keyword responses (one document, or one a line).
    public mutating func addKakao(fromFile path: String) throws {
        for object in try Self.objects(inFile: path) where object.contains(where: { $0.0 == "place_name" }) {
            kakao.append(ReplayKakaoDocument(fields: object))
        }
    }

    /// `count` Kakao documents of `group` in the box, the same for the same seed: spread evenly, or with
    /// `centres`, as a city's are: three in ten spread evenly and the rest around that many centres
    /// (each a normal spread of 5 to 20 % of the box's width, some centres busier than others).
    public mutating func addGeneratedKakao(
        count: Int, group: String, minX: Double, minY: Double, maxX: Double, maxY: Double, seed: UInt64 = 7,
        firstID: Int = 900_000_001, centres: Int = 0
    ) {
        var state = seed
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let hubs = (0..<centres).map { _ in
            (
                x: minX + next() * (maxX - minX), y: minY + next() * (maxY - minY),
                spread: (0.05 + next() * 0.15) * (maxX - minX), weight: 0.2 + next()
            )
        }
        let weights = hubs.reduce(0) { $0 + $1.weight }
        /// A point of the box: near a centre (Box–Muller, again until it falls in the box) or anywhere.
        func point() -> (Double, Double) {
            guard !hubs.isEmpty, next() >= 0.3 else {
                return (minX + next() * (maxX - minX), minY + next() * (maxY - minY))
            }
            var pick = next() * weights
            let hub =
                hubs.first {
                    pick -= $0.weight
                    return pick <= 0
                } ?? hubs[hubs.count - 1]
            while true {
                let r = (-2 * log(max(next(), 1e-300))).squareRoot()
                let angle = 2 * Double.pi * next()
                let (x, y) = (hub.x + hub.spread * r * cos(angle), hub.y + hub.spread * r * sin(angle))
                if (minX...maxX).contains(x), (minY...maxY).contains(y) { return (x, y) }
            }
        }
        for n in 0..<count {
            let (x, y) = point()
            kakao.append(
                ReplayKakaoDocument(fields: [
                    ("id", String(firstID + n)), ("place_name", "\(group) \(n + 1)"),
                    ("category_name", group), ("category_group_code", group), ("category_group_name", group),
                    ("phone", ""), ("address_name", "주소 \(n + 1)"), ("road_address_name", ""),
                    ("x", String(format: "%.7f", x)), ("y", String(format: "%.7f", y)),
                    ("place_url", "http://place.map.kakao.com/\(firstID + n)"),
                ]))
        }
    }

    /// Every JSON object with string values in the file (a document, or one document a line) that has
    /// `contentid` or `place_name`, at any depth; values that are not strings or numbers are left out.
    static func objects(inFile path: String) throws -> [[(String, String)]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var documents: [Any] = []
        if let whole = try? JSONSerialization.jsonObject(with: data) {
            documents = [whole]
        } else {
            for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
                documents.append(try JSONSerialization.jsonObject(with: Data(line)))
            }
        }
        var out: [[(String, String)]] = []
        func walk(_ value: Any, raw: Data?) {
            if let array = value as? [Any] {
                for v in array { walk(v, raw: nil) }
            } else if let object = value as? [String: Any] {
                if object["contentid"] != nil || object["place_name"] != nil {
                    var fields: [(String, String)] = []
                    for key in object.keys.sorted() {
                        if let s = object[key] as? String {
                            fields.append((key, s))
                        } else if let n = object[key] as? NSNumber {
                            fields.append((key, n.stringValue))
                        }
                    }
                    out.append(fields)
                } else {
                    for key in object.keys.sorted() { walk(object[key]!, raw: nil) }
                }
            }
        }
        for d in documents { walk(d, raw: nil) }
        return out
    }
}

/// The cached order of a catalog's places; a change makes a new box, so copies never share a stale order.
private final class OrderBox: @unchecked Sendable {
    // @unchecked: filled once, under the server's lock or by the catalog's only owner.
    var places: [ReplayPlace]?
}
