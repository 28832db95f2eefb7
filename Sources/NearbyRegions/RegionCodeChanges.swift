import Foundation
import NearbyCore

/// The dated table of legal-dong code changes, `data/region-code-changes.tsv` (its header explains
/// the two kinds of row; sources are named per row). Applied to the boundary file's codes at load,
/// in date order, so answers carry today's codes; every code a town had on the way is kept, so
/// filters accept old codes too.
struct RegionCodeChanges: Sendable {
    enum Kind: String, Sendable { case recode, move }

    struct Change: Sendable {
        var date: String
        var kind: Kind
        var from: String
        var to: String
        var name: String
    }

    struct FormatError: NearbyError {
        var path: String
        var line: Int
        var message: String
        /// `.damaged` for a file that fails its checks, `.io` for one that cannot be read.
        var kind: ErrorKind = .damaged
        var description: String { "\(path):\(line): \(message)" }
    }

    /// Rows grouped by date, dates ascending.
    private(set) var dates: [[Change]] = []

    /// Every `from`: a code none of whose prefixes is here is never changed.
    private var froms: Set<Substring> = []

    init(changes: [Change]) {
        dates = Dictionary(grouping: changes, by: \.date).sorted { $0.key < $1.key }.map(\.value)
        froms = Set(changes.map { Substring($0.from) })
    }

    init(contentsOf path: String) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw FormatError(path: path, line: 0, message: "cannot read the file", kind: .io)
        }
        var changes: [Change] = []
        var sawHeader = false
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if !sawHeader {
                guard fields.prefix(5) == ["date", "kind", "from", "to", "name"] else {
                    throw FormatError(
                        path: path, line: n + 1, message: "expected the header date, kind, from, to, name, source")
                }
                sawHeader = true
                continue
            }
            guard fields.count >= 5 else {
                throw FormatError(path: path, line: n + 1, message: "expected 6 tab-separated fields")
            }
            guard let kind = Kind(rawValue: fields[1]) else {
                throw FormatError(path: path, line: n + 1, message: "kind '\(fields[1])' is neither recode nor move")
            }
            let (from, to) = (fields[2], fields[3])
            let digits = { (s: String) in !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber } }
            guard digits(from), digits(to) else {
                throw FormatError(path: path, line: n + 1, message: "codes must be digits")
            }
            if kind == .recode, from.count != to.count || ![2, 5, 8].contains(from.count) {
                throw FormatError(
                    path: path, line: n + 1, message: "recode needs from and to of equal length 2, 5 or 8")
            }
            if kind == .move, to.count != 5 || ![5, 8].contains(from.count) {
                throw FormatError(path: path, line: n + 1, message: "move needs a 5- or 8-digit from and a 5-digit to")
            }
            changes.append(Change(date: fields[0], kind: kind, from: from, to: to, name: fields[4]))
        }
        guard sawHeader else { throw FormatError(path: path, line: 0, message: "no header row") }
        self.init(changes: changes)
    }

    /// A town or village's codes and names after every change.
    struct Result: Equatable, Sendable {
        /// Full code (8 or 10 digits).
        var code: String
        /// The 시군구 code: the code's first five digits unless a `move` row set it.
        var sigungu: String
        /// 시도, 시군구 names (renamed by the rows that touched them; nil where unchanged).
        var sidoName: String?
        var sigunguName: String?
        /// Earlier codes of its 시도 (2 digits), 시군구 (5), 읍면동 (8) and 리 (10).
        var former: Set<String>
    }

    /// `apply` for many codes, once per town: rows never name a 리, so a village's result is its
    /// town's with the last two digits put back.
    func apply(toAll codes: [String]) -> [Result] {
        var towns: [Substring: Result] = [:]
        return codes.map { code in
            let town = code.prefix(8)
            let base = towns[town] ?? apply(to: String(town))
            towns[town] = base
            guard code.count > 8 else { return base }
            let village = code.dropFirst(8)
            var result = base
            result.code += village
            result.former.formUnion(base.former.filter { $0.count == 8 }.map { $0 + village })
            return result
        }
    }

    func apply(to sourceCode: String) -> Result {
        var result = Result(code: sourceCode, sigungu: String(sourceCode.prefix(5)), former: [])
        guard [2, 5, 8].contains(where: { froms.contains(sourceCode.prefix($0)) }) else { return result }
        for changes in dates {
            // Within one date the longest matching `from` wins (a town-level row beats its 시군구 row).
            var best: Change?
            for change in changes {
                let base = change.kind == .move && change.from.count == 5 ? result.sigungu : result.code
                guard base.hasPrefix(change.from) || result.code.hasPrefix(change.from) else { continue }
                if best == nil || change.from.count > best!.from.count { best = change }
            }
            guard let change = best else { continue }
            switch change.kind {
            case .recode:
                // A 시도 code is "former" only when the whole 시도 was recoded (42 → 51); 군위군's move
                // from 47 to 27 does not make 47 a name of 대구.
                for length in [2, 5, 8, 10] where length >= change.from.count && length <= result.code.count {
                    result.former.insert(String(result.code.prefix(length)))
                }
                result.former.insert(result.sigungu)
                result.code = change.to + result.code.dropFirst(change.from.count)
                if result.sigungu.hasPrefix(change.from) {
                    result.sigungu = change.to + result.sigungu.dropFirst(change.from.count)
                }
                switch change.from.count {
                case 2: result.sidoName = change.name
                case 5: result.sigunguName = change.name
                default: break
                }
            case .move:
                result.former.insert(result.sigungu)
                result.sigungu = change.to
                result.sigunguName = change.name
            }
        }
        result.former.subtract([
            String(result.code.prefix(2)), result.sigungu, String(result.code.prefix(8)), result.code,
        ])
        return result
    }
}
