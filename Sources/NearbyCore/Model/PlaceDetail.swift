/// A TourAPI detail about one place, without a position: detailWithTour2 (KorWithService2,
/// barrier-free facilities) or detailPetTour2 (travelling with pets). It merges into the place with
/// its `contentid` (`Place.merge`); the cache keeps a detail whose place is not there yet until the
/// place arrives.
public struct PlaceDetail: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case barrierFree, pet

        /// Its name in queries (`--has-detail barrier-free`) and in `nearby sync tourapi --details`.
        public var name: String {
            switch self {
            case .barrierFree: "barrier-free"
            case .pet: "pet"
            }
        }

        /// The kind called `name` (`name`), or nil.
        public init?(name: String) {
            guard let kind = Self.allCases.first(where: { $0.name == name }) else { return nil }
            self = kind
        }

        /// The place field that keeps a detail of this kind (`barrierFree`, `petInfo`).
        public var field: PlaceField {
            switch self {
            case .barrierFree: .barrierFree
            case .pet: .petInfo
            }
        }

        /// Whether a place's stored text of this kind (`field`) is a detail: any text but none or empty.
        /// What `--has-detail` tests and what TourAPI's detailWithTour2 and detailPetTour2 answer an item for.
        @inline(__always)
        public static func isStored(_ text: String?) -> Bool { !(text?.isEmpty ?? true) }
    }

    /// One field of the detail, as TourAPI names it, with its text as given.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var text: String
        public init(name: String, text: String) {
            self.name = name
            self.text = text
        }
    }

    public var id: String
    public var kind: Kind
    /// The detail's known fields with non-empty text, in the order the source gave them.
    public var fields: [Field]

    public init(id: String, kind: Kind, fields: [Field]) {
        self.id = id
        self.kind = kind
        self.fields = fields
    }

    /// The kind of detail a TourAPI object with these keys is, when it names one of the kind's fields
    /// (`parking` alone does not make one: detailIntro2 items have it too).
    public static func kind(ofKeys keys: some Sequence<String>) -> Kind? {
        for key in keys {
            if key != "parking" && BarrierFreeDetail.fields[key] != nil { return .barrierFree }
            if PetFriendliness.fields.contains(key) { return .pet }
        }
        return nil
    }

    /// Whether TourAPI's `name` is a field of this kind of detail.
    public static func isField(_ name: String, of kind: Kind) -> Bool {
        switch kind {
        case .barrierFree: BarrierFreeDetail.fields[name] != nil
        case .pet: PetFriendliness.fields.contains(name)
        }
    }

    /// The fields as one JSON object text (`{"wheelchair":"대여 가능",…}`): what `barrierFree`/`petInfo` keep.
    public var originalText: String {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (i, f) in fields.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(f.name, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONWriter.appendString(f.text, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The fields of an `originalText` (read back from where a waiting detail is kept); nil if it is not one.
    public static func fields(fromOriginalText text: String) -> [Field]? {
        let bytes = Array(text.utf8)
        guard case .object(let o)? = bytes.withUnsafeBytes({ try? JSONValue.parse($0) }) else { return nil }
        var fields: [Field] = []
        for m in o.members {
            guard case .string(let t) = m.value else { return nil }
            fields.append(Field(name: m.key, text: t))
        }
        return fields
    }

    /// The accessibility tags a barrier-free detail gives (facility tags and visitor groups), sorted.
    public var tags: [String] {
        guard kind == .barrierFree else { return [] }
        var tags = Set<String>()
        for f in fields where BarrierFreeDetail.isAvailable(f.text) {
            guard let entry = BarrierFreeDetail.fields[f.name] else { continue }
            if let tag = entry.tag { tags.insert(tag) }
            tags.insert(entry.group)
        }
        return tags.sorted()
    }
}

/// detailWithTour2's free-text fields → an accessibility tag (nil when the field names no single
/// facility) and the visitor group it serves (`Accessibility.categories`). The field list is the
/// KorWithService2 manual's, grouped as it groups them (지체장애, 시각장애, 청각장애, 영유아가족).
/// A field counts when its text says the facility is there: any text but a plain "none" (`isAvailable`).
public enum BarrierFreeDetail {
    public static let fields: [String: (tag: String?, group: String)] = [
        // 지체장애 (physical)
        "parking": ("parking", "physical"), "route": ("access-route", "physical"),
        "publictransport": ("public-transport", "physical"), "ticketoffice": ("ticket-office", "physical"),
        "promotion": (nil, "physical"), "wheelchair": ("wheelchair", "physical"),
        "exit": ("accessible-exit", "physical"), "elevator": ("elevator", "physical"),
        "restroom": ("restroom", "physical"), "auditorium": ("accessible-seating", "physical"),
        "room": ("accessible-room", "physical"), "handicapetc": (nil, "physical"),
        // 시각장애 (visual)
        "braileblock": ("braille-block", "visual"), "helpdog": ("guide-dog", "visual"),
        "guidehuman": ("guide-staff", "visual"), "audioguide": ("audio-guide", "visual"),
        "bigprint": ("big-print", "visual"), "brailepromotion": ("braille-promotion", "visual"),
        "guidesystem": (nil, "visual"), "blindhandicapetc": (nil, "visual"),
        // 청각장애 (hearing)
        "signguide": ("sign-language", "hearing"), "videoguide": ("video-guide", "hearing"),
        "hearingroom": ("hearing-room", "hearing"), "hearinghandicapetc": (nil, "hearing"),
        // 영유아가족 (families with infants)
        "stroller": ("stroller-rental", "infants"), "lactationroom": ("lactation-room", "infants"),
        "babysparechair": ("baby-chair", "infants"), "infantsfamilyetc": (nil, "infants"),
    ]

    /// Texts that say a facility is missing: "없음", "불가", "미운영", "해당 없음", "N", …
    static let negativePrefixes = ["없음", "없다", "불가", "미운영", "미설치", "미보유", "해당없음", "미비치"]

    /// Whether a field's text says the facility is there: not empty, and not a plain negative.
    public static func isAvailable(_ text: String) -> Bool {
        let t = text.filter { !$0.isWhitespace }
        guard !t.isEmpty, !["n", "no", "x", "-", "0"].contains(t.lowercased()) else { return false }
        return !negativePrefixes.contains { t.hasPrefix($0) }
    }
}

/// detailPetTour2 (KorPetTourService2): its fields, and the pet-friendliness level `--pet` filters on,
/// read from `acmpyTypeCd` (동반유형): `all` (전 구역 동반 가능), `some` (일부 구역 동반 가능), `no`
/// (동반 불가). A detail whose `acmpyTypeCd` says none of these keeps its texts with no level.
public enum PetFriendliness {
    public static let levels = ["all", "some", "no"]
    public static let fields: Set<String> = [
        "acmpyTypeCd", "acmpyPsblCpam", "acmpyNeedMtr", "relaPosesFclty", "relaFrnshPrdlst", "etcAcmpyInfo",
        "relaPurcPrdlst", "relaRntlPrdlst", "relaAcdntRiskMtr",
    ]

    /// The level an `acmpyTypeCd` text says; nil when it says none.
    public static func level(_ text: String) -> String? {
        let t = text.filter { !$0.isWhitespace }
        if t.contains("불가") { return "no" }
        if t.contains("일부") { return "some" }
        if t.contains("전구역") || t.contains("가능") { return "all" }
        return nil
    }
}

extension Place {
    /// Whether a detail of `kind` is stored for this place (`PlaceDetail.Kind.isStored`).
    public func hasDetail(_ kind: PlaceDetail.Kind) -> Bool { PlaceDetail.Kind.isStored(self[text: kind.field]) }

    /// Merges a detail into this place: a barrier-free detail adds its tags to `accessibility` and keeps
    /// its texts in `barrierFree`; a pet detail sets `pet` and `petInfo`. A later detail of the same kind
    /// replaces the texts; tags are only ever added.
    public mutating func merge(_ detail: PlaceDetail) {
        switch detail.kind {
        case .barrierFree:
            accessibility = Array(Set(accessibility).union(detail.tags)).sorted()
            barrierFree = detail.originalText
        case .pet:
            pet = detail.fields.first { $0.name == "acmpyTypeCd" }.flatMap { PetFriendliness.level($0.text) }
            petInfo = detail.originalText
        }
    }

    /// What the place keeps from `cached` when it replaces it: the details merged into the cached place
    /// (a list record does not carry them), unless this record brings its own.
    public mutating func keepDetails(of cached: Place) {
        if barrierFree == nil, let text = cached.barrierFree {
            barrierFree = text
            accessibility = Array(Set(accessibility).union(cached.accessibility)).sorted()
        }
        if pet == nil && petInfo == nil {
            pet = cached.pet
            petInfo = cached.petInfo
        }
    }
}
