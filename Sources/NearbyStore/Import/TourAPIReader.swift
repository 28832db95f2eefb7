import Foundation
import NearbyCore

/// Raw TourAPI responses (KorService1 and KorService2: locationBasedList, areaBasedList, searchKeyword,
/// searchFestival, areaBasedSyncList, detailCommon2), as one document or as several responses one after
/// another (the pages of a paged fetch, one per line); and TourAPI items (or Kakao Local documents) in any
/// other JSON as people save them, found by `PlaceDocumentFinder`.
///
/// Shape: `{"response":{"header":{"resultCode":"0000","resultMsg":"OK"},"body":{"items":{"item":[...]},
/// "numOfRows":..,"pageNo":..,"totalCount":..}}}`; `items` is `""` on an empty page and `item` a single
/// object when there is one. Every value is a string. `mapx` is the LONGITUDE, `mapy` the latitude;
/// `addr1` and a non-empty `addr2` join with a space; `dist`, `firstimage2`, `mlevel`, `zipcode`,
/// `cpyrhtDivCd` and other keys are ignored. A sync-list item with `showflag` "0" is a delete. A
/// detailWithTour2 or detailPetTour2 item (no coordinates) is a detail record (`PlaceDetail`).
/// A response with another `resultCode` is an error envelope: the whole file is refused with its message.
/// Errors name TourAPI's own keys (`mapy`), prefixed with `item[i].` when items share a line.
enum TourAPIReader {
    /// TourAPI item keys and the place fields they fill.
    static let fields: [String: PlaceField] = [
        "contentid": .id, "title": .title, "mapy": .lat, "mapx": .lon, "contenttypeid": .category,
        "createdtime": .created, "modifiedtime": .modified, "areacode": .areacode, "sigungucode": .sigungucode,
        "tel": .tel, "firstimage": .image, "cat1": .cat1, "cat2": .cat2, "cat3": .cat3,
        "eventstartdate": .eventStart, "eventenddate": .eventEnd, "lDongRegnCd": .lDongRegnCd,
        "lDongSignguCd": .lDongSignguCd, "lclsSystm1": .lclsSystm1, "lclsSystm2": .lclsSystm2,
        "lclsSystm3": .lclsSystm3,
    ]
    /// Place field name → TourAPI key, for error messages.
    private static let tourNames: [String: String] =
        Dictionary(uniqueKeysWithValues: fields.map { ($0.value.name, $0.key) }).merging(["addr": "addr1"]) { a, _ in a
        }

    /// Reads every JSON value of `input` (one document, or several one after another): a response
    /// envelope as above, any other value searched for the places `accepting` names (`PlaceDocumentFinder`).
    static func read(
        _ input: UnsafeRawBufferPointer, accepting kind: PlaceDocumentFinder.Kind, into sink: inout RecordSink
    ) throws {
        var scanner = JSONScanner(input)
        var lines = LineCounter(input)
        while !scanner.atEnd() {
            let start = scanner.offset
            let response: JSONValue
            do throws(JSONError) {
                response = try scanner.readValue()
            } catch {
                // A broken page (e.g. a truncated last line): one bad record at the line where the page
                // starts; go on at the line after the error.
                let line = lines.line(at: start)
                let at = error.offset < input.count ? Lines.lineNumber(input, at: error.offset) : line
                try sink.reject(
                    line: line, field: "json", reason: error.reason + (at == line ? "" : " (at line \(at))"))
                scanner.offset = (Lines.memchrIndex(input, from: max(error.offset, scanner.offset)) ?? input.count) + 1
                continue
            }
            sink.advance(to: scanner.offset)
            if kind == .tourItem, response["response"] != nil || response["resultCode"] != nil {
                try readResponse(response, lines: &lines, into: &sink)
                continue
            }
            let found = PlaceDocumentFinder.find(in: response).filter {
                $0.kind == kind || (kind == .tourItem && $0.kind == .tourDetail)
            }
            let at = found.map { lines.line(at: $0.object.offset) }
            for (i, item) in found.enumerated() {
                let shared = (i > 0 && at[i - 1] == at[i]) || (i + 1 < at.count && at[i + 1] == at[i])
                let prefix = shared ? "\(item.path)." : ""
                try sink.checkSize(
                    item.object.end - item.object.offset, line: at[i], field: item.path.isEmpty ? "record" : item.path)
                switch kind {
                case .tourItem, .tourDetail: try readItem(item.object, line: at[i], prefix: prefix, into: &sink)
                case .kakaoDocument:
                    try KakaoLocalReader.readDocument(item.object, line: at[i], prefix: prefix, into: &sink)
                }
            }
        }
    }

    private static func readResponse(_ value: JSONValue, lines: inout LineCounter, into sink: inout RecordSink) throws {
        let header = value["response"]?["header"] ?? value
        let code = header["resultCode"]?.text
        guard code == "0000" || (code == nil && value["response"] != nil) else {
            let message = MessageText.oneLine(header["resultMsg"]?.text ?? "no resultMsg", limit: MessageText.echoLimit)
            let shownCode = code.map { MessageText.oneLine($0, limit: MessageText.echoLimit) } ?? "missing"
            throw UnsupportedInputError(
                file: sink.file, message: "TourAPI error envelope: resultCode \(shownCode): \(message)")
        }
        guard let body = value["response"]?["body"] else {
            throw UnsupportedInputError(file: sink.file, message: "TourAPI response without response.body")
        }
        let items: [JSONValue]
        switch body["items"]?["item"] {
        case .array(let list)?: items = list
        case let single? where single != .string(""): items = [single]
        default: items = []
        }
        for (i, (item, (line, prefix))) in zip(items, lines.locate(items, name: "item")).enumerated() {
            guard case .object(let o) = item else {
                try sink.reject(line: line, field: prefix + "item", reason: "not an object")
                continue
            }
            try sink.checkSize(o.end - o.offset, line: line, field: "item[\(i)]")
            try readItem(o, line: line, prefix: prefix, into: &sink)
        }
    }

    private static func readItem(_ item: JSONObject, line: Int, prefix: String, into sink: inout RecordSink) throws {
        if PlaceDocumentFinder.kind(of: item) == .tourDetail {
            return try readDetail(item, line: line, prefix: prefix, into: &sink)
        }
        var draft = PlaceDraft()
        var addr1 = ""
        var addr2 = ""
        var showflag: String?
        do throws(FieldError) {
            for m in item.members {
                let text: String
                switch m.value {
                case .string(let s), .number(let s): text = s
                case .null: continue
                default:
                    // Collectors add nested keys of their own; only TourAPI's fields must be scalars.
                    guard fields[m.key] != nil || ["addr1", "addr2", "showflag"].contains(m.key) else { continue }
                    throw FieldError(field: m.key, reason: "expected a string")
                }
                switch m.key {
                case "addr1": addr1 = text
                case "addr2": addr2 = text
                case "showflag": showflag = text
                default:
                    guard let f = fields[m.key] else { continue }
                    do { try draft.set(f, text: text) } catch { throw FieldError(field: m.key, reason: error.reason) }
                }
            }
            let addr = addr2.isEmpty ? addr1 : addr1.isEmpty ? addr2 : addr1 + " " + addr2
            do { try draft.set(.addr, text: addr) } catch { throw FieldError(field: "addr1", reason: error.reason) }
        } catch {
            return try sink.reject(line: line, field: prefix + error.field, reason: error.reason)
        }
        if showflag == "0" {
            guard !draft.place.id.isEmpty else {
                return try sink.reject(line: line, field: prefix + "contentid", reason: "missing")
            }
            return try sink.delete(id: draft.place.id, line: line, idField: prefix + "contentid")
        }
        do throws(FieldError) { try draft.checkRequired() } catch {
            return try sink.reject(
                line: line, field: prefix + (tourNames[error.field] ?? error.field), reason: error.reason)
        }
        // TourAPI gives online events (and some withdrawn places) the coordinate 0: no position, not 0°.
        if draft.place.lon == 0 || draft.place.lat == 0 {
            let field = draft.place.lon == 0 ? "mapx" : "mapy"
            return try sink.reject(
                line: line, field: prefix + field, reason: "0 is TourAPI's placeholder for a place without coordinates")
        }
        try sink.upsert(&draft.place, line: line) { prefix + (tourNames[$0] ?? $0) }
    }

    /// A detailWithTour2 or detailPetTour2 item: its `contentid` and the kind's fields with text (numbers
    /// as their text, trimmed, NFC as the validator makes place text; other keys such as `contenttypeid`
    /// ignored).
    private static func readDetail(_ item: JSONObject, line: Int, prefix: String, into sink: inout RecordSink) throws {
        guard let kind = PlaceDetail.kind(ofKeys: item.members.map(\.key)) else { return }
        var id = ""
        var fields: [PlaceDetail.Field] = []
        for m in item.members {
            let text: String
            switch m.value {
            case .string(let s), .number(let s):
                text = TextNormalization.nfc(s.trimmingCharacters(in: .whitespacesAndNewlines))
            case .null: continue
            default:
                guard m.key == "contentid" || PlaceDetail.isField(m.key, of: kind) else { continue }
                return try sink.reject(line: line, field: prefix + m.key, reason: "expected a string")
            }
            if m.key == "contentid" {
                id = text
            } else if PlaceDetail.isField(m.key, of: kind), !text.isEmpty {
                fields.append(PlaceDetail.Field(name: m.key, text: text))
            }
        }
        guard !id.isEmpty else { return try sink.reject(line: line, field: prefix + "contentid", reason: "missing") }
        try sink.detail(PlaceDetail(id: id, kind: kind, fields: fields), line: line)
    }

    /// TourAPI answers some errors (an unregistered service key, a wrong URL) in XML even when JSON was
    /// asked for: `<OpenAPI_ServiceResponse><cmmMsgHeader><returnAuthMsg>...`. Returns that message.
    static func xmlErrorMessage(_ input: UnsafeRawBufferPointer) -> String? {
        let text = String(decoding: input.prefix(4096), as: UTF8.self)
        guard text.contains("OpenAPI_ServiceResponse") || text.contains("cmmMsgHeader") else { return nil }
        func tag(_ name: String) -> String? {
            guard let open = text.range(of: "<\(name)>"),
                let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex)
            else { return nil }
            return MessageText.oneLine(String(text[open.upperBound..<close.lowerBound]), limit: MessageText.echoLimit)
        }
        let message = [tag("returnAuthMsg"), tag("errMsg"), tag("returnReasonCode").map { "returnReasonCode \($0)" }]
            .compactMap { $0 }.joined(separator: ", ")
        return "TourAPI error envelope (XML): \(message.isEmpty ? "no message" : message)"
    }
}
