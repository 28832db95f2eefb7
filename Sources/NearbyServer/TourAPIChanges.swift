import Foundation
import Hummingbird
import NearbyKit

/// `areaBasedSyncList2` (and KorService1's `areaBasedSyncList1`): the cache's own change history
/// (`PlaceCache.forEachChange`), so another server follows Nearby as `nearby sync tourapi` follows
/// TourAPI. Each item is the list item of the place as it is (or was, when removed) with `showflag`
/// `1`, or `0` for a removed place; `modifiedtime` selects by when the cache changed the place (a
/// prefix of its Korean `yyyyMMddHHmmss`: `YYYY`, `YYYYMM` or `YYYYMMDD`), while the item's own
/// `modifiedtime` stays the place's. A language service's list holds its language's places only
/// (`TourLanguage`), in its content type numbers. The same filters as `areaBasedList2` (content type, area,
/// classification, legal-dong codes), paged as the details are; the order is the history's: cached
/// places as they were first stored, then removed ones by id.
extension TourAPI {
    func changes(
        _ operation: TourOperation, given: [String: String], pairs: [(name: String, value: String)], format: Format
    ) async throws -> Response {
        guard !engine.isPostGIS else {
            throw APIError(
                .notFound, parameter: nil,
                "\(operation.name) is answered from a cache's change history; the postgis engine keeps none")
        }
        let prefix = given["modifiedtime"] ?? ""
        guard
            prefix.isEmpty
                || ([4, 6, 8].contains(prefix.utf8.count) && prefix.utf8.allSatisfy { (0x30...0x39).contains($0) })
        else {
            throw APIError(
                .badRequest, parameter: "modifiedtime",
                "\(MessageText.quoted(prefix)) is not a date prefix (YYYY, YYYYMM or YYYYMMDD)")
        }
        let side: PlaceCache.ChangeSide
        switch given["showflag"] ?? "" {
        case "": side = .both
        case "1": side = .cached
        case "0": side = .removed
        case let other: throw APIError(.badRequest, parameter: "showflag", "\(MessageText.quoted(other)) is not 1 or 0")
        }
        let (rows, page) = try paging(given)
        let filter = try parse(pairs).filter
        let path = engine.path
        let generation = operation.generation
        let language = operation.language
        let (skip, overflow) = (page - 1).multipliedReportingOverflow(by: rows)
        let (items, total) = try await engine.current.withLane(small: false, timeout: options.requestTimeout) { _, _ in
            let cache = try PlaceCache(path: path, readOnly: true)
            var items: [[(String, String)]] = []
            var total = 0
            try cache.forEachChange(prefix: prefix, side: side) { change in
                guard TourLanguage.of(id: change.place.id) == language, Self.passes(change.place, filter) else {
                    return
                }
                defer { total += 1 }
                guard !overflow, total >= skip, items.count < rows else { return }
                let p = change.place
                items.append(
                    Self.fields(p, generation, language, dist: nil, eventDates: p.category == 15) + [
                        ("showflag", change.removed ? "0" : "1")
                    ])
            }
            return (items, total)
        }
        var out = Self.header(format)
        Self.appendItems(items, format: format, to: &out)
        out.append(contentsOf: Self.footer(numOfRows: rows, pageNo: page, totalCount: total, format: format))
        return Response(
            status: .ok, headers: [.contentType: format.contentType], body: .init(byteBuffer: ByteBuffer(bytes: out)))
    }

    /// Whether a place passes the filters a sync list takes: content types, areas, 시군구, the
    /// classification and legal-dong codes (`CodeFamily`), and a detail service's kind of detail (a removed
    /// place by the detail it had).
    static func passes(_ p: Place, _ f: PlaceFilter) -> Bool {
        if let c = f.categories, !c.contains(p.category) { return false }
        if let a = f.areacodes, !a.contains(p.areacode ?? "") { return false }
        if let s = f.sigungucodes, !s.contains(p.sigungucode ?? "") { return false }
        if !f.details.allSatisfy(p.hasDetail) { return false }
        return f.codesMatch(p)
    }
}
