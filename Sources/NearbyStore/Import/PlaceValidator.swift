import Foundation
import NearbyCore

/// A field-level problem before the file and line are known: `field: reason`.
typealias FieldError = PlaceJSON.DecodeError

/// The one set of record rules every input format shares.
///
/// Checks: `id` non-empty; `lat` in [-90, 90] and `lon` in [-180, 180], both finite; `created`/`modified`
/// a real `yyyyMMddHHmmss` date-time; `eventStart`/`eventEnd` a real `yyyyMMdd` date with start ≤ end;
/// accessibility tags from `Accessibility.tags` (the list comes out sorted and unique). Normalises every
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
        for f in [PlaceField.created, .modified] {
            if let s = place[text: f], !isDateTime(s) {
                throw FieldError(field: f.name, reason: "\(quoted(s)) is not a yyyyMMddHHmmss date-time")
            }
        }
        for f in [PlaceField.eventStart, .eventEnd] {
            if let s = place[text: f], !isDate(s) {
                throw FieldError(field: f.name, reason: "\(quoted(s)) is not a yyyyMMdd date")
            }
        }
        if let start = place.eventStart, let end = place.eventEnd, end < start {
            throw FieldError(field: "eventEnd", reason: "\(end) is before eventStart \(start)")
        }
        if !place.accessibility.isEmpty {
            for tag in place.accessibility where Accessibility.bit(tag) == nil {
                throw FieldError(field: "accessibility", reason: "unknown tag \(quoted(tag)) (known: \(Accessibility.tags.joined(separator: ", ")))")
            }
            place.accessibility = Array(Set(place.accessibility)).sorted()
        }
        for f in PlaceField.allCases where f.isText {
            if let s = place[text: f], !isCheaplyNFC(s) { place[text: f] = s.precomposedStringWithCanonicalMapping }
        }
    }

    /// A value quoted for a message, cut short when long.
    static func quoted(_ s: String) -> String {
        "\"" + (s.count > 40 ? s.prefix(40) + "…" : Substring(s)) + "\""
    }

    /// True when `s` is certainly NFC without asking Foundation: every scalar is below U+0300 (where the
    /// combining marks start) or a precomposed Hangul syllable / CJK ideograph / CJK punctuation, none of
    /// which decompose or combine with a neighbour. Anything else (jamo, accents, ...) takes the slow path.
    static func isCheaplyNFC(_ s: String) -> Bool {
        for u in s.utf8 where u >= 0x80 {  // ASCII: skip without decoding
            for scalar in s.unicodeScalars {
                let v = scalar.value
                guard v < 0x300 || (0xAC00...0xD7A3).contains(v) || (0x4E00...0x9FFF).contains(v)
                        || (0x3000...0x303F).contains(v) else { return false }
            }
            return true
        }
        return true
    }

    private static let daysInMonth = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

    /// `yyyyMMdd` naming a real day (Gregorian, leap years included).
    static func isDate(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count == 8, let d = digits(u) else { return false }
        return validDay(year: d[0...3], month: d[4...5], day: d[6...7])
    }

    /// `yyyyMMddHHmmss` naming a real second (hours 00-23, minutes and seconds 00-59).
    static func isDateTime(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count == 14, let d = digits(u) else { return false }
        return validDay(year: d[0...3], month: d[4...5], day: d[6...7])
            && number(d[8...9]) < 24 && number(d[10...11]) < 60 && number(d[12...13]) < 60
    }

    private static func digits(_ u: [UInt8]) -> [Int]? {
        var d: [Int] = []
        d.reserveCapacity(u.count)
        for b in u {
            guard b &- 0x30 < 10 else { return nil }
            d.append(Int(b - 0x30))
        }
        return d
    }

    private static func number(_ d: ArraySlice<Int>) -> Int { d.reduce(0) { $0 * 10 + $1 } }

    private static func validDay(year: ArraySlice<Int>, month: ArraySlice<Int>, day: ArraySlice<Int>) -> Bool {
        let y = number(year), m = number(month), dd = number(day)
        guard (1...12).contains(m), dd >= 1, dd <= daysInMonth[m - 1] else { return false }
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
        return m != 2 || dd <= 28 || leap
    }
}

/// One record's fields as an input spells them, turned into a `Place` by the rules all text-valued
/// formats (CSV, TSV, TourAPI, GeoJSON properties) share: empty text means absent; numbers in JSON's
/// grammar (a leading `+` allowed); `accessibility` a `;`-separated list.
struct PlaceDraft {
    var place = Place(id: "", title: "", lat: 0, lon: 0, category: 0)
    private var seen: UInt32 = 0

    /// Sets `field` from raw UTF-8 bytes, checking their encoding and, for numbers, their syntax.
    mutating func set(_ field: PlaceField, utf8 bytes: UnsafeRawBufferPointer) throws(FieldError) {
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
            guard let s = String(validating: bytes, as: UTF8.self) else {
                throw FieldError(field: field.name, reason: "invalid UTF-8")
            }
            if field == .accessibility {
                place.accessibility = s.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
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
    func finish() throws(FieldError) -> Place {
        for f in [PlaceField.id, .lat, .lon, .category, .title] where seen & (1 << UInt32(f.rawValue)) == 0 {
            throw FieldError(field: f.name, reason: "missing")
        }
        return place
    }

    private static func describeBad(_ bytes: UnsafeRawBufferPointer, as kind: String) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        let lower = text.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "+-"))
        if ["nan", "inf", "infinity"].contains(lower) { return "\(PlaceValidator.quoted(text)) is not a finite number" }
        return "\(PlaceValidator.quoted(text)) is not \(kind)"
    }
}
