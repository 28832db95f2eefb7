import Foundation
import NearbyKit

/// A language service's code lists (`TourCodeList`), fetched by `nearby sync tourapi --lang …` so that
/// `nearby serve` answers them under that service with the service's own names (`Seoul`, `Gangnam-gu`),
/// which the repository does not ship: its tables are KorService2's Korean names and EngService2's
/// classification (data/README.md). Korean syncs fetch none.
///
/// A list is fetched whole, then replaces the stored one with the day in one transaction
/// (`PlaceCacheWriter.replaceSyncedCodes`), so a stop part-way keeps the list as it was and the next
/// sync fetches it again. A stored list is fetched again once it is `TourAPISync.codeListDays` old:
/// code lists change a few times a year, and all four cost about 55 requests of the daily budget with
/// KorService2's shape: the areas 18 (the list, then one an area for its 시군구), the service
/// classification 32 (the cat1 list, then one a cat1 and one a cat2: 7 and 24), the other two 3.
extension TourAPISync {
    /// Days a stored code list is kept before a sync fetches it again.
    public static let codeListDays = 30

    /// Fetches each of the language's code lists that is missing or `codeListDays` old.
    func codeLists(_ summary: inout SyncSummary) async throws {
        guard options.language != .ko else { return }
        let day = today()
        for list in TourCodeList.allCases {
            if let stored = try cache.syncedCodes(service: options.service, list: list.rawValue),
                SyncDay.days(from: stored.fetched, through: day).count <= Self.codeListDays
            {
                continue
            }
            onProgress("tourapi: \(options.service) \(list.rawValue)")
            let codes = try await fetchCodes(list)
            try cache.write {
                try $0.replaceSyncedCodes(service: options.service, list: list.rawValue, codes: codes, fetched: day)
            }
            summary.codeLists += 1
        }
    }

    /// A whole code list in the service's order, each code followed by those under it.
    func fetchCodes(_ list: TourCodeList) async throws -> [TourCode] {
        let op = list.rawValue
        var out: [TourCode] = []
        /// `code`'s level and name from an item of the plain form (`rnum`, `code`, `name`).
        func plain(_ item: JSONValue, level: Int, parent: String) -> TourCode? {
            guard let code = item["code"]?.text, !code.isEmpty else { return nil }
            return TourCode(level: level, code: code, name: Self.name(item["name"]), parent: parent)
        }
        switch list {
        case .areas:
            for area in try await codeItems(op, []).compactMap({ plain($0, level: 1, parent: "") }) {
                out.append(area)
                out += try await codeItems(op, [("areaCode", area.code)]).compactMap {
                    plain($0, level: 2, parent: area.code)
                }
            }
        case .serviceCategories:
            for one in try await codeItems(op, []).compactMap({ plain($0, level: 1, parent: "") }) {
                out.append(one)
                let twos = try await codeItems(op, [("cat1", one.code)]).compactMap {
                    plain($0, level: 2, parent: one.code)
                }
                for two in twos {
                    out.append(two)
                    out += try await codeItems(op, [("cat1", one.code), ("cat2", two.code)]).compactMap {
                        plain($0, level: 3, parent: two.code)
                    }
                }
            }
        case .legalDongs:
            // The 시도 with their names, then every 시군구 at once (`lDongListYn` Y), each under its 시도.
            let sido = try await codeItems(op, []).compactMap { plain($0, level: 1, parent: "") }
            var sigungu: [String: [TourCode]] = [:]
            for item in try await codeItems(op, [("lDongListYn", "Y")]) {
                guard let regn = item["lDongRegnCd"]?.text, let code = item["lDongSignguCd"]?.text, !code.isEmpty
                else { continue }
                sigungu[regn, default: []].append(
                    TourCode(level: 2, code: code, name: Self.name(item["lDongSignguNm"]), parent: regn))
            }
            for s in sido { out += [s] + (sigungu[s.code] ?? []) }
        case .classification:
            // Every level 3 code with its parents at once (`lclsSystmListYn` Y); a parent is written
            // before its first child.
            var seen: Set<String> = []
            for item in try await codeItems(op, [("lclsSystmListYn", "Y")]) {
                var parent = ""
                for level in 1...3 {
                    guard let code = item["lclsSystm\(level)Cd"]?.text, !code.isEmpty else { break }
                    if seen.insert(code).inserted {
                        out.append(
                            TourCode(
                                level: level, code: code, name: Self.name(item["lclsSystm\(level)Nm"]),
                                parent: parent))
                    }
                    parent = code
                }
            }
        }
        return out
    }

    /// A name as the importer keeps titles: NFC, without the whitespace around it.
    static func name(_ value: JSONValue?) -> String {
        (value?.text ?? "").precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every item of one code list query, its pages (`pageSize` items each) fetched in turn.
    private func codeItems(_ operation: String, _ parameters: [(String, String)]) async throws -> [JSONValue] {
        var items: [JSONValue] = []
        var page = 1
        while true {
            let answer = try await fetcher.get(
                url(
                    "\(options.service)/\(operation)",
                    parameters + [("numOfRows", String(options.pageSize)), ("pageNo", String(page))]),
                judge: TourAPIAnswer.judge)
            let body = try answer.body.withUnsafeBytes { try JSONValue.parse($0) }["response"]?["body"]
            let these = Self.items(body)
            items += these
            let total = Int(body?["totalCount"]?.text ?? "") ?? items.count
            if these.isEmpty || items.count >= total { return items }
            page += 1
        }
    }
}
