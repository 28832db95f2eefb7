import NearbyCore

/// A GeoJSON (RFC 7946) FeatureCollection of Point features.
///
/// `geometry.coordinates` is `[lon, lat]` (an altitude is ignored) and is authoritative: `lat`/`lon` among
/// the properties are ignored. Properties named like `Place` fields fill them (strings or numbers;
/// `accessibility` an array or a `;`-list); others are ignored. `id` may also be the feature's own `id`.
/// The document must parse as a whole (else the file is refused); a bad feature is a bad record at the line
/// where it starts, its field prefixed with `features[i].` when features share a line.
enum GeoJSONReader {
    static func read(_ input: UnsafeRawBufferPointer, into sink: inout RecordSink) throws {
        let document: JSONValue
        do throws(JSONError) { document = try JSONValue.parse(input) } catch {
            throw UnsupportedInputError(
                file: sink.file,
                message: "not valid GeoJSON: \(error.reason) at line \(Lines.lineNumber(input, at: error.offset))")
        }
        guard document["type"] == .string("FeatureCollection"), case .array(let features)? = document["features"] else {
            throw UnsupportedInputError(
                file: sink.file, message: "GeoJSON must be a FeatureCollection with a features array")
        }
        var lines = LineCounter(input)
        for (i, (feature, (line, prefix))) in zip(features, lines.locate(features, name: "features")).enumerated() {
            if case .object(let o) = feature {
                try sink.checkSize(o.end - o.offset, line: line, field: "features[\(i)]")
            }
            let result = Result { () throws(FieldError) in try place(feature) }
            switch result {
            case .success(var p): try sink.upsert(&p, line: line) { prefix + $0 }
            case .failure(let e): try sink.reject(line: line, field: prefix + e.field, reason: e.reason)
            }
        }
    }

    private static func place(_ feature: JSONValue) throws(FieldError) -> Place {
        guard case .object(let f) = feature, f["type"] == .string("Feature") else {
            throw FieldError(field: "type", reason: "not a Feature")
        }
        guard let geometry = f["geometry"], geometry != .null else {
            throw FieldError(field: "geometry", reason: "missing")
        }
        guard geometry["type"] == .string("Point") else { throw FieldError(field: "geometry", reason: "not a Point") }
        guard case .array(let c)? = geometry["coordinates"], c.count >= 2,
            case .number(let lon) = c[0], case .number(let lat) = c[1]
        else {
            throw FieldError(field: "coordinates", reason: "expected [lon, lat] numbers")
        }
        var draft = PlaceDraft()
        try draft.set(.lon, text: lon)
        try draft.set(.lat, text: lat)
        if case .object(let properties)? = f["properties"] {
            for m in properties.members {
                guard let field = PlaceField(name: m.key), field != .lat, field != .lon else { continue }
                switch m.value {
                case .null: continue
                case .string(let s), .number(let s): try draft.set(field, text: s)
                case .array(let list) where field == .accessibility:
                    let tags = list.compactMap { v -> String? in
                        if case .string(let s) = v { return s } else { return nil }
                    }
                    guard tags.count == list.count else {
                        throw FieldError(field: m.key, reason: "expected an array of strings")
                    }
                    draft.set(tags: tags)
                default: throw FieldError(field: m.key, reason: "expected a string or number")
                }
            }
        }
        if draft.place.id.isEmpty, let id = f["id"]?.text { try draft.set(.id, text: id) }
        try draft.checkRequired()
        return draft.place
    }
}
