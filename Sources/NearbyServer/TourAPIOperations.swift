import NearbyKit

/// One TourAPI operation `nearby serve` answers under the public service's path: its service, its
/// name, what it does (`Kind`), which generation's item fields it writes and what it requires.
/// docs/tourapi-compat.md lists every operation of the services, served or not, and why.
struct TourOperation: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// Lists of places from the cache's query engine.
        case locationList, areaList, keywordList, festivalList, stayList
        /// One place's details (`contentId`).
        case common, intro, info, image, barrierFree, pet
        /// `areaCode2`: TourAPI's area codes.
        case areaCodes
        /// `areaBasedSyncList2`: the cache's change history (`TourAPIChanges.swift`).
        case syncList
        /// `ldongCode2`: the legal-dong codes and names (`TourAPICodes.swift`).
        case legalDongCodes
        /// `lclsSystmCode2`: the new classification's codes and names (`TourAPICodes.swift`).
        case classificationCodes
        /// `categoryCode2`: the service classification's codes and names (`TourAPICodes.swift`).
        case serviceCategoryCodes
    }

    /// KorService1's item fields (`booktour`; no legal-dong or new classification codes; detailCommon1's
    /// `…YN` flags) or KorService2's.
    enum Generation: Sendable, Hashable { case one, two }

    let service: String
    let name: String
    let kind: Kind
    let generation: Generation
    /// The language of the service's places: Korean, or a language service's (EngService2, …), answered
    /// from the places synced from it, with its own content type numbers (`TourLanguage`).
    var language = TourLanguage.ko
    /// The kind of detail a place must have to be in this operation's answers: KorWithService2's lists,
    /// details and change list hold the places with a stored barrier-free detail, KorPetTourService2's
    /// those with a pet detail (`--has-detail`, `PlaceDetail.Kind.isStored`); nil for the others.
    var detail: PlaceDetail.Kind?

    var path: String { TourAPI.root + service + "/" + name }

    /// The parameters the operation cannot do without (TourAPI answers `11` without them).
    var required: [String] {
        switch kind {
        case .locationList: ["mapX", "mapY", "radius"]
        case .keywordList: ["keyword"]
        case .festivalList: ["eventStartDate"]
        case .common, .intro, .info, .image, .barrierFree, .pet: ["contentId"]
        case .areaList, .stayList, .areaCodes, .syncList, .legalDongCodes, .classificationCodes,
            .serviceCategoryCodes:
            []
        }
    }

    /// Parameters of this operation beside the list parameters (`TourAPI.mapped`) and `contentId`.
    var flags: [String] {
        switch kind {
        case .common where generation == .one: TourAPI.commonOneGroups.map(\.flag)
        case .image: generation == .one ? ["imageYN", "subImageYN"] : ["imageYN"]
        case .syncList: ["modifiedtime", "showflag"]
        case .legalDongCodes: ["lDongListYn"]
        case .classificationCodes: ["lclsSystmListYn"]
        default: []
        }
    }
}

extension TourAPI {
    /// The start of every TourAPI path (the public service's organisation segment).
    static let root = "/B551011/"

    /// Whether `path` is TourAPI's (its errors get TourAPI's envelope, an unknown one code `12`).
    static func owns(_ path: some StringProtocol) -> Bool { path.hasPrefix(root) }

    /// Every operation answered: KorService2's and KorService1's lists, details and code lists, the
    /// barrier-free (KorWithService2) and pet (KorPetTourService2, KorService2) details, KorWithService2's
    /// and KorPetTourService2's other operations (`detailServices`), the language services' (EngService2,
    /// …) lists, details, change lists and code lists (those synced from the service: `TourAPICodes.swift`).
    static let served: [TourOperation] = {
        let names: [(String, TourOperation.Kind)] = [
            ("locationBasedList", .locationList), ("areaBasedList", .areaList), ("searchKeyword", .keywordList),
            ("searchFestival", .festivalList), ("searchStay", .stayList), ("detailCommon", .common),
            ("detailIntro", .intro), ("detailInfo", .info), ("detailImage", .image), ("areaCode", .areaCodes),
            ("areaBasedSyncList", .syncList), ("categoryCode", .serviceCategoryCodes),
        ]
        var out: [TourOperation] = []
        for (generation, n) in [(TourOperation.Generation.two, "2"), (.one, "1")] {
            for (name, kind) in names {
                out.append(.init(service: "KorService" + n, name: name + n, kind: kind, generation: generation))
            }
        }
        out.append(.init(service: "KorService2", name: "ldongCode2", kind: .legalDongCodes, generation: .two))
        out.append(
            .init(service: "KorService2", name: "lclsSystmCode2", kind: .classificationCodes, generation: .two))
        // KorService2 also carries detailPetTour2 (its manual, Ver 4.3), as KorPetTourService2 does.
        out.append(.init(service: "KorService2", name: "detailPetTour2", kind: .pet, generation: .two))
        out.append(.init(service: "KorWithService2", name: "detailWithTour2", kind: .barrierFree, generation: .two))
        out.append(.init(service: "KorPetTourService2", name: "detailPetTour2", kind: .pet, generation: .two))
        // KorWithService2's and KorPetTourService2's other operations: KorService2's, over the places
        // with the service's detail.
        for (service, detail) in detailServices {
            for operation in out where operation.service == "KorService2" {
                guard let name = detailServiceName(operation.name, service: service) else { continue }
                out.append(
                    .init(service: service, name: name, kind: operation.kind, generation: .two, detail: detail))
            }
        }
        // The language services' operations, as KorService2's, from the language's places and code lists.
        for language in TourLanguage.allCases where language != .ko {
            for (name, kind) in names + [("ldongCode", .legalDongCodes), ("lclsSystmCode", .classificationCodes)] {
                out.append(
                    .init(service: language.service, name: name + "2", kind: kind, generation: .two, language: language)
                )
            }
        }
        return out
    }()

    /// The services of one kind of detail (`TourOperation.detail`): the places they list are those the
    /// public service has that detail for.
    static let detailServices: [(service: String, detail: PlaceDetail.Kind)] = [
        ("KorWithService2", .barrierFree), ("KorPetTourService2", .pet),
    ]

    /// KorService2's operations a detail service does not have (its manual): the festival and stay
    /// searches; and KorService2's own `detailPetTour2` (each service has its one detail operation).
    static let notInDetailServices: Set<String> = ["searchFestival2", "searchStay2", "detailPetTour2"]

    /// The name under `service` of KorService2's operation `name`, or nil when the service does not have it
    /// (`notInDetailServices`). KorPetTourService2 calls its change list `petTourSyncList2` (its manual,
    /// v4.1), KorWithService2 `areaBasedSyncList2`, as KorService2.
    static func detailServiceName(_ name: String, service: String) -> String? {
        guard !notInDetailServices.contains(name) else { return nil }
        if service == "KorPetTourService2", name == "areaBasedSyncList2" { return "petTourSyncList2" }
        return name
    }

    /// detailCommon1's flags, each with the fields it adds (`Y`; absent, empty or `N` leaves them out),
    /// in the order KorService1 writes them after `contentid` and `contenttypeid`.
    static let commonOneGroups: [(flag: String, names: [String])] = [
        ("defaultYN", ["booktour", "createdtime", "homepage", "modifiedtime", "tel", "telname", "title"]),
        ("firstImageYN", ["firstimage", "firstimage2", "cpyrhtDivCd"]),
        ("areacodeYN", ["areacode", "sigungucode"]),
        ("catcodeYN", ["cat1", "cat2", "cat3"]),
        ("addrinfoYN", ["addr1", "addr2", "zipcode"]),
        ("mapinfoYN", ["mapx", "mapy", "mlevel"]),
        ("overviewYN", ["overview"]),
    ]

    /// detailWithTour2's fields after `contentid`, in KorWithService2's order (its manual's groups:
    /// physical, visual, hearing, families with infants; `BarrierFreeDetail.fields`).
    static let barrierFreeNames = [
        "parking", "route", "publictransport", "ticketoffice", "promotion", "wheelchair", "exit", "elevator",
        "restroom", "auditorium", "room", "handicapetc", "braileblock", "helpdog", "guidehuman", "audioguide",
        "bigprint", "brailepromotion", "guidesystem", "blindhandicapetc", "signguide", "videoguide", "hearingroom",
        "hearinghandicapetc", "stroller", "lactationroom", "babysparechair", "infantsfamilyetc",
    ]

    /// detailPetTour2's fields after `contentid` (`PetFriendliness.fields`).
    static let petNames = [
        "acmpyTypeCd", "acmpyPsblCpam", "acmpyNeedMtr", "relaPosesFclty", "relaFrnshPrdlst", "etcAcmpyInfo",
        "relaPurcPrdlst", "relaRntlPrdlst", "relaAcdntRiskMtr",
    ]
}
