import Foundation
import Hummingbird
import NearbyKit

/// TourAPI's detail operations: answers built from one place, paged in memory (`page`, which the code
/// lists share), in the same envelope as the lists.
extension TourAPI {
    /// A detail of the place `id`: its items (`detailItems`), none when the place is not cached.
    func detail(_ operation: TourOperation, _ id: String, given: [String: String], format: Format) async throws
        -> Response
    {
        let (rows, page) = try paging(given)
        var flags: [String: Bool] = [:]
        for name in operation.flags { flags[name] = try Self.flag(name, given[name]) }
        // A service's contentId names a place of its language: the cached id carries the language's prefix,
        // and a Korean service never answers another language's place.
        let stored = operation.language.storedID(id)
        var place: Place?
        if TourLanguage.of(id: stored) == operation.language {
            place = try await engine.current.place(id: stored, timeout: options.requestTimeout)
        }
        // A detail service (KorWithService2, KorPetTourService2) has the places with its detail only.
        if let kind = operation.detail, place?.hasDetail(kind) == false { place = nil }
        let items = place.map { Self.detailItems(operation, $0, flags: flags) } ?? []
        return Self.page(items, rows: rows, page: page, format: format)
    }

    /// `numOfRows` (1…`--max-limit`, default 10) and `pageNo` (from 1, default 1) of an answer paged here.
    func paging(_ given: [String: String]) throws -> (rows: Int, page: Int) {
        func number(_ name: String, _ fallback: Int, most: Int) throws -> Int {
            guard let text = given[name], !text.isEmpty else { return fallback }
            guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let n = Int(text), (1...most).contains(n)
            else {
                throw APIError(
                    .badRequest, parameter: name, "\(MessageText.quoted(text)) is not a whole number from 1 to \(most)")
            }
            return n
        }
        return (try number("numOfRows", 10, most: options.maxLimit), try number("pageNo", 1, most: 1_000_000_000))
    }

    /// A `…YN` flag: `Y` true, `N` false (either case); absent or empty its default (`imageYN` and
    /// `subImageYN` Y, detailCommon1's N); anything else refused (`10`).
    static func flag(_ name: String, _ value: String?) throws -> Bool {
        switch value?.uppercased() ?? "" {
        case "Y": return true
        case "N": return false
        case "": return name == "imageYN" || name == "subImageYN"
        default: throw APIError(.badRequest, parameter: name, "\(MessageText.quoted(value ?? "")) is not Y or N")
        }
    }

    /// One page of `items` in TourAPI's envelope, `totalCount` all of them.
    static func page(_ items: [[(String, String)]], rows: Int, page: Int, format: Format) -> Response {
        let (skip, overflow) = (page - 1).multipliedReportingOverflow(by: rows)
        let shown = overflow ? [] : Array(items.dropFirst(skip).prefix(rows))
        var out = header(format)
        appendItems(shown, format: format, to: &out)
        out.append(contentsOf: footer(numOfRows: rows, pageNo: page, totalCount: items.count, format: format))
        return Response(
            status: .ok, headers: [.contentType: format.contentType], body: .init(byteBuffer: ByteBuffer(bytes: out)))
    }

    /// The items a detail operation answers for a cached place, from what the cache keeps:
    /// - detailCommon2: the list fields (and a festival's dates), `telname`, `homepage` and `overview`
    ///   empty; detailCommon1: `contentid`,
    ///   `contenttypeid` and the groups its flags ask for, fields the cache does not keep empty.
    /// - detailImage: the place's one image (`firstimage`) as `originimgurl` and `smallimageurl`, none
    ///   for `imageYN=N` (menu images) or a place without an image.
    /// - detailIntro, detailInfo: none (the cache keeps no intro or repeated info fields).
    /// - detailWithTour2, detailPetTour2: the stored detail's texts, every field of the kind (empty when
    ///   the detail did not give it); none when no such detail was imported.
    static func detailItems(_ operation: TourOperation, _ p: Place, flags: [String: Bool]) -> [[(String, String)]] {
        switch operation.kind {
        case .common where operation.generation == .two:
            return [fields(p, .two, operation.language, dist: nil, eventDates: p.category == 15) + detailOnly]
        case .common:
            let known = Dictionary(
                fields(p, .one, dist: nil, eventDates: false) + [("homepage", ""), ("telname", ""), ("overview", "")],
                uniquingKeysWith: { a, _ in a })
            var item = [("contentid", p.id), ("contenttypeid", String(p.category))]
            for (flag, names) in commonOneGroups where flags[flag] == true {
                item += names.map { ($0, known[$0] ?? "") }
            }
            return [item]
        case .image:
            guard flags["imageYN"] != false, let image = p.image, !image.isEmpty else { return [] }
            return [
                [
                    ("contentid", operation.language.contentID(p.id)), ("imgname", ""), ("originimgurl", image),
                    ("serialnum", "1"),
                    ("smallimageurl", image), ("cpyrhtDivCd", ""),
                ]
            ]
        case .barrierFree:
            return stored(p.barrierFree, names: barrierFreeNames, id: p.id)
        case .pet:
            return stored(p.petInfo, names: petNames, id: p.id)
        case .intro, .info, .locationList, .areaList, .keywordList, .festivalList, .stayList, .areaCodes,
            .syncList, .legalDongCodes, .classificationCodes, .serviceCategoryCodes:
            return []
        }
    }

    /// detailCommon2's fields beyond the list's, which the cache does not keep: written empty, so an app
    /// that reads them finds them.
    static let detailOnly = [("telname", ""), ("homepage", ""), ("overview", "")]

    /// A stored detail (`PlaceDetail.originalText`) as one item: `contentid`, then `names` in order.
    private static func stored(_ text: String?, names: [String], id: String) -> [[(String, String)]] {
        guard let text, let fields = PlaceDetail.fields(fromOriginalText: text) else { return [] }
        let byName = Dictionary(fields.map { ($0.name, $0.text) }, uniquingKeysWith: { a, _ in a })
        return [[("contentid", id)] + names.map { ($0, byName[$0] ?? "") }]
    }
}
