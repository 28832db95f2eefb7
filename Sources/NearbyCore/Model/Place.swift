/// One cached place: the record every importer produces, the cache stores and every JSON output writes.
///
/// Field names are the JSON field names used everywhere in the project. Dates stay in TourAPI's own
/// text forms so a record round-trips exactly: `created`/`modified` are `yyyyMMddHHmmss` (Korean time),
/// `eventStart`/`eventEnd` are `yyyyMMdd`. Titles are NFC-normalised by the importers.
public struct Place: Sendable, Hashable {
    /// Unique, non-empty. TourAPI's `contentid`; the workload's integer ids are kept as their decimal text.
    public var id: String
    public var title: String
    /// WGS84 degrees. TourAPI's `mapy`.
    public var lat: Double
    /// WGS84 degrees. TourAPI's `mapx` (longitude, not latitude).
    public var lon: Double
    /// TourAPI content type id (12, 14, 15, 25, 28, 32, 38, 39); other integers are allowed.
    public var category: Int
    /// `yyyyMMddHHmmss`, or nil when the source did not say.
    public var created: String?
    /// `yyyyMMddHHmmss`, or nil when the source did not say. Decides upserts: newer-or-equal wins.
    public var modified: String?
    public var areacode: String?
    public var sigungucode: String?
    public var addr: String?
    public var tel: String?
    /// TourAPI `firstimage`.
    public var image: String?
    public var cat1: String?
    public var cat2: String?
    public var cat3: String?
    /// Festival period, `yyyyMMdd`.
    public var eventStart: String?
    public var eventEnd: String?
    /// Barrier-free facilities, as names from `Accessibility.tags`, sorted and unique.
    public var accessibility: [String]
    /// KorService2's legal-dong region codes and new classification system, kept as TourAPI names them.
    public var lDongRegnCd: String?
    public var lDongSignguCd: String?
    public var lclsSystm1: String?
    public var lclsSystm2: String?
    public var lclsSystm3: String?
    /// Kakao Local's `category_group_code` (`FD6`, `CE7`, …) of a place imported from Kakao; nil otherwise.
    public var kakaoCategory: String?
    /// Where `lDongRegnCd`/`lDongSignguCd` come from: nil when the source gave them, `coordinates` when
    /// the import derived them from the place's position (NearbyRegions; the source had none).
    public var lDongSource: String?
    /// Pet-friendliness from TourAPI's detailPetTour2 (`PetFriendliness`): `all`, `some` or `no`; nil
    /// when no pet detail was imported for the place.
    public var pet: String?
    /// The original texts of a detailWithTour2 (barrier-free) detail, as a JSON object of TourAPI's
    /// field names (`{"wheelchair":"대여 가능(2대)",…}`); the tags they gave are in `accessibility`.
    public var barrierFree: String?
    /// The original texts of a detailPetTour2 detail, as a JSON object of TourAPI's field names.
    public var petInfo: String?

    public init(
        id: String, title: String, lat: Double, lon: Double, category: Int,
        created: String? = nil, modified: String? = nil,
        areacode: String? = nil, sigungucode: String? = nil, addr: String? = nil, tel: String? = nil,
        image: String? = nil, cat1: String? = nil, cat2: String? = nil, cat3: String? = nil,
        eventStart: String? = nil, eventEnd: String? = nil, accessibility: [String] = [],
        lDongRegnCd: String? = nil, lDongSignguCd: String? = nil,
        lclsSystm1: String? = nil, lclsSystm2: String? = nil, lclsSystm3: String? = nil,
        kakaoCategory: String? = nil, lDongSource: String? = nil,
        pet: String? = nil, barrierFree: String? = nil, petInfo: String? = nil
    ) {
        self.id = id
        self.title = title
        self.lat = lat
        self.lon = lon
        self.category = category
        self.created = created
        self.modified = modified
        self.areacode = areacode
        self.sigungucode = sigungucode
        self.addr = addr
        self.tel = tel
        self.image = image
        self.cat1 = cat1
        self.cat2 = cat2
        self.cat3 = cat3
        self.eventStart = eventStart
        self.eventEnd = eventEnd
        self.accessibility = accessibility
        self.lDongRegnCd = lDongRegnCd
        self.lDongSignguCd = lDongSignguCd
        self.lclsSystm1 = lclsSystm1
        self.lclsSystm2 = lclsSystm2
        self.lclsSystm3 = lclsSystm3
        self.kakaoCategory = kakaoCategory
        self.lDongSource = lDongSource
        self.pet = pet
        self.barrierFree = barrierFree
        self.petInfo = petInfo
    }
}

/// TourAPI content type ids, for help texts and generated data. Places may carry other integers too.
public enum ContentType {
    public static let names: [Int: String] = [
        12: "tourist spot", 14: "culture facility", 15: "festival/event", 25: "travel course",
        28: "leisure/sports", 32: "accommodation", 38: "shopping", 39: "restaurant",
    ]
}

/// The barrier-free vocabulary (TourAPI detailWithTour2). Tags are lower-case, hyphenated names.
/// A tag's position in `tags` is its bit in the engine's accessibility bitmask (at most 32 tags).
///
/// The last five tags are the groups of visitors a barrier-free tourism app serves (`categories`):
/// `--accessible physical` finds a place that has any facility of that group (`members`), or that a
/// detail put in the group through a free-text field with no tag of its own (`handicapetc`, …;
/// `BarrierFreeDetail.fields`). The engines get that from `placeMask`, the one place mask.
public enum Accessibility {
    public static let tags: [String] = [
        "wheelchair", "elevator", "restroom", "parking", "braille-block", "audio-guide",
        "sign-language", "stroller-rental", "guide-dog", "lactation-room", "accessible-exit",
        "public-transport", "ticket-office", "big-print", "video-guide", "hearing-room", "baby-chair",
        "access-route", "guide-staff", "braille-promotion", "accessible-seating", "accessible-room",
        "physical", "visual", "hearing", "infants", "elderly",
    ]
    /// The visitor groups (tags too): physical disability, visual, hearing, families with infants, elderly.
    public static let categories = ["physical", "visual", "hearing", "infants", "elderly"]
    /// The facility tags of each group. A tag may serve several (elderly visitors: step-free access,
    /// lifts, toilets, parking and transport, as for wheelchair users).
    public static let members: [String: [String]] = [
        "physical": [
            "wheelchair", "elevator", "restroom", "parking", "accessible-exit", "public-transport",
            "ticket-office", "access-route", "accessible-seating", "accessible-room",
        ],
        "visual": ["braille-block", "audio-guide", "guide-dog", "big-print", "guide-staff", "braille-promotion"],
        "hearing": ["sign-language", "video-guide", "hearing-room"],
        "infants": ["stroller-rental", "lactation-room", "baby-chair"],
        "elderly": ["wheelchair", "elevator", "restroom", "parking", "public-transport", "access-route"],
    ]
    /// Bit of a known tag, nil for an unknown one.
    public static func bit(_ tag: String) -> UInt32? {
        tags.firstIndex(of: tag).map { UInt32(1) << UInt32($0) }
    }
    /// Bitmask of a tag list; nil when any tag is unknown.
    public static func mask(_ list: [String]) -> UInt32? {
        var m: UInt32 = 0
        for t in list {
            guard let b = bit(t) else { return nil }
            m |= b
        }
        return m
    }
    /// The mask every engine gives a place with these tags: their bits, and the bit of each group one
    /// of them serves. Unknown tags add nothing (they stay in the text only).
    public static func placeMask(_ list: [String]) -> UInt32 {
        var m: UInt32 = 0
        for t in list { m |= implied[t] ?? 0 }
        return m
    }
    /// Tag → its bit and its groups' bits.
    private static let implied: [String: UInt32] = {
        var out: [String: UInt32] = [:]
        for t in tags { out[t] = bit(t)! }
        for (group, list) in members { for t in list { out[t]! |= bit(group)! } }
        return out
    }()
}
