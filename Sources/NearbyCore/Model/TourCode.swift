/// One code of a TourAPI code list, as `areaCode2`, `categoryCode2`, `ldongCode2` and `lclsSystmCode2`
/// answer them: its level in the list's tree (1, 2, 3), the code, its name in the service's language and
/// the code of the level above ("" at level 1). A list is kept in the service's order (each level 1 code,
/// then its level 2 codes, each followed by its level 3 codes). A code is unique under its parent only:
/// `areaCode2` numbers each area's 시군구 from 1.
public struct TourCode: Sendable, Equatable {
    public var level: Int
    public var code: String
    public var name: String
    public var parent: String

    public init(level: Int, code: String, name: String, parent: String) {
        self.level = level
        self.code = code
        self.name = name
        self.parent = parent
    }
}

/// TourAPI's code lists, by operation name: the service's areas and their 시군구, its service
/// classification (cat1/2/3), the legal-dong 시도 and 시군구, and the new classification (lclsSystm1/2/3).
public enum TourCodeList: String, CaseIterable, Sendable {
    case areas = "areaCode2"
    case serviceCategories = "categoryCode2"
    case legalDongs = "ldongCode2"
    case classification = "lclsSystmCode2"
}
