/// The filters on codes KorService2 and Kakao Local give a place: `--cat` (cat1..3), `--lcls`
/// (lclsSystm1..3), `--ldong` (lDongRegnCd + lDongSignguCd) and `--kakao-category`
/// (category_group_code). The one rule for each, used by every engine: the memory and snapshot
/// engines test dictionary codes of `key(of:)` (`RowFilter`), any other engine can call `matches`.
///
/// - `cat`, `lcls`: hierarchical codes, each level's code starting with its parent's (cat1 `A05`,
///   cat2 `A0502`, cat3 `A05020900`; lclsSystm1 `FD`, lclsSystm2 `FD05`, lclsSystm3 `FD050100`). A
///   wanted code matches a place when one of the place's levels starts with it, so `A05` finds every
///   food place and `A05020900` only cafés, as TourAPI's cat1/cat2/cat3 parameters do (and a place
///   that gives only its cat3 is still found by its cat1).
/// - `ldong`: a 시도 code (2 digits, lDongRegnCd) or a 시군구 code (5 digits, lDongRegnCd followed by
///   lDongSignguCd) matches a place whose lDongRegnCd + lDongSignguCd starts with it. The request
///   parser adds the region's former codes (data/region-code-changes.tsv: `51` also asks for `42`),
///   so places stored with old or new codes are both found.
/// - `kakaoCategory`: equality (`CE7`).
/// - `pet`: equality with the place's pet-friendliness level (`--pet all,some`; `PetFriendliness`).
public enum CodeFamily: Int, CaseIterable, Sendable {
    case cat, lcls, ldong, kakaoCategory, pet

    /// Separates a place's levels in `key` (a control character no code holds).
    static let separator: Character = "\u{1F}"

    /// The text of a place this family matches on: its levels joined by `separator`, the 5-digit
    /// legal-dong code, or the Kakao group; nil when the place has none.
    public func key(of p: Place) -> String? { key { p[text: $0] } }

    /// The same key from a place's text fields as `text` reads them (for readers that hold stored
    /// columns, not places: the snapshot writer's scan of the cache).
    public func key(text: (PlaceField) -> String?) -> String? {
        func levels(_ fields: PlaceField...) -> String? {
            let present = fields.compactMap(text).filter { !$0.isEmpty }
            return present.isEmpty ? nil : present.joined(separator: String(Self.separator))
        }
        func nonEmpty(_ field: PlaceField) -> String? { text(field).flatMap { $0.isEmpty ? nil : $0 } }
        switch self {
        case .cat: return levels(.cat1, .cat2, .cat3)
        case .lcls: return levels(.lclsSystm1, .lclsSystm2, .lclsSystm3)
        case .ldong:
            guard let regn = nonEmpty(.lDongRegnCd) else { return nil }
            return regn + (text(.lDongSignguCd) ?? "")
        case .kakaoCategory: return nonEmpty(.kakaoCategory)
        case .pet: return nonEmpty(.pet)
        }
    }

    /// Whether a `key` matches one of the wanted codes, by the family's rule (on the type).
    public func matches(key: String, wanted: Set<String>) -> Bool {
        switch self {
        case .cat, .lcls:
            return key.split(separator: Self.separator).contains { level in wanted.contains { level.hasPrefix($0) } }
        case .ldong: return wanted.contains { key.hasPrefix($0) }
        case .kakaoCategory, .pet: return wanted.contains(key)
        }
    }

    /// The stem of this family's snapshot section tags (`IndexSnapshot`: C codes, O offsets, B bytes).
    var snapshotTag: String {
        switch self {
        case .cat: "CAT"
        case .lcls: "LCL"
        case .ldong: "LDG"
        case .kakaoCategory: "KKO"
        case .pet: "PET"
        }
    }

    /// Removes this family's condition from a filter.
    func clear(in f: inout PlaceFilter) {
        switch self {
        case .cat: f.cat = nil
        case .lcls: f.lcls = nil
        case .ldong: f.ldong = nil
        case .kakaoCategory: f.kakaoCategories = nil
        case .pet: f.pet = nil
        }
    }

    /// The wanted codes of this family in a filter; nil when it does not filter on it.
    public func wanted(in f: PlaceFilter) -> Set<String>? {
        switch self {
        case .cat: f.cat
        case .lcls: f.lcls
        case .ldong: f.ldong
        case .kakaoCategory: f.kakaoCategories
        case .pet: f.pet
        }
    }
}

extension PlaceFilter {
    /// Whether `p` passes the code filters (`CodeFamily`); the other conditions are not checked here.
    public func codesMatch(_ p: Place) -> Bool {
        for family in CodeFamily.allCases {
            guard let wanted = family.wanted(in: self) else { continue }
            guard let key = family.key(of: p), family.matches(key: key, wanted: wanted) else { return false }
        }
        return true
    }
}
