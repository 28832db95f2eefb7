import NearbyCore

/// One filter per `PlaceFilter.Condition`, setting that condition alone, each selective on
/// `QuerySampler`'s places (some pass, some do not). The filter layer tests run every one through
/// every layer — the request parser, the cursor fingerprint, each engine, the PostGIS SQL — so a
/// condition one layer forgets fails there. A new condition does not compile until it has a case here.
public enum FilterExamples {
    /// The area of the `region` example: places within 0.05° of Seoul City Hall, as a region
    /// resolver would give it (a box and a membership test).
    public static let circleArea = AreaFilter(
        codes: ["circle"], box: GeoBox(minLon: 126.928, minLat: 37.5165, maxLon: 127.028, maxLat: 37.6165)
    ) { lat, lon in (lat - 37.5665) * (lat - 37.5665) + (lon - 126.978) * (lon - 126.978) <= 0.0025 }

    /// Resolves the `region` example's code (`circle`), so a parsed query holds the same area.
    public struct Areas: AreaResolver {
        public init() {}
        public func area(_ text: String) throws(RequestError) -> AreaFilter {
            guard text == "circle" else { throw RequestError(parameter: "region", reason: "unknown region") }
            return FilterExamples.circleArea
        }
        public func union(_ areas: [AreaFilter]) -> AreaFilter { areas[0] }
    }

    public static func filter(_ condition: PlaceFilter.Condition) -> PlaceFilter {
        var f = PlaceFilter()
        switch condition {
        case .categories: f.categories = [39, 12]
        case .areacodes: f.areacodes = ["1", "3"]
        case .sigungucodes: f.sigungucodes = ["7"]
        case .keyword: f.keyword = "ㄱㅂ"
        case .created: f.created = 20_180_101_000_000...20_211_231_235_959
        case .modified: f.modified = 20_230_101_000_000...20_251_231_235_959
        case .eventPeriod: f.eventPeriod = 20_250_301...20_250_630
        case .withImage: f.withImage = true
        case .accessibility: f.accessibility = [Accessibility.tags[0]]
        case .bbox: f.bbox = GeoBox(minLon: 126.9, minLat: 37.5, maxLon: 127.05, maxLat: 37.6)
        case .region: f.region = circleArea
        case .cat: f.cat = ["A05"]
        case .lcls: f.lcls = ["FD05", "HS"]
        case .ldong: f.ldong = ["11", "42140"]
        case .kakaoCategories: f.kakaoCategories = ["CE7"]
        case .pet: f.pet = ["all", "some"]
        case .details: f.details = [.barrierFree]
        }
        return f
    }
}
