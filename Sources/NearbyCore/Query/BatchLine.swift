/// One line of a batch of queries (`nearby query --queries FILE`, the bench's workloads) as request
/// parameters: a JSON object whose keys are `QueryParameters` names (plus `qid`), or a TSV row under a
/// header that names its columns the same way (an empty cell leaves that parameter unset; the radius
/// workload's header `qid lat lon radius_m limit` reads `radius_m` as `radius`). Bytes in, parameters
/// out, so the fuzz build (NearbyCore only) drives it; NearbyKit's `BatchQueries` splits the file into
/// lines, adds the command line's defaults and names `file:line` in errors.
public enum BatchLine {
    /// A line's query id (an integer qid stays a number in the output) and its parameters.
    public typealias Parameters = (qid: JSONScalar?, pairs: [(name: String, value: String)])

    /// The column names of a TSV batch: `qid` (optional) and parameter names, each once, canonical.
    public static func header(_ line: [UInt8]) throws(RequestError) -> [String] {
        var seen: Set<String> = []
        return try cells(line).enumerated().map { (i, cell) throws(RequestError) -> String in
            let name = TextNormalization.trimmingSpaces(try text(cell, "header", column: i))
            let canonical =
                name == "qid" ? "qid" : name == "radius_m" ? "radius" : QueryParameters.parameter(named: name)?.name
            guard let canonical else {
                throw RequestError(
                    parameter: "header",
                    reason: "\(MessageText.quoted(name)) is not qid or a query parameter (see nearby query --help)")
            }
            guard seen.insert(canonical).inserted else {
                throw RequestError(parameter: "header", reason: "\(MessageText.quoted(name)) is given twice")
            }
            return canonical
        }
    }

    /// One TSV row under `header`.
    public static func tsv(_ line: [UInt8], header: [String]) throws(RequestError) -> Parameters {
        let cols = cells(line)
        guard cols.count == header.count else {
            throw RequestError(
                parameter: nil,
                reason:
                    "expected \(header.count) tab-separated columns (\(header.joined(separator: " "))), found \(cols.count)"
            )
        }
        var qid: JSONScalar?
        var pairs: [(name: String, value: String)] = []
        for (i, (name, bytes)) in zip(header, cols).enumerated() where !bytes.isEmpty {
            let value = try text(bytes, name, column: i)
            if name == "qid" { qid = scalar(value) } else { pairs.append((name, value)) }
        }
        return (qid, pairs)
    }

    private static func cells(_ line: [UInt8]) -> [ArraySlice<UInt8>] {
        line.split(separator: 0x09, omittingEmptySubsequences: false)
    }

    /// A cell's text, which must be UTF-8: invalid bytes are refused, never replaced (a replaced byte
    /// would silently query for other text).
    private static func text(_ cell: ArraySlice<UInt8>, _ parameter: String, column: Int) throws(RequestError) -> String
    {
        guard let text = String(validating: cell, as: UTF8.self) else {
            throw RequestError(parameter: parameter, reason: "column \(column + 1) is not valid UTF-8")
        }
        return text
    }

    /// A JSON object: each member a parameter; lists (`"category":[12,39]`) are comma-joined.
    public static func json(_ line: [UInt8]) throws(RequestError) -> Parameters {
        let value: JSONValue
        switch line.withUnsafeBytes({ bytes in Result { () throws(JSONError) in try JSONValue.parse(bytes) } }) {
        case .success(let v): value = v
        case .failure(let error): throw RequestError(parameter: nil, reason: "not valid JSON: \(error.reason)")
        }
        guard case .object(let object) = value else { throw RequestError(parameter: nil, reason: "not a JSON object") }
        var qid: JSONScalar?
        var pairs: [(name: String, value: String)] = []
        for member in object.members {
            if member.key == "qid" {
                switch member.value {
                case .number(let s): qid = scalar(s)
                case .string(let s): qid = .string(s)
                default: throw RequestError(parameter: "qid", reason: "expected a number or a string")
                }
                continue
            }
            switch member.value {
            case .string(let s), .number(let s): pairs.append((member.key, s))
            case .bool(let b): pairs.append((member.key, b ? "true" : "false"))
            case .array(let items):
                var texts: [String] = []
                for item in items {
                    guard let t = item.text else {
                        throw RequestError(parameter: member.key, reason: "a list holds strings and numbers only")
                    }
                    texts.append(t)
                }
                pairs.append((member.key, texts.joined(separator: ",")))
            case .null, .object:
                throw RequestError(parameter: member.key, reason: "expected a string, a number, true/false or a list")
            }
        }
        return (qid, pairs)
    }

    /// An integer qid stays a number in the output, anything else is a string.
    private static func scalar(_ s: String) -> JSONScalar { Int(s).map(JSONScalar.int) ?? .string(s) }
}
