/// South Korea's administrative levels, legal-dong (법정동) style: 시도 (2-digit code), 시군구
/// (5 digits; a city split into 일반구, such as 수원시, is a 시군구-level region whose code ends in 0
/// and which holds its 구), 읍면동 (8 digits) and 리 (10 digits).
public enum RegionLevel: Int, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    case sido, sigungu, emd, ri

    public static func < (a: RegionLevel, b: RegionLevel) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .sido: "sido"
        case .sigungu: "sigungu"
        case .emd: "emd"
        case .ri: "ri"
        }
    }
}

/// One administrative region with today's code.
public struct Region: Sendable, Hashable, CustomStringConvertible {
    /// Index in `RegionIndex.regions`.
    public let id: Int
    public let level: RegionLevel
    /// Today's legal-dong code (see data/region-code-changes.tsv for the towns whose 읍면동/리 digits
    /// are still the source's).
    public let code: String
    /// The region's own name: `종로구`, `수원시 장안구`, `청운동`.
    public let name: String
    /// Names from the 시도 down: `서울특별시 종로구 청운동`.
    public let fullName: String
    /// Earlier codes of this region (from the dated change table).
    public let formerCodes: [String]
    /// A city's 일반구 (수원시 → its four 구), otherwise empty.
    public let parts: [Int]
    /// The names from the 시도 down, a city and its 구 apart (`경기도`, `수원시`, `장안구`): what names match.
    let pathTokens: [String]

    public var description: String { "\(fullName) (\(code))" }
}

/// Where a point is: the regions holding it, from the 시도 down. `ri` is nil outside 읍·면 (and
/// where the village layer has a gap); `emd` can be nil only for `unknown` answers.
public struct RegionPath: Sendable, Equatable {
    public var sido: Region
    public var sigungu: Region?
    public var emd: Region?
    public var ri: Region?

    /// The deepest region.
    public var deepest: Region { ri ?? emd ?? sigungu ?? sido }
}

/// The answer to "where is this point?": a region, or `unknown` with the nearest region and the
/// distance to its boundary. Never an error.
public enum RegionLocation: Sendable, Equatable {
    case inside(RegionPath)
    /// `distance` in metres (haversine on the mean Earth radius) to the nearest boundary point.
    case unknown(nearest: RegionPath, distance: Double)
}

/// What a region name or code resolves to.
public enum RegionResolution: Sendable, Equatable {
    /// One region, or several that together make up what the text names (an old code whose region
    /// was split, such as 인천 중구 28110 → 제물포구 + 영종구).
    case found([Region])
    /// A name that fits several regions (there are several 중구): refuse and list them.
    case ambiguous([Region])
    case notFound
}

/// How a place's own legal-dong codes compare with the region under its coordinates.
public enum RegionCodeCheck: Sendable, Equatable {
    /// The given codes name the region holding the point (today's or an older code).
    case agrees(lDongRegnCd: String, lDongSignguCd: String)
    /// The place had no codes: these are derived from its coordinates.
    case derived(lDongRegnCd: String, lDongSignguCd: String)
    /// The given codes name another region: `found` holds the point (a warning, not a rejection).
    case disagrees(given: String, found: Region, message: String)
    /// The point is in no region (at sea, abroad): nothing to derive or check.
    case unknownLocation
}
