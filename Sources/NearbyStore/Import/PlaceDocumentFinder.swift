import NearbyCore

/// Finds the places inside JSON documents as people save them, whatever wraps them.
///
/// A **TourAPI item** is an object with `contentid` and `mapx` or `mapy` (old KorService and KorService1/2,
/// values as strings or as JSON numbers; list items and `detailCommon2` items alike). A **Kakao Local
/// document** is an object with `place_name` and `x` or `y`. Both are looked for at any depth: a bare
/// array, a collector's wrapper (`{"collectedAt":…,"items":[…]}`), a capture wrapper
/// (`{"ok":true,"url":…,"json":{"response":…}}`), a batch dump's `{"common":{…},"intro":{…},"image":[…]}`,
/// or one item per line. A **TourAPI detail** is an object with `contentid`, no coordinates, and a field
/// of detailWithTour2 or detailPetTour2 (`PlaceDetail.kind(ofKeys:)`). An object found is not searched
/// further; objects that are none of these (an `intro`, an `image` list) are passed over.
enum PlaceDocumentFinder {
    /// What a found object is.
    enum Kind { case tourItem, tourDetail, kakaoDocument }

    /// A found object and the path that names it in errors (`items[3]`, `[0]`, `common`).
    struct Found {
        var kind: Kind
        var object: JSONObject
        var path: String
    }

    static func kind(of o: JSONObject) -> Kind? {
        var contentid = false
        var map = false
        var placeName = false
        var xy = false
        for m in o.members {
            switch m.key {
            case "contentid": contentid = true
            case "mapx", "mapy": map = true
            case "place_name": placeName = true
            case "x", "y": xy = true
            default: break
            }
        }
        if contentid && map { return .tourItem }
        if placeName && xy { return .kakaoDocument }
        if contentid && PlaceDetail.kind(ofKeys: o.members.lazy.map(\.key)) != nil { return .tourDetail }
        return nil
    }

    /// Every TourAPI item and Kakao document in `value`, in document order.
    static func find(in value: JSONValue) -> [Found] {
        var found: [Found] = []
        walk(value, path: "", into: &found)
        return found
    }

    /// The first kind found in `value`, without collecting (format detection).
    static func firstKind(in value: JSONValue) -> Kind? {
        switch value {
        case .object(let o):
            if let k = kind(of: o) { return k }
            for m in o.members { if let k = firstKind(in: m.value) { return k } }
        case .array(let list):
            for e in list { if let k = firstKind(in: e) { return k } }
        default: break
        }
        return nil
    }

    /// A TourAPI error header somewhere in `value` (`resultCode` other than `0000`), as a message: why a
    /// captured response holds no places.
    static func errorHeader(in value: JSONValue) -> String? {
        switch value {
        case .object(let o):
            if let code = o["resultCode"]?.text, code != "0000", code != "00" {
                let message = o["resultMsg"]?.text ?? "no resultMsg"
                return
                    "TourAPI error envelope: resultCode \(MessageText.oneLine(code, limit: MessageText.echoLimit)): \(MessageText.oneLine(message, limit: MessageText.echoLimit))"
            }
            for m in o.members { if let e = errorHeader(in: m.value) { return e } }
        case .array(let list):
            for e in list { if let m = errorHeader(in: e) { return m } }
        default: break
        }
        return nil
    }

    private static func walk(_ value: JSONValue, path: String, into found: inout [Found]) {
        switch value {
        case .object(let o):
            if let k = kind(of: o) { return found.append(Found(kind: k, object: o, path: path)) }
            for m in o.members { walk(m.value, path: m.key, into: &found) }
        case .array(let list):
            for (i, e) in list.enumerated() { walk(e, path: "\(path)[\(i)]", into: &found) }
        default: break
        }
    }
}
