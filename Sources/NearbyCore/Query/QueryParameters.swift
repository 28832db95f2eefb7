import Foundation

/// The one request parser: text parameters → `PlaceQuery`, for the command line (`--lat 37.5`), batch
/// files (`{"lat":37.5}`, the workload TSV) and HTTP query strings (`?lat=37.5`) alike.
///
/// `all` is the field list. `parse` reads it; `render` writes a query back in the same names (its
/// inverse: `parse(render(q)) == q`); the cursor fingerprint hashes `render`, so every parameter a
/// query can carry is part of the fingerprint without a second list to keep in step.
///
/// Rules that hold for a `PlaceQuery` however it was made (ranges, a radius needs a centre, …) live in
/// `PlaceQuery.problem` and are checked here by calling it; only rules about the text itself (a number
/// that is not one, `lat` without `lon`, `sort` with `arrange`) are this type's own.
public enum QueryParameters {
    /// One parameter a query takes.
    public struct Parameter: Sendable {
        /// Its name everywhere: `--name` on the command line, the key of a batch JSON line, the HTTP name.
        public let name: String
        /// What to give, for help texts (`degrees`, `ids`).
        public let valueName: String
        public let help: String
        /// A list: repeated values add up (`--category 12 --category 39` = `12,39`); otherwise a
        /// repeated parameter is an error outside the command line.
        public let isList: Bool
        /// A switch without a value (`--with-image`); as text, `true`/`false`.
        public let isFlag: Bool
        /// Its value may start with `-` (coordinates, a descending sort, a cursor).
        public let mayBeNegative: Bool

        init(
            _ name: String, _ valueName: String, _ help: String, list: Bool = false, flag: Bool = false,
            negative: Bool = false
        ) {
            self.name = name
            self.valueName = valueName
            self.help = help
            isList = list
            isFlag = flag
            mayBeNegative = negative
        }
    }

    /// Rows per page when a request does not say (TourAPI's `numOfRows` default; Kakao's is 15).
    public static let defaultLimit = 10

    /// Every parameter, in help order.
    public static let all: [Parameter] = [
        Parameter("lat", "degrees", "Latitude of the centre, WGS84 degrees (-90…90).", negative: true),
        Parameter("lon", "degrees", "Longitude of the centre, WGS84 degrees (-180…180).", negative: true),
        Parameter(
            "radius", "metres", "Places within this many metres of the centre (with knn: the maximum distance).",
            negative: true),
        Parameter("knn", "k", "The k nearest places that pass the filters (ties by id).", negative: true),
        Parameter(
            "bbox", "minLon,minLat,maxLon,maxLat", "Only places in this box; minLon > maxLon crosses the antimeridian.",
            negative: true),
        Parameter(
            "category", "ids",
            "Content type ids, e.g. 12,39 (12 tourist spot, 14 culture, 15 festival, 25 course, 28 leisure, 32 lodging, 38 shopping, 39 food); repeats add up.",
            list: true, negative: true),
        Parameter(
            "areacode", "codes",
            "TourAPI areaCode: 1 서울, 2 인천, 3 대전, 4 대구, 5 광주, 6 부산, 7 울산, 8 세종, 31 경기, 32 강원, 33 충북, 34 충남, 35 경북, 36 경남, 37 전북, 38 전남, 39 제주 (legal-dong codes such as 11 go to --ldong); repeats add up.",
            list: true),
        Parameter("sigungucode", "codes", "TourAPI sigungu codes, comma-separated; repeats add up.", list: true),
        Parameter(
            "region", "name|code",
            "Only places inside this administrative region, by its boundary: 종로구, '서울 종로구', 11110 (시군구), 11 (시도); old codes too. Repeats add up.",
            list: true),
        Parameter(
            "keyword", "text",
            "Text the title contains: case-insensitive, Unicode-normalised; initial consonants match syllables (ㄱㅂㄱ finds 경복궁).",
            negative: true),
        Parameter("created-since", "date", "Created on or after (yyyyMMdd, yyyy-MM-dd or yyyyMMddHHmmss)."),
        Parameter("created-until", "date", "Created on or before (a day includes all of it)."),
        Parameter("modified-since", "date", "Modified on or after."),
        Parameter("modified-until", "date", "Modified on or before (a day includes all of it)."),
        Parameter("date", "date", "Festivals running on this day (yyyyMMdd or yyyy-MM-dd)."),
        Parameter("from", "date", "Festivals running on some day from this one (with to)."),
        Parameter("to", "date", "Festivals running on some day up to this one (with from)."),
        Parameter("during", "from,to", "Festivals overlapping this period: from and to in one."),
        Parameter("with-image", "", "Only places with an image.", flag: true),
        Parameter(
            "accessible", "tags",
            "Required accessibility tags, all of them: \(Accessibility.tags.joined(separator: ", ")).", list: true),
        Parameter(
            "sort", "keys",
            "Sort keys: distance, title, created, modified, category, and the user's rating, bookmarked (time added), memo (updated), visited (last visit); - in front for descending, e.g. title,-modified. Ties: id. Default: distance with a centre, else id.",
            negative: true),
        Parameter(
            "arrange", "code",
            "TourAPI arrange code: A title, C modified (newest first), D created (newest first), E distance; O/Q/R/S = A/C/D/E with an image only."
        ),
        Parameter(
            "limit", "n", "Rows per page (TourAPI numOfRows); default \(defaultLimit); 0 = every match.", negative: true
        ),
        Parameter("page", "n", "Page number from 1 (TourAPI pageNo).", negative: true),
        Parameter("cursor", "cursor", "Resume after the last row of a previous page (its nextCursor).", negative: true),
        Parameter(
            "distance", "model",
            "haversine (default), geodesic, projected (EPSG:5179), projected:EPSG:nnnn or projected:utm."),
        Parameter(
            "cat", "codes",
            "TourAPI cat1/cat2/cat3 codes; a code finds its sub-codes (A05 food, A05020900 cafés). Repeats add up.",
            list: true),
        Parameter(
            "lcls", "codes", "KorService2 lclsSystm1/2/3 codes, as cat (FD food, FD05 cafés…). Repeats add up.",
            list: true),
        Parameter(
            "ldong", "codes",
            "Legal-dong codes: lDongRegnCd (11) or lDongRegnCd+lDongSignguCd (11110); old codes too. Repeats add up.",
            list: true),
        Parameter(
            "kakao-category", "codes",
            "Kakao category_group_code: FD6 food, CE7 café, AT4 sights, AD5 stay, CT1 culture…; repeats add up.",
            list: true),
        Parameter(
            "pet", "levels",
            "Pet-friendliness from TourAPI's detailPetTour2: all (everywhere), some (some areas), no; repeats add up.",
            list: true),
        Parameter(
            "has-detail", "kinds",
            "Only places the cache holds a TourAPI detail of, every kind given: barrier-free (detailWithTour2), pet (detailPetTour2); repeats add up.",
            list: true),
        Parameter(
            "total", "exact|none",
            "exact (default): the answer's total counts every match; none: no total (null), so a sorted page stops once it is full instead of counting the rest."
        ),
        Parameter(
            "explain", "",
            "Report the plan (spatial index first, order walk, column scan, statistics) and the rows it read.",
            flag: true),
        Parameter(
            "lang", "code",
            "The language of the places: ko (default), or one synced from TourAPI's language services: en, ja, zh-CN, zh-TW, de, fr, es, ru. Their titles and addresses; --category keeps the Korean content type ids."
        ),
        Parameter("user", "name", "Whose bookmarks, ratings, memos, visits and history the query reads (default me)."),
        Parameter("bookmarked", "", "Only places the user bookmarked, in any list.", flag: true),
        Parameter("bookmarked-in", "list", "Only places the user bookmarked in this list."),
        Parameter("min-rating", "stars", "Only places the user rated at least this (1…5)."),
        Parameter("has-memo", "", "Only places the user wrote a memo about.", flag: true),
        Parameter("visited", "", "Only places the user visited.", flag: true),
        Parameter("not-visited", "", "Only places the user never visited.", flag: true),
        Parameter(
            "keyword-in", "fields",
            "Where the keyword is looked for: title (the default), memo (the user's memo), or title,memo.", list: true
        ),
        Parameter("no-history", "", "Do not record the keyword in the user's search history.", flag: true),
    ]

    private static let byName: [String: Parameter] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The parameter called `name`, also in camelCase (`withImage`, `createdSince`), as JSON keys often are.
    public static func parameter(named name: String) -> Parameter? {
        if let p = byName[name] { return p }
        var kebab = ""
        for ch in name {
            if ch.isUppercase { kebab += "-" + ch.lowercased() } else { kebab.append(ch) }
        }
        return byName[kebab]
    }

    /// Parses `(name, value)` pairs (names as in `all`, or camelCase). Lists add up; any other
    /// parameter given twice, an unknown name, or a bad value is a `RequestError` naming the parameter.
    /// `areas` resolves `region` (NearbyKit passes the region index's); without it `region` is refused.
    public static func parse(_ pairs: [(name: String, value: String)], areas: (any AreaResolver)? = nil)
        throws(RequestError) -> PlaceQuery
    {
        var values: [String: [String]] = [:]
        for (rawName, value) in pairs {
            guard let p = parameter(named: rawName) else {
                // The name is untrusted (a batch line's key, a URL's): control characters made visible, cut.
                throw RequestError(
                    parameter: MessageText.oneLine(rawName, limit: MessageText.echoLimit),
                    reason: "unknown parameter (known: \(all.map(\.name).joined(separator: ", ")))")
            }
            if !p.isList && values[p.name] != nil {
                throw RequestError(parameter: p.name, reason: "given twice")
            }
            values[p.name, default: []].append(value)
        }
        return try Reader(values: values, areas: areas).query()
    }

    /// `q` as parameters, canonical: the inverse of `parse` (page and cursor included when set).
    public static func render(_ q: PlaceQuery) -> [(name: String, value: String)] {
        var out: [(name: String, value: String)] = []
        func add(_ name: String, _ value: String) { out.append((name, value)) }
        if let c = q.center {
            add("lat", number(c.lat))
            add("lon", number(c.lon))
        }
        switch q.shape {
        case .all: break
        case .radius(let r): add("radius", number(r))
        case .knn(let k, let m):
            add("knn", String(k))
            if let m { add("radius", number(m)) }
        }
        let f = q.filter
        if let b = f.bbox { add("bbox", [b.minLon, b.minLat, b.maxLon, b.maxLat].map(number).joined(separator: ",")) }
        if let c = f.categories { add("category", c.sorted().map(String.init).joined(separator: ",")) }
        if let a = f.areacodes { add("areacode", a.sorted().joined(separator: ",")) }
        if let s = f.sigungucodes { add("sigungucode", s.sorted().joined(separator: ",")) }
        if let r = f.region { add("region", r.codes.joined(separator: ",")) }
        if let k = f.keyword { add("keyword", k) }
        if let r = f.created {
            if r.lowerBound > 0 { add("created-since", String(r.lowerBound)) }
            if r.upperBound < Int64.max { add("created-until", String(r.upperBound)) }
        }
        if let r = f.modified {
            if r.lowerBound > 0 { add("modified-since", String(r.lowerBound)) }
            if r.upperBound < Int64.max { add("modified-until", String(r.upperBound)) }
        }
        if let p = f.eventPeriod {
            if p.lowerBound > 0 { add("from", String(p.lowerBound)) }
            if p.upperBound < Int32.max { add("to", String(p.upperBound)) }
        }
        if f.withImage { add("with-image", "true") }
        if !f.accessibility.isEmpty { add("accessible", f.accessibility.joined(separator: ",")) }
        if let c = f.cat { add("cat", c.sorted().joined(separator: ",")) }
        if let c = f.lcls { add("lcls", c.sorted().joined(separator: ",")) }
        if let c = f.ldong { add("ldong", c.sorted().joined(separator: ",")) }
        if let c = f.kakaoCategories { add("kakao-category", c.sorted().joined(separator: ",")) }
        if let p = f.pet { add("pet", p.sorted().joined(separator: ",")) }
        if !f.details.isEmpty {
            add("has-detail", PlaceDetail.Kind.allCases.filter(f.details.contains).map(\.name).joined(separator: ","))
        }
        if !q.order.keys.isEmpty { add("sort", q.order.description) }
        add("limit", String(q.limit))
        if q.page != 1 { add("page", String(q.page)) }
        if let c = q.cursor { add("cursor", c) }
        if q.distance != .haversine { add("distance", q.distance.description) }
        if !q.countsTotal { add("total", "none") }
        if q.explain { add("explain", "true") }
        if q.language != .ko { add("lang", q.language.code) }
        let p = q.personal
        if p.user != PersonalFilter.defaultUser { add("user", p.user) }
        if p.bookmarked { add("bookmarked", "true") }
        if let l = p.bookmarkedIn { add("bookmarked-in", l) }
        if let r = p.minRating { add("min-rating", number(r)) }
        if p.hasMemo { add("has-memo", "true") }
        if p.visited == true { add("visited", "true") }
        if p.visited == false { add("not-visited", "true") }
        if let k = p.keywordIn {
            add(
                "keyword-in",
                PersonalFilter.KeywordTarget.allCases.filter(k.contains).map(\.rawValue).joined(separator: ","))
        }
        if !p.recordsHistory { add("no-history", "true") }
        return out
    }

    /// Shortest text that reads back as the same Double.
    private static func number(_ v: Double) -> String { "\(v)" }

    /// The parse of one request: reads each parameter once, in the order the rules need.
    private struct Reader {
        let values: [String: [String]]
        let areas: (any AreaResolver)?

        func one(_ name: String) -> String? { values[name]?.last }

        func list(_ name: String) throws(RequestError) -> [String]? {
            guard let given = values[name] else { return nil }
            return try Self.items(given, name)
        }

        /// The comma-separated items of a parameter's values, trimmed. A blank value adds none; an
        /// empty item inside a list (`12,,39`, `12,`) is refused, not skipped. Split at the comma
        /// scalar, not the `Character`: an item that begins with a combining mark makes `,` and the
        /// mark one `Character`, which a split by `Character` would not cut (and `render`, which joins
        /// with commas, would not round-trip).
        static func items(_ values: [String], _ name: String) throws(RequestError) -> [String] {
            var out: [String] = []
            for value in values where !TextNormalization.trimmingSpaces(value).isEmpty {
                for item in value.unicodeScalars.split(separator: ",", omittingEmptySubsequences: false) {
                    let text = TextNormalization.trimmingSpaces(String(item))
                    guard !text.isEmpty else {
                        throw RequestError(parameter: name, reason: "\(RequestError.quoted(value)) has an empty item")
                    }
                    out.append(text)
                }
            }
            return out
        }

        func number(_ name: String) throws(RequestError) -> Double? {
            guard let s = one(name) else { return nil }
            guard let v = DecimalNumber.double(s) else {
                throw RequestError(parameter: name, reason: "\(RequestError.quoted(s)) is not a finite number")
            }
            return v
        }

        func integer(_ name: String) throws(RequestError) -> Int? {
            guard let s = one(name) else { return nil }
            guard let v = DecimalNumber.integer(s) else {
                throw RequestError(parameter: name, reason: "\(RequestError.quoted(s)) is not an integer")
            }
            return v
        }

        func flag(_ name: String) throws(RequestError) -> Bool {
            guard let s = one(name) else { return false }
            switch s.lowercased() {
            case "", "true", "1", "yes": return true
            case "false", "0", "no": return false
            default: throw RequestError(parameter: name, reason: "\(RequestError.quoted(s)) is not true or false")
            }
        }

        func query() throws(RequestError) -> PlaceQuery {
            var q = PlaceQuery()
            switch (try number("lat"), try number("lon")) {
            case (nil, nil): break
            case (let la?, let lo?): q.center = Coordinate(lat: la, lon: lo)
            case (nil, _): throw RequestError(parameter: "lat", reason: "missing: lat and lon go together")
            case (_, nil): throw RequestError(parameter: "lon", reason: "missing: lat and lon go together")
            }
            let r = try number("radius")
            if let k = try integer("knn") {
                q.shape = .knn(k: k, maxDistance: r)
            } else if let r {
                q.shape = .radius(r)
            }

            var f = PlaceFilter()
            if let bbox = one("bbox") {
                guard let box = GeoBox(parsing: bbox) else {
                    throw RequestError(
                        parameter: "bbox",
                        reason:
                            "\(RequestError.quoted(bbox)) is not minLon,minLat,maxLon,maxLat with longitudes in -180…180, latitudes in -90…90 and minLat ≤ maxLat"
                    )
                }
                f.bbox = box
            }
            if let items = try list("category") {
                var ids = Set<Int>()
                for item in items {
                    guard let id = DecimalNumber.integer(item) else {
                        throw RequestError(
                            parameter: "category",
                            reason:
                                "\(RequestError.quoted(item)) is not a content type id (an integer such as 12 or 39)")
                    }
                    ids.insert(id)
                }
                guard !ids.isEmpty else { throw RequestError(parameter: "category", reason: "empty list") }
                f.categories = ids
            }
            f.areacodes = try areaCodes()
            f.sigungucodes = try codes("sigungucode", digitsOnly: true)
            if let names = values["region"] {
                guard let areas else {
                    throw RequestError(parameter: "region", reason: "needs the region index (NearbyKit's RegionAreas)")
                }
                // A name may hold spaces (서울 종로구); commas separate several.
                let items = try Self.items(names, "region")
                guard !items.isEmpty else { throw RequestError(parameter: "region", reason: "empty") }
                var found: [AreaFilter] = []
                for item in items { found.append(try areas.area(item)) }
                f.region = found.count == 1 ? found[0] : areas.union(found)
            }
            if let keyword = one("keyword"), !keyword.isEmpty { f.keyword = keyword }
            f.created = try timestampRange("created")
            f.modified = try timestampRange("modified")
            f.eventPeriod = try eventPeriod()
            f.withImage = try flag("with-image")
            if let tags = try list("accessible") { f.accessibility = tags }
            f.cat = try codes("cat", digitsOnly: false)
            f.lcls = try codes("lcls", digitsOnly: false)
            f.kakaoCategories = try kakaoCategories()
            if let levels = try codes("pet", digitsOnly: false) {
                for level in levels where !PetFriendliness.levels.contains(level) {
                    throw RequestError(
                        parameter: "pet",
                        reason:
                            "\(RequestError.quoted(level)) is not one of \(PetFriendliness.levels.joined(separator: ", "))"
                    )
                }
                f.pet = levels
            }
            if let kinds = try list("has-detail") {
                guard !kinds.isEmpty else { throw RequestError(parameter: "has-detail", reason: "empty list") }
                for kind in kinds {
                    guard let k = PlaceDetail.Kind(name: kind) else {
                        let known = PlaceDetail.Kind.allCases.map(\.name).joined(separator: ", ")
                        throw RequestError(
                            parameter: "has-detail", reason: "\(RequestError.quoted(kind)) is not one of \(known)")
                    }
                    f.details.insert(k)
                }
            }
            if let ldong = try codes("ldong", digitsOnly: true) {
                var all = Set<String>()
                for code in ldong {
                    guard code.count == 2 || code.count == 5 else {
                        throw RequestError(
                            parameter: "ldong",
                            reason:
                                "\(RequestError.quoted(code)) is not a 2-digit lDongRegnCd or a 5-digit lDongRegnCd+lDongSignguCd"
                        )
                    }
                    all.formUnion(try areas?.legalDongCodes(code) ?? [code])
                }
                f.ldong = all
            }

            if let arrange = one("arrange") {
                guard one("sort") == nil else {
                    throw RequestError(parameter: "arrange", reason: "arrange and sort both give the order; use one")
                }
                guard let a = Arrange(rawValue: arrange.uppercased()) else {
                    throw RequestError(
                        parameter: "arrange",
                        reason: "\(RequestError.quoted(arrange)) is not one of A, C, D, E, O, Q, R, S")
                }
                q.order = a.order
                if a.requiresImage { f.withImage = true }
            }
            if let sort = one("sort") {
                guard let o = PlaceOrder(parsing: sort) else {
                    throw RequestError(
                        parameter: "sort",
                        reason:
                            "\(RequestError.quoted(sort)) is not a list of distance, title, created, modified, category, rating, bookmarked, memo, visited (each once, - for descending)"
                    )
                }
                q.order = o
            }
            q.filter = f
            q.limit = try integer("limit") ?? QueryParameters.defaultLimit
            q.page = try integer("page") ?? 1
            if let cursor = one("cursor") {
                guard one("page") == nil else {
                    throw RequestError(parameter: "cursor", reason: "cursor and page both say where to start; use one")
                }
                guard q.limit > 0 else {
                    throw RequestError(
                        parameter: "cursor", reason: "a cursor pages through a limited answer; give a limit above 0")
                }
                q.cursor = cursor
            }
            if let distance = one("distance") {
                do { q.distance = try DistanceModel(parsing: distance) } catch {
                    throw RequestError(parameter: "distance", reason: "\(error)")
                }
            }
            q.explain = try flag("explain")
            switch one("total") {
            case nil, "exact": break
            case "none": q.countsTotal = false
            case let other?:
                throw RequestError(parameter: "total", reason: "\(MessageText.quoted(other)) is not exact or none")
            }
            if let code = one("lang") {
                guard let language = TourLanguage(code: code) else {
                    throw RequestError(
                        parameter: "lang",
                        reason:
                            "\(RequestError.quoted(code)) is not a language (ko, \(TourLanguage.allCases.dropFirst().map(\.code).joined(separator: ", ")))"
                    )
                }
                q.language = language
            }
            q.personal = try personal()
            if let problem = q.problem { throw problem }
            return q
        }

        /// The user and the conditions on the user's data (`PersonalFilter`).
        private func personal() throws(RequestError) -> PersonalFilter {
            var p = PersonalFilter()
            if let user = one("user") {
                guard PersonalFilter.isUserName(user) else {
                    throw RequestError(
                        parameter: "user",
                        reason: "\(RequestError.quoted(user)) is not a user name (\(PersonalFilter.userNameRule))")
                }
                p.user = user
            }
            p.bookmarked = try flag("bookmarked")
            if let list = one("bookmarked-in") {
                guard PersonalFilter.isListName(list) else {
                    throw RequestError(
                        parameter: "bookmarked-in",
                        reason: "\(RequestError.quoted(list)) is not a list name (\(PersonalFilter.listNameRule))")
                }
                p.bookmarkedIn = list
            }
            p.minRating = try number("min-rating")
            p.hasMemo = try flag("has-memo")
            switch (try flag("visited"), try flag("not-visited")) {
            case (true, true):
                throw RequestError(parameter: "not-visited", reason: "visited and not-visited exclude each other")
            case (true, false): p.visited = true
            case (false, true): p.visited = false
            case (false, false): break
            }
            if let items = try list("keyword-in") {
                var targets = Set<PersonalFilter.KeywordTarget>()
                for item in items {
                    guard let t = PersonalFilter.KeywordTarget(rawValue: item) else {
                        throw RequestError(
                            parameter: "keyword-in", reason: "\(RequestError.quoted(item)) is not title or memo")
                    }
                    targets.insert(t)
                }
                guard !targets.isEmpty else { throw RequestError(parameter: "keyword-in", reason: "empty list") }
                p.keywordIn = targets
            }
            p.recordsHistory = !(try flag("no-history"))
            return p
        }

        /// `areacode`: TourAPI's area codes only (`TourAreaCode`); a legal-dong 시도 code is pointed to `ldong`.
        private func areaCodes() throws(RequestError) -> Set<String>? {
            guard let items = try list("areacode") else { return nil }
            guard !items.isEmpty else { throw RequestError(parameter: "areacode", reason: "empty list") }
            for item in items where !TourAreaCode.isAreaCode(item) {
                let hint =
                    TourAreaCode.areaCode(legalDong: item).map {
                        "; \(item) is a legal-dong 시도 code (\(TourAreaCode.names[$0]!)): use --ldong \(item), or --areacode \($0)"
                    } ?? ""
                throw RequestError(
                    parameter: "areacode",
                    reason: "\(RequestError.quoted(item)) is not a TourAPI areaCode (1–8, 31–39)\(hint)")
            }
            return Set(items)
        }

        /// A list of codes made of ASCII letters and digits (or digits only); nil when not given.
        private func codes(_ name: String, digitsOnly: Bool) throws(RequestError) -> Set<String>? {
            guard let items = try list(name) else { return nil }
            guard !items.isEmpty else { throw RequestError(parameter: name, reason: "empty list") }
            for item in items
            where !item.utf8.allSatisfy({
                (48...57).contains($0) || (!digitsOnly && ((65...90).contains($0) || (97...122).contains($0)))
            }) {
                throw RequestError(
                    parameter: name,
                    reason:
                        "\(RequestError.quoted(item)) is not a code (\(digitsOnly ? "digits" : "ASCII letters and digits"))"
                )
            }
            return Set(items)
        }

        /// Kakao's category_group_code: two letters and a digit (FD6, CE7, AT4), either case.
        private func kakaoCategories() throws(RequestError) -> Set<String>? {
            guard let items = try codes("kakao-category", digitsOnly: false) else { return nil }
            for item in items {
                let u = Array(item.utf8)
                func letter(_ b: UInt8) -> Bool { (65...90).contains(b) || (97...122).contains(b) }
                guard u.count == 3, letter(u[0]), letter(u[1]), (48...57).contains(u[2]) else {
                    throw RequestError(
                        parameter: "kakao-category",
                        reason:
                            "\(RequestError.quoted(item)) is not a Kakao category_group_code (two letters and a digit, such as FD6 or CE7)"
                    )
                }
            }
            return Set(items.map { $0.uppercased() })
        }

        private func timestampRange(_ stem: String) throws(RequestError) -> ClosedRange<Int64>? {
            let since = one(stem + "-since")
            let until = one(stem + "-until")
            guard since != nil || until != nil else { return nil }
            func stamp(_ s: String?, _ name: String, endOfDay: Bool) throws(RequestError) -> Int64? {
                guard let s else { return nil }
                guard let v = DateBound.timestamp(s, endOfDay: endOfDay) else {
                    throw RequestError(
                        parameter: name,
                        reason:
                            "\(RequestError.quoted(s)) is not a day (yyyyMMdd, yyyy-MM-dd) or a time (yyyyMMddHHmmss) of the calendar"
                    )
                }
                return v
            }
            let lo = try stamp(since, stem + "-since", endOfDay: false) ?? 0
            let hi = try stamp(until, stem + "-until", endOfDay: true) ?? Int64.max
            guard lo <= hi else { throw RequestError(parameter: stem + "-since", reason: "is after \(stem)-until") }
            return lo...hi
        }

        private func eventPeriod() throws(RequestError) -> ClosedRange<Int32>? {
            func day(_ s: String, _ name: String) throws(RequestError) -> Int32 {
                guard let d = DateBound.day(s) else {
                    throw RequestError(
                        parameter: name,
                        reason: "\(RequestError.quoted(s)) is not a day of the calendar as yyyyMMdd or yyyy-MM-dd")
                }
                return d
            }
            let date = one("date")
            let from = one("from")
            let to = one("to")
            let during = one("during")
            var lo: Int32?
            var hi: Int32?
            if let date {
                guard from == nil && to == nil && during == nil else {
                    throw RequestError(parameter: "date", reason: "one day; do not combine it with from, to or during")
                }
                lo = try day(date, "date")
                hi = lo
            } else if let during {
                guard from == nil && to == nil else {
                    throw RequestError(parameter: "during", reason: "is from,to; use one form")
                }
                let parts = during.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 2 else {
                    throw RequestError(parameter: "during", reason: "\(RequestError.quoted(during)) is not from,to")
                }
                lo = try day(parts[0], "during")
                hi = try day(parts[1], "during")
            } else {
                if let from { lo = try day(from, "from") }
                if let to { hi = try day(to, "to") }
            }
            guard lo != nil || hi != nil else { return nil }
            let period = (lo ?? 0, hi ?? Int32.max)
            guard period.0 <= period.1 else {
                throw RequestError(parameter: "to", reason: "the festival period ends before it starts")
            }
            return period.0...period.1
        }
    }
}

/// A request that describes no query: which parameter, and why. Shells name the parameter their way
/// (`nearby query: --radius: …`, HTTP `{"parameter":"radius",…}`).
public struct RequestError: NearbyError, Equatable {
    /// The parameter at fault, as `QueryParameters` names it; nil when no single one is.
    public var parameter: String?
    public var reason: String
    /// The request was well formed but refers to a state that is gone (a cursor from before the cache
    /// changed): HTTP's 409 rather than 400.
    public var isStale: Bool

    public init(parameter: String?, reason: String, isStale: Bool = false) {
        self.parameter = parameter
        self.reason = reason
        self.isStale = isStale
    }

    /// `--radius: …` (with `prefix` "--"), or just the reason.
    public func message(prefix: String = "") -> String {
        parameter.map { "\(prefix)\($0): \(reason)" } ?? reason
    }

    public var description: String { message() }
    /// `.conflict` for a stale cursor, else `.usage`.
    public var kind: ErrorKind { isStale ? .conflict : .usage }

    /// Untrusted text for a message: quoted, control characters escaped, cut (`MessageText`).
    public static func quoted(_ s: String) -> String { MessageText.quoted(s) }
}
