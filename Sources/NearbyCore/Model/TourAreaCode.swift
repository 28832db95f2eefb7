/// TourAPI's `areaCode` (what `areacode` holds and `--areacode` asks for) and its relation to the
/// legal-dong 시도 code (`lDongRegnCd`, `--ldong`): the one table of the area-code convention.
///
/// TourAPI numbers its areas 1–8 (the metropolitan cities) and 31–39 (the provinces); the legal-dong
/// codes of the same areas are 11, 26–30, 36, 41–52. Two numbers are in both lists with different
/// meanings (31 is 경기 in TourAPI and 울산 in legal-dong codes; 36 is 경남 and 세종), so a code is
/// never guessed from its value: a source's `areacode` is taken as TourAPI's, its `lDongRegnCd` as a
/// legal-dong code. TourAPI's `sigunguCode` is a serial number within each area with no public
/// mapping from legal-dong codes, so the generator leaves it out rather than invent one.
/// Source: TourAPI 4.0 `areaCode2` (KorService2) answers and its manual's area list.
public enum TourAreaCode {
    /// TourAPI areaCode → name.
    public static let names: [String: String] = [
        "1": "서울", "2": "인천", "3": "대전", "4": "대구", "5": "광주", "6": "부산", "7": "울산", "8": "세종",
        "31": "경기", "32": "강원", "33": "충북", "34": "충남", "35": "경북", "36": "경남", "37": "전북",
        "38": "전남", "39": "제주",
    ]

    /// Legal-dong 시도 code (old and new, e.g. 강원 42 and 51) → TourAPI areaCode.
    public static let byLegalDong: [String: String] = [
        "11": "1", "28": "2", "30": "3", "27": "4", "29": "5", "26": "6", "31": "7", "36": "8",
        "41": "31", "42": "32", "51": "32", "43": "33", "44": "34", "47": "35", "48": "36",
        "45": "37", "52": "37", "46": "38", "50": "39",
    ]

    /// Whether `code` is one of TourAPI's area codes.
    public static func isAreaCode(_ code: String) -> Bool { names[code] != nil }

    /// The TourAPI areaCode of a legal-dong 시도 code (`11` → `1`); nil for an unknown code.
    public static func areaCode(legalDong sido: String) -> String? { byLegalDong[sido] }
}
