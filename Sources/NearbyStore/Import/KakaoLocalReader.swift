import NearbyCore

/// Kakao Local search documents (keyword and category search, `GET /v2/local/search/keyword.json` and
/// `category.json`): `{"meta":{…},"documents":[{"id":"26338954","place_name":"카카오프렌즈 코엑스점",
/// "category_name":"가정,생활 > 문구,사무용품 > …","category_group_code":"","category_group_name":"",
/// "phone":"02-6002-1880","address_name":"서울 강남구 삼성동 159","road_address_name":"서울 강남구 영동대로 513",
/// "x":"127.05902969025047","y":"37.51207412593136","place_url":"http://place.map.kakao.com/26338954",
/// "distance":"418"}]}`. Every value is a string; `x` is the LONGITUDE, `y` the latitude.
///
/// A document becomes a place: `id` is `kakao:` and Kakao's id (Kakao ids and TourAPI content ids are
/// both digits and would collide), `title` the `place_name`, `addr` the road address or else the lot
/// address, `tel` the `phone`, `kakaoCategory` the `category_group_code` (for `--kakao-category`); `category` the TourAPI content type of its category group (`contentTypes`,
/// 0 for a group with none); a café also gets TourAPI's café classification (`cat1..3` A05, A0502,
/// A05020900) so `--cat A05020900` finds cafés from both sources. Kakao gives no dates: `modified` is
/// nil, the oldest (a later TourAPI or Kakao record for the same id replaces it).
enum KakaoLocalReader {
    /// Kakao category group code → TourAPI content type id (Kakao's codes: developers.kakao.com, Local
    /// API, "category_group_code"). A group not listed, or none, is 0.
    static let contentTypes: [String: Int] = [
        "AT4": 12,  // 관광명소 tourist attraction → tourist spot
        "CT1": 14,  // 문화시설 culture facility → culture facility
        "AD5": 32,  // 숙박 stay → accommodation
        "FD6": 39,  // 음식점 restaurant → restaurant
        "CE7": 39,  // 카페 café → restaurant (TourAPI files cafés under 39, cat3 A05020900)
        "MT1": 38,  // 대형마트 large mart → shopping
        "CS2": 38,  // 편의점 convenience store → shopping
            // No TourAPI content type (0): PS3 kindergarten, SC4 school, AC5 academy, PK6 parking, OL7 fuel,
            // SW8 subway station, BK9 bank, AG2 estate agent, PO3 public office, HP8 hospital, PM9 pharmacy.
    ]

    static func readDocument(_ doc: JSONObject, line: Int, prefix: String, into sink: inout RecordSink) throws {
        var draft = PlaceDraft()
        var road = ""
        var lot = ""
        var group = ""
        do throws(FieldError) {
            for m in doc.members {
                guard let text = m.value.text else {
                    guard m.value == .null || !["id", "place_name", "x", "y"].contains(m.key) else {
                        throw FieldError(field: m.key, reason: "expected a string")
                    }
                    continue
                }
                func set(_ f: PlaceField, _ t: String) throws(FieldError) {
                    do { try draft.set(f, text: t) } catch { throw FieldError(field: m.key, reason: error.reason) }
                }
                switch m.key {
                case "id": if !text.isEmpty { try set(.id, "kakao:" + text) }
                case "place_name": try set(.title, text)
                case "x": try set(.lon, text)
                case "y": try set(.lat, text)
                case "phone": try set(.tel, text)
                case "road_address_name": road = text
                case "address_name": lot = text
                case "category_group_code": group = text
                default: continue
                }
            }
            try draft.set(.category, text: String(contentTypes[group] ?? 0))
            if !group.isEmpty { try draft.set(.kakaoCategory, text: group) }
            if group == "CE7" {
                try draft.set(.cat1, text: "A05")
                try draft.set(.cat2, text: "A0502")
                try draft.set(.cat3, text: "A05020900")
            }
            let addr = road.isEmpty ? lot : road
            do { try draft.set(.addr, text: addr) } catch {
                throw FieldError(field: road.isEmpty ? "address_name" : "road_address_name", reason: error.reason)
            }
            try draft.checkRequired()
        } catch {
            return try sink.reject(
                line: line, field: prefix + (kakaoNames[error.field] ?? error.field), reason: error.reason)
        }
        try sink.upsert(&draft.place, line: line) { prefix + (kakaoNames[$0] ?? $0) }
    }

    /// Place field name → Kakao key, for error messages.
    private static let kakaoNames = ["id": "id", "title": "place_name", "lon": "x", "lat": "y", "tel": "phone"]
}
