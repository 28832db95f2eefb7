import Foundation

/// The fields of `Place`, in declaration order, named exactly as in every JSON the project writes.
public enum PlaceField: Int, CaseIterable, Sendable {
    case id, title, lat, lon, category, created, modified, areacode, sigungucode, addr, tel, image
    case cat1, cat2, cat3, eventStart, eventEnd, accessibility
    case lDongRegnCd, lDongSignguCd, lclsSystm1, lclsSystm2, lclsSystm3, kakaoCategory, lDongSource
    case pet, barrierFree, petInfo

    public var name: String { Self.names[rawValue] }
    private static let names = [
        "id", "title", "lat", "lon", "category", "created", "modified", "areacode",
        "sigungucode", "addr", "tel", "image", "cat1", "cat2", "cat3", "eventStart", "eventEnd", "accessibility",
        "lDongRegnCd", "lDongSignguCd", "lclsSystm1", "lclsSystm2", "lclsSystm3", "kakaoCategory", "lDongSource",
        "pet", "barrierFree", "petInfo",
    ]
    /// Field names by length, as UTF-8: `byLength[n]` holds the (raw value, name) pairs of length n.
    private static let byLength: [[(Int, [UInt8])]] = (0...16).map { n in
        names.enumerated().filter { $0.element.utf8.count == n }.map { ($0.offset, Array($0.element.utf8)) }
    }

    /// True for the fields held as text (`String` or `String?`): all but lat, lon, category, accessibility.
    public var isText: Bool {
        switch self {
        case .lat, .lon, .category, .accessibility: return false
        default: return true
        }
    }

    public init?(name: String) {
        guard let i = Self.names.firstIndex(of: name) else { return nil }
        self.init(rawValue: i)
    }

    /// Matches a field name given as raw UTF-8 bytes, without allocating.
    public init?(utf8 key: UnsafeRawBufferPointer) {
        guard key.count < Self.byLength.count else { return nil }
        for (i, name) in Self.byLength[key.count]
        where name.withUnsafeBytes({ memcmp($0.baseAddress!, key.baseAddress!, key.count) == 0 }) {
            self.init(rawValue: i)
            return
        }
        return nil
    }
}

extension Place {
    /// A text field by name (`PlaceField.isText`); `id` and `title` read as non-nil and take nil as "".
    public subscript(text field: PlaceField) -> String? {
        get {
            switch field {
            case .id: return id
            case .title: return title
            case .created: return created
            case .modified: return modified
            case .areacode: return areacode
            case .sigungucode: return sigungucode
            case .addr: return addr
            case .tel: return tel
            case .image: return image
            case .cat1: return cat1
            case .cat2: return cat2
            case .cat3: return cat3
            case .eventStart: return eventStart
            case .eventEnd: return eventEnd
            case .lDongRegnCd: return lDongRegnCd
            case .lDongSignguCd: return lDongSignguCd
            case .lclsSystm1: return lclsSystm1
            case .lclsSystm2: return lclsSystm2
            case .lclsSystm3: return lclsSystm3
            case .kakaoCategory: return kakaoCategory
            case .lDongSource: return lDongSource
            case .pet: return pet
            case .barrierFree: return barrierFree
            case .petInfo: return petInfo
            case .lat, .lon, .category, .accessibility: preconditionFailure("\(field.name) is not a text field")
            }
        }
        set {
            switch field {
            case .id: id = newValue ?? ""
            case .title: title = newValue ?? ""
            case .created: created = newValue
            case .modified: modified = newValue
            case .areacode: areacode = newValue
            case .sigungucode: sigungucode = newValue
            case .addr: addr = newValue
            case .tel: tel = newValue
            case .image: image = newValue
            case .cat1: cat1 = newValue
            case .cat2: cat2 = newValue
            case .cat3: cat3 = newValue
            case .eventStart: eventStart = newValue
            case .eventEnd: eventEnd = newValue
            case .lDongRegnCd: lDongRegnCd = newValue
            case .lDongSignguCd: lDongSignguCd = newValue
            case .lclsSystm1: lclsSystm1 = newValue
            case .lclsSystm2: lclsSystm2 = newValue
            case .lclsSystm3: lclsSystm3 = newValue
            case .kakaoCategory: kakaoCategory = newValue
            case .lDongSource: lDongSource = newValue
            case .pet: pet = newValue
            case .barrierFree: barrierFree = newValue
            case .petInfo: petInfo = newValue
            case .lat, .lon, .category, .accessibility: preconditionFailure("\(field.name) is not a text field")
            }
        }
    }
}

/// A place as one line of JSON: the canonical form of `nearby` output, export and JSON-lines import.
///
/// Layout: one object, no newline; optional leading extra members (e.g. `"qid"`), then the `PlaceField`s in
/// declaration order (`id, title, lat, lon, category, created, modified, areacode, sigungucode, addr, tel,
/// image, cat1, cat2, cat3, eventStart, eventEnd, accessibility, lDongRegnCd, lDongSignguCd, lclsSystm1..3, kakaoCategory, lDongSource, pet, barrierFree, petInfo`),
/// nil fields and an empty `accessibility` omitted, then an optional `"distance"` in metres. Doubles are
/// written in their shortest round-trip form, so `decode(append(p)) == p` for every place.
///
/// Why hand-written over bytes: Foundation's JSON coders box every value and are far too slow for
/// millions of lines: `JSONSerialization.jsonObject` per line, making dictionaries only (no `Place`),
/// takes more than twice the CPU time of `PlaceParser` (this decoder, validation and the duplicate
/// check) on the same JSON lines.
public enum PlaceJSON {
    /// Which members to write: a subset of the place fields, `distance`, and extra leading keys.
    public struct Selection: Sendable, Equatable {
        var fields: UInt32
        var distance: Bool
        /// nil: every extra member given to `append`.
        var extras: [String]?

        public static let all = Selection(fields: .max, distance: true, extras: nil)

        /// The members named in `names` (e.g. the CLI's `--fields qid,id,distance`): place field names,
        /// `distance`, or one of `extraKeys`. Throws for any other name, listing the valid ones.
        public init(names: [String], extraKeys: [String] = []) throws(UnknownFieldError) {
            guard !names.isEmpty else {
                throw UnknownFieldError(name: "", valid: extraKeys + PlaceField.allCases.map(\.name) + ["distance"])
            }
            fields = 0
            distance = false
            var extras: [String] = []
            for name in names {
                if let f = PlaceField(name: name) {
                    fields |= 1 << UInt32(f.rawValue)
                } else if name == "distance" {
                    distance = true
                } else if extraKeys.contains(name) {
                    extras.append(name)
                } else {
                    throw UnknownFieldError(
                        name: name, valid: extraKeys + PlaceField.allCases.map(\.name) + ["distance"])
                }
            }
            self.extras = extras
        }

        init(fields: UInt32, distance: Bool, extras: [String]?) {
            self.fields = fields
            self.distance = distance
            self.extras = extras
        }

        /// This selection without `field` (e.g. GeoJSON properties leave out lat and lon).
        public func removing(_ field: PlaceField) -> Selection {
            Selection(fields: fields & ~(1 << UInt32(field.rawValue)), distance: distance, extras: extras)
        }

        /// Whether `f` is written.
        @inline(__always) public func has(_ f: PlaceField) -> Bool { fields & (1 << UInt32(f.rawValue)) != 0 }
        /// Whether `distance` is written (when there is one).
        public var hasDistance: Bool { distance }
        /// Whether the extra key `name` (e.g. `qid`) is written.
        public func hasExtra(_ name: String) -> Bool { extras?.contains(name) ?? true }
        /// Whether no field of a place but its id is written (`fields=id,distance`): such an answer is
        /// written from the ids alone (`append(id:)`), without the places' records.
        public var writesOnlyID: Bool { fields & ~(1 << UInt32(PlaceField.id.rawValue)) == 0 }
    }

    public struct UnknownFieldError: NearbyError {
        public var name: String
        public var valid: [String]
        public var kind: ErrorKind { .usage }
        public var description: String {
            (name.isEmpty ? "no field named" : "unknown field '\(name)'")
                + "; valid fields: \(valid.joined(separator: ","))"
        }
    }

    /// Why a line is not a place: the field (or `json` for a syntax error) and the reason.
    public struct DecodeError: NearbyError, Equatable {
        public var field: String
        public var reason: String
        public init(field: String, reason: String) {
            self.field = field
            self.reason = reason
        }
        public var description: String { "\(field): \(reason)" }
        public var kind: ErrorKind { .usage }
    }

    private static let keyPrefixes: [[UInt8]] = PlaceField.allCases.map { Array("\"\($0.name)\":".utf8) }

    /// Appends `place` as one JSON object (no newline).
    public static func append(
        _ place: Place, leading: [(key: String, value: JSONScalar)] = [], distance: Double? = nil,
        fields: Selection = .all, to out: inout [UInt8]
    ) {
        withUnsafePointer(to: place) { append(at: $0, leading: leading, distance: distance, fields: fields, to: &out) }
    }

    /// `append` of the place at `place`, read field by field where it lies: a `Place` handed on by
    /// value from an array is copied whole first (some 400 bytes and a dozen reference counts, half
    /// the time of writing a page of ids and distances), `PlaceRows.forEachRow` hands out pointers.
    public static func append(
        at place: UnsafePointer<Place>, leading: [(key: String, value: JSONScalar)] = [], distance: Double? = nil,
        fields: Selection = .all, to out: inout [UInt8]
    ) {
        out.append(UInt8(ascii: "{"))
        var first = true
        func key(_ f: PlaceField) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(contentsOf: keyPrefixes[f.rawValue])
        }
        for (k, v) in leading where fields.extras?.contains(k) ?? true {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONWriter.appendString(k, to: &out)
            out.append(UInt8(ascii: ":"))
            v.append(to: &out)
        }
        for f in PlaceField.allCases where fields.has(f) {
            switch f {
            case .lat:
                key(f)
                JSONNumber.append(place.pointee.lat, to: &out)
            case .lon:
                key(f)
                JSONNumber.append(place.pointee.lon, to: &out)
            case .category:
                key(f)
                JSONNumber.append(place.pointee.category, to: &out)
            case .accessibility:
                guard !place.pointee.accessibility.isEmpty else { continue }
                key(f)
                out.append(UInt8(ascii: "["))
                for (i, tag) in place.pointee.accessibility.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    JSONWriter.appendString(tag, to: &out)
                }
                out.append(UInt8(ascii: "]"))
            default:
                guard let s = place.pointee[text: f] else { continue }
                key(f)
                JSONWriter.appendString(s, to: &out)
            }
        }
        if let distance, fields.distance {
            if !first { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "\"distance\":".utf8)
            JSONNumber.append(distance, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// `append(at:)` of a place known by its id alone (UTF-8), for a selection that `writesOnlyID`:
    /// the same bytes, from an id column read in place rather than from the place's record.
    /// Static text is appended from its UTF-8 in place: no array to retain per row.
    public static func append(
        id: UnsafeBufferPointer<UInt8>, distance: Double?, fields: Selection, to out: inout [UInt8]
    ) {
        let withID = fields.has(.id)
        if withID {
            ("{\"id\":" as StaticString).withUTF8Buffer { out.append(contentsOf: $0) }
            JSONWriter.appendString(utf8: id, to: &out)
        } else {
            out.append(UInt8(ascii: "{"))
        }
        if let distance, fields.distance {
            let key: StaticString = withID ? ",\"distance\":" : "\"distance\":"
            key.withUTF8Buffer { out.append(contentsOf: $0) }
            JSONNumber.append(distance, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Decodes one place object. Unknown members (such as `distance` or `qid` in query output) are
    /// skipped; `id`, `title`, `lat`, `lon` and `category` are required; `null` means nil. Checks types and
    /// JSON syntax only: the range, date and vocabulary rules are the importers' validator's job.
    /// Errors name the member whose value is wrong, or `json` for broken syntax and input that ends early.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> Place {
        var s = JSONScanner(bytes)
        var place = Place(id: "", title: "", lat: 0, lon: 0, category: 0)
        var seen: UInt32 = 0
        var current = "json"
        do {
            if try s.beginObject() {
                repeat {
                    let raw = try s.readKey()
                    guard !raw.hasEscapes,
                        let f = PlaceField(utf8: UnsafeRawBufferPointer(rebasing: bytes[raw.start..<raw.end]))
                    else {
                        try s.skipValue()
                        continue
                    }
                    current = f.name
                    let bit: UInt32 = 1 << UInt32(f.rawValue)
                    guard seen & bit == 0 else { throw DecodeError(field: current, reason: "appears twice") }
                    seen |= bit
                    if s.consumeNull() {
                        if !f.isText || f == .id || f == .title { seen &= ~bit }  // counts as missing
                        current = "json"
                        continue
                    }
                    switch f {
                    case .lat: place.lat = try s.readDouble()
                    case .lon: place.lon = try s.readDouble()
                    case .category: place.category = try s.readInt()
                    case .accessibility:
                        var tags: [String] = []
                        if try s.beginArray() {
                            repeat { tags.append(try s.readString()) } while try s.nextElement()
                        }
                        place.accessibility = tags
                    default: place[text: f] = try s.readString()
                    }
                    current = "json"
                } while try s.nextMember()
            }
            guard s.atEnd() else { throw s.error("unexpected text after the object") }
        } catch let e as JSONError {
            // Input that ends early is a broken line, whatever member it was in.
            throw DecodeError(field: e.offset >= bytes.count ? "json" : current, reason: e.reason)
        } catch let e as DecodeError {
            throw e
        } catch {
            throw DecodeError(field: current, reason: "\(error)")
        }
        for f in [PlaceField.id, .title, .lat, .lon, .category] where seen & (1 << UInt32(f.rawValue)) == 0 {
            throw DecodeError(field: f.name, reason: "missing")
        }
        return place
    }

    /// Decodes one place object from any byte collection (copied once when not contiguous).
    public static func decode(_ bytes: some Collection<UInt8>) throws(DecodeError) -> Place {
        if let r = bytes.withContiguousStorageIfAvailable({ buf in
            Result { () throws(DecodeError) in try decode(UnsafeRawBufferPointer(buf)) }
        }) {
            return try r.get()
        }
        return try Array(bytes).withUnsafeBytes { buf in
            Result { () throws(DecodeError) in try decode(buf) }
        }.get()
    }
}
