import Foundation
import NearbyCore

/// A field-level problem before the file and line are known: `field: reason`.
typealias FieldError = PlaceJSON.DecodeError

/// The one set of record rules every input format shares.
///
/// Checks: `id` non-empty; `lat` in [-90, 90] and `lon` in [-180, 180], both finite; `created`/`modified`
/// a `yyyyMMddHHmmss` date-time and `eventStart`/`eventEnd` a `yyyyMMdd` date (each field in its range,
/// see `validDay`), with start ≤ end;
/// accessibility tags from `Accessibility.tags` (the list comes out sorted and unique); `pet` one of
/// `PetFriendliness.levels`. Normalises every
/// text field to NFC (Unicode canonical composition), so a decomposed 한글 title matches a composed query.
enum PlaceValidator {
    static func validate(_ place: inout Place) throws(FieldError) {
        guard !place.id.isEmpty else { throw FieldError(field: "id", reason: "missing") }
        guard place.lat.isFinite else { throw FieldError(field: "lat", reason: "not a finite number") }
        guard place.lon.isFinite else { throw FieldError(field: "lon", reason: "not a finite number") }
        guard (-90...90).contains(place.lat) else {
            throw FieldError(field: "lat", reason: "\(place.lat) is outside [-90, 90]")
        }
        guard (-180...180).contains(place.lon) else {
            throw FieldError(field: "lon", reason: "\(place.lon) is outside [-180, 180]")
        }
        if let s = place.created, !TourDate.isDateTime(s) { throw notDate(.created, s, "yyyyMMddHHmmss date-time") }
        if let s = place.modified, !TourDate.isDateTime(s) { throw notDate(.modified, s, "yyyyMMddHHmmss date-time") }
        if let s = place.eventStart, !TourDate.isDay(s) { throw notDate(.eventStart, s, "yyyyMMdd date") }
        if let s = place.eventEnd, !TourDate.isDay(s) { throw notDate(.eventEnd, s, "yyyyMMdd date") }
        if let start = place.eventStart, let end = place.eventEnd, end < start {
            throw FieldError(field: "eventEnd", reason: "\(end) is before eventStart \(start)")
        }
        if !place.accessibility.isEmpty {
            for tag in place.accessibility where Accessibility.bit(tag) == nil {
                throw FieldError(
                    field: "accessibility",
                    reason: "unknown tag \(quoted(tag)) (known: \(Accessibility.tags.joined(separator: ", ")))")
            }
            place.accessibility = Array(Set(place.accessibility)).sorted()
        }
        if let pet = place.pet, !PetFriendliness.levels.contains(pet) {
            throw FieldError(
                field: "pet", reason: "\(quoted(pet)) is not one of \(PetFriendliness.levels.joined(separator: ", "))")
        }
        nfc(&place.id)
        nfc(&place.title)
        nfc(&place.created)
        nfc(&place.modified)
        nfc(&place.areacode)
        nfc(&place.sigungucode)
        nfc(&place.addr)
        nfc(&place.tel)
        nfc(&place.image)
        nfc(&place.cat1)
        nfc(&place.cat2)
        nfc(&place.cat3)
        nfc(&place.eventStart)
        nfc(&place.eventEnd)
        nfc(&place.lDongRegnCd)
        nfc(&place.lDongSignguCd)
        nfc(&place.lclsSystm1)
        nfc(&place.lclsSystm2)
        nfc(&place.lclsSystm3)
        nfc(&place.barrierFree)
        nfc(&place.petInfo)
    }

    private static func notDate(_ f: PlaceField, _ s: String, _ form: String) -> FieldError {
        FieldError(field: f.name, reason: "\(quoted(s)) is not a \(form)")
    }

    @inline(__always) private static func nfc(_ s: inout String) { s = TextNormalization.nfc(s) }

    @inline(__always) private static func nfc(_ s: inout String?) { s = s.map(TextNormalization.nfc) }

    /// A value quoted for a message: cut short when long, control characters visible (`MessageText`).
    static func quoted(_ s: String) -> String { MessageText.quoted(s) }
}

/// One record's fields as an input spells them, turned into a `Place` by the rules all text-valued
/// formats (CSV, TSV, TourAPI, GeoJSON properties) share: empty text means absent; numbers in JSON's
/// grammar (a leading `+` allowed); `accessibility` a `;`-separated list.
struct PlaceDraft {
    var place = Place(id: "", title: "", lat: 0, lon: 0, category: 0)
    private var seen: UInt32 = 0

    /// Sets `field` from raw UTF-8 bytes, checking their encoding and, for numbers, their syntax.
    /// Spaces and tabs around the value are dropped (spreadsheets pad cells; TourAPI pads some times).
    mutating func set(_ field: PlaceField, utf8 untrimmed: UnsafeRawBufferPointer) throws(FieldError) {
        var bytes = untrimmed
        if let first = bytes.first, let last = bytes.last,
            first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09
        {
            let start = bytes.firstIndex { $0 != 0x20 && $0 != 0x09 } ?? bytes.count
            let end = (bytes.lastIndex { $0 != 0x20 && $0 != 0x09 } ?? start - 1) + 1
            bytes = UnsafeRawBufferPointer(rebasing: bytes[start..<max(start, end)])
        }
        guard !bytes.isEmpty else { return }
        seen |= 1 << UInt32(field.rawValue)
        switch field {
        case .lat, .lon:
            guard let v = JSONNumber.parseDouble(bytes) else {
                throw FieldError(field: field.name, reason: Self.describeBad(bytes, as: "a number"))
            }
            if field == .lat { place.lat = v } else { place.lon = v }
        case .category:
            guard let v = JSONNumber.parseInt(bytes) else {
                throw FieldError(field: field.name, reason: Self.describeBad(bytes, as: "an integer"))
            }
            place.category = v
        default:
            guard let s = JSONUTF8.string(bytes) else {
                throw FieldError(field: field.name, reason: "invalid UTF-8")
            }
            if field == .accessibility {
                place.accessibility = s.split(separator: ";").map(TextNormalization.trimmingSpaces)
                    .filter { !$0.isEmpty }
            } else {
                place[text: field] = s
            }
        }
    }

    /// Sets `field` from already-decoded text.
    mutating func set(_ field: PlaceField, text: String) throws(FieldError) {
        var text = text
        try text.withUTF8 { buf in
            Result { () throws(FieldError) in try set(field, utf8: UnsafeRawBufferPointer(buf)) }
        }.get()
    }

    /// Sets `accessibility` from a list of tags.
    mutating func set(tags: [String]) {
        seen |= 1 << UInt32(PlaceField.accessibility.rawValue)
        place.accessibility = tags
    }

    /// The place, once every required field (`id`, `title`, `lat`, `lon`, `category`) was given.
    /// Throws unless every required field (`id`, `title`, `lat`, `lon`, `category`) was given.
    func checkRequired() throws(FieldError) {
        guard seen & Self.required != Self.required else { return }
        for f in Self.requiredFields where seen & (1 << UInt32(f.rawValue)) == 0 {
            throw FieldError(field: f.name, reason: "missing")
        }
    }

    private static let requiredFields: [PlaceField] = [.id, .lat, .lon, .category, .title]
    private static let required = requiredFields.reduce(UInt32(0)) { $0 | 1 << UInt32($1.rawValue) }

    private static func describeBad(_ bytes: UnsafeRawBufferPointer, as kind: String) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        var lower = Substring(text.lowercased())
        while let c = lower.first, c == "+" || c == "-" { lower.removeFirst() }
        while let c = lower.last, c == "+" || c == "-" { lower.removeLast() }
        if ["nan", "inf", "infinity"].contains(lower) {
            return "\(PlaceValidator.quoted(text)) is not a finite number"
        }
        return "\(PlaceValidator.quoted(text)) is not \(kind)"
    }
}
