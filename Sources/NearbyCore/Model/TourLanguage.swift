/// The languages TourAPI publishes places in, each from a service of its own (KorService2, EngService2,
/// …), and how a language's places live in one cache beside the Korean ones.
///
/// A foreign-language service is a separate publication, not a translation keyed to the Korean one: its
/// places have content ids of their own and its lists hold other places. So a place synced in English is
/// a place of its own in the cache, with the id `en:<contentid>` (`storedID`), as a Kakao place is
/// `kakao:<id>`: it can never overwrite or delete a Korean place, nor one of another language, and
/// every import rule (newer-or-equal wins, deletes, details, checksums) holds for it unchanged. The
/// Korean places keep their bare content ids. Queries answer one language at a time (`--lang`, default
/// Korean): the engines over the cache hold only the Korean places (`isKorean(id:)`); a language's
/// places are answered from an engine of their own (`PlaceCache.places(of:)`).
///
/// The foreign-language services number content types differently (`serviceContentTypes`); the cache
/// stores the Korean number, so `--category 12` means attractions in every language.
public enum TourLanguage: String, CaseIterable, Sendable {
    case ko, en, ja
    case zhCN = "zh-CN"
    case zhTW = "zh-TW"
    case de, fr, es, ru

    /// The code `--lang` and `lang=` take (BCP 47: `en`, `zh-CN`).
    public var code: String { rawValue }

    /// The language of a code, case-insensitive (`zh-cn` is `zh-CN`); nil for another.
    public init?(code: String) {
        guard let found = Self.allCases.first(where: { $0.rawValue.lowercased() == code.lowercased() }) else {
            return nil
        }
        self = found
    }

    /// The TourAPI 4.0 service that publishes the language (the second generation's).
    public var service: String {
        switch self {
        case .ko: "KorService2"
        case .en: "EngService2"
        case .ja: "JpnService2"
        case .zhCN: "ChsService2"
        case .zhTW: "ChtService2"
        case .de: "GerService2"
        case .fr: "FreService2"
        case .es: "SpnService2"
        case .ru: "RusService2"
        }
    }

    /// The language a service publishes (`EngService2` → `en`); nil for a service that is not a list service.
    public init?(service: String) {
        guard let found = Self.allCases.first(where: { $0.service == service }) else { return nil }
        self = found
    }

    /// The prefix of the language's ids in the cache (`en:`); empty for Korean.
    public var idPrefix: String { self == .ko ? "" : rawValue + ":" }

    /// The cache's id of the service's `contentid`.
    public func storedID(_ contentid: String) -> String { idPrefix + contentid }

    /// The service's `contentid` of a cached id (the id itself when it has no prefix of this language).
    public func contentID(_ stored: String) -> String {
        self == .ko || !stored.hasPrefix(idPrefix) ? stored : String(stored.dropFirst(idPrefix.count))
    }

    /// The language of a cached place: the one whose prefix its id has, else Korean.
    public static func of(id: String) -> TourLanguage {
        guard let colon = id.utf8.firstIndex(of: UInt8(ascii: ":")) else { return .ko }
        let head = id.utf8.distance(from: id.utf8.startIndex, to: colon)
        guard head == 2 || head == 5 else { return .ko }
        return foreign[String(id[..<colon])] ?? .ko
    }

    /// Whether a cached id is a Korean place's (no language prefix): what the engines over the cache hold.
    public static func isKorean(id: String) -> Bool { of(id: id) == .ko }

    private static let foreign: [String: TourLanguage] = Dictionary(
        uniqueKeysWithValues: allCases.filter { $0 != .ko }.map { ($0.rawValue, $0) })

    /// Korean content type → the foreign-language services' number. Courses (25) are Korean only;
    /// transportation (77) is the foreign services' only, and kept as 77.
    public static let serviceContentTypes: [Int: Int] = [
        12: 76, 14: 78, 15: 85, 28: 75, 32: 80, 38: 79, 39: 82,
    ]
    /// The foreign-language services' content type → the Korean number (77 transportation has none).
    public static let koreanContentTypes: [Int: Int] = Dictionary(
        uniqueKeysWithValues: serviceContentTypes.map { ($0.value, $0.key) })
    /// The foreign-language services' transportation type, which has no Korean counterpart.
    public static let transportation = 77

    /// The content type this language's service writes for a stored (Korean-numbered) one.
    public func serviceContentType(_ stored: Int) -> Int {
        self == .ko ? stored : Self.serviceContentTypes[stored] ?? stored
    }

    /// The stored (Korean) number of a content type this language's service wrote.
    public func storedContentType(_ service: Int) -> Int {
        self == .ko ? service : Self.koreanContentTypes[service] ?? service
    }

    /// The content types this language's service lists, in its own numbers.
    public var serviceContentTypeIDs: [Int] {
        self == .ko
            ? [12, 14, 15, 25, 28, 32, 38, 39] : (Array(Self.koreanContentTypes.keys) + [Self.transportation]).sorted()
    }
}
