import NearbyCore

/// A batch of queries (`nearby query --queries FILE`, the bench's workloads): JSON lines or TSV with a
/// header, each line read by `BatchLine` and then parsed by `QueryParameters.parse`, the same parser as
/// the command line.
public enum BatchQueries {
    /// One query of a batch and its id (an integer qid stays a number in the output).
    public struct Job: Sendable {
        public var qid: JSONScalar?
        public var query: PlaceQuery
        /// Where the query came from (`file:line`), for errors found when it runs (a stale cursor).
        public var source: String?
        public init(qid: JSONScalar?, query: PlaceQuery, source: String? = nil) {
            self.qid = qid
            self.query = query
            self.source = source
        }
    }

    /// Reads `bytes` (the whole file, named `file` in errors). `defaults` are the command line's
    /// parameters: each applies to every line that does not set it. Throws `UsageError` naming
    /// `file:line` at the first bad line.
    public static func read(
        _ bytes: [UInt8], file: String, defaults: [(name: String, value: String)],
        areas: (any AreaResolver)? = RegionAreas.shared
    ) throws(UsageError) -> [Job] {
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
            do throws(RequestError) {
                guard isJSON || header != nil else {
                    header = try BatchLine.header(Array(line))
                    continue
                }
                let (qid, pairs) =
                    try isJSON ? BatchLine.json(Array(line)) : BatchLine.tsv(Array(line), header: header!)
                let merged = pairs + defaults.filter { d in !pairs.contains { sameName($0.name, d.name) } }
                jobs.append(
                    Job(qid: qid, query: try QueryParameters.parse(merged, areas: areas), source: "\(file):\(n + 1)"))
            } catch {
                throw UsageError("\(file):\(n + 1): \(error.message())")
            }
        }
        return jobs
    }

    private static func sameName(_ a: String, _ b: String) -> Bool {
        QueryParameters.parameter(named: a)?.name == QueryParameters.parameter(named: b)?.name
    }
}
