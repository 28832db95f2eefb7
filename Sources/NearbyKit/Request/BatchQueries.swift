import NearbyCore

/// A batch of queries (`nearby query --queries FILE`, the bench's workloads): JSON lines whose keys are
/// `QueryParameters` names (plus `qid`), or TSV whose header names the columns the same way (an empty
/// cell leaves that parameter unset; the radius workload's header `qid lat lon radius_m limit` reads
/// `radius_m` as `radius`). Every line goes through `QueryParameters.parse`, the same parser as the
/// command line.
public enum BatchQueries {
    /// One query of a batch and its id (an integer qid stays a number in the output).
    public struct Job: Sendable {
        public var qid: JSONScalar?
        public var query: PlaceQuery
        /// Where the query came from (`file:line`), for errors found when it runs (a stale cursor).
        public var source: String?
        public init(qid: JSONScalar?, query: PlaceQuery, source: String? = nil) {
            self.qid = qid; self.query = query; self.source = source
        }
    }

    /// Reads `bytes` (the whole file, named `file` in errors). `defaults` are the command line's
    /// parameters: each applies to every line that does not set it. Throws `UsageError` naming
    /// `file:line` at the first bad line.
    public static func read(_ bytes: [UInt8], file: String, defaults: [(name: String, value: String)],
                            areas: (any AreaResolver)? = RegionAreas.shared) throws(UsageError) -> [Job] {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        let firstContent = lines.first { $0.contains { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D } }
        let isJSON = firstContent?.first { $0 != 0x20 && $0 != 0x09 } == UInt8(ascii: "{")
        var jobs: [Job] = []
        var header: [String]?
        for (n, raw) in lines.enumerated() {
            var line = raw[...]
            if line.last == 0x0D { line = line.dropLast() }
            if !line.contains(where: { $0 != 0x20 && $0 != 0x09 }) { continue }
            do throws(UsageError) {
                guard isJSON || header != nil else {
                    header = try tsvHeader(Array(line))
                    continue
                }
                let (qid, pairs) = try isJSON ? jsonLine(Array(line)) : tsvLine(Array(line), header: header!)
                let merged = pairs + defaults.filter { d in !pairs.contains { sameName($0.name, d.name) } }
                do { jobs.append(Job(qid: qid, query: try QueryParameters.parse(merged, areas: areas), source: "\(file):\(n + 1)")) } catch {
                    throw UsageError(error.message())
                }
            } catch {
                throw UsageError("\(file):\(n + 1): \(error.description)")
            }
        }
        return jobs
    }

    private static func sameName(_ a: String, _ b: String) -> Bool {
        QueryParameters.parameter(named: a)?.name == QueryParameters.parameter(named: b)?.name
    }

    /// The column names of a TSV batch: `qid` (optional) and parameter names, each once.
    private static func tsvHeader(_ line: [UInt8]) throws(UsageError) -> [String] {
        let names = line.split(separator: 0x09, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        }
        var seen: Set<String> = []
        return try names.map { (name: String) throws(UsageError) -> String in
            // The radius workload's own name for the radius.
            let canonical = name == "qid" ? "qid" : name == "radius_m" ? "radius" : QueryParameters.parameter(named: name)?.name
            guard let canonical else {
                throw UsageError("header: \(MessageText.quoted(name)) is not qid or a query parameter (see nearby query --help)")
            }
            guard seen.insert(canonical).inserted else { throw UsageError("header: \(MessageText.quoted(name)) is given twice") }
            return canonical
        }
    }

    /// One TSV row under `header`; an empty cell leaves its parameter unset.
    private static func tsvLine(_ line: [UInt8], header: [String]) throws(UsageError) -> (JSONScalar?, [(name: String, value: String)]) {
        let cols = line.split(separator: 0x09, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard cols.count == header.count else {
            throw UsageError("expected \(header.count) tab-separated columns (\(header.joined(separator: " "))), found \(cols.count)")
        }
        var qid: JSONScalar?
        var pairs: [(name: String, value: String)] = []
        for (name, value) in zip(header, cols) where !value.isEmpty {
            if name == "qid" { qid = scalar(value) } else { pairs.append((name, value)) }
        }
        return (qid, pairs)
    }

    /// A JSON object: each member a parameter; lists (`"category":[12,39]`) are comma-joined.
    private static func jsonLine(_ line: [UInt8]) throws(UsageError) -> (JSONScalar?, [(name: String, value: String)]) {
        let value: JSONValue
        switch line.withUnsafeBytes({ bytes in Result { () throws(JSONError) in try JSONValue.parse(bytes) } }) {
        case .success(let v): value = v
        case .failure(let error): throw UsageError("not valid JSON: \(error.reason)")
        }
        guard case .object(let object) = value else { throw UsageError("not a JSON object") }
        var qid: JSONScalar?
        var pairs: [(name: String, value: String)] = []
        for member in object.members {
            if member.key == "qid" {
                switch member.value {
                case .number(let s): qid = scalar(s)
                case .string(let s): qid = .string(s)
                default: throw UsageError("qid: expected a number or a string")
                }
                continue
            }
            switch member.value {
            case .string(let s), .number(let s): pairs.append((member.key, s))
            case .bool(let b): pairs.append((member.key, b ? "true" : "false"))
            case .array(let items):
                var texts: [String] = []
                for item in items {
                    guard let t = item.text else { throw UsageError("\(member.key): a list holds strings and numbers only") }
                    texts.append(t)
                }
                pairs.append((member.key, texts.joined(separator: ",")))
            case .null, .object: throw UsageError("\(member.key): expected a string, a number, true/false or a list")
            }
        }
        return (qid, pairs)
    }

    /// An integer qid stays a number in the output, anything else is a string.
    private static func scalar(_ s: String) -> JSONScalar { Int(s).map(JSONScalar.int) ?? .string(s) }
}
