import Foundation
import Hummingbird
import NearbyKit

/// TourAPI's code lists (`TourCodeList`): where each service's codes and names come from, and the four
/// operations that page through them. KorService2's (and KorService1's, KorWithService2's,
/// KorPetTourService2's) are the tables the repository ships (data/README.md); a language service's
/// are those synced from it (`nearby sync tourapi --lang …`, `PlaceCache.syncedCodes`), its names in its
/// language, or for EngService2's classification the English table shipped; a language service's list
/// that is neither is refused with TourAPI's `12` and HTTP 501, not answered in Korean.
extension TourOperation {
    /// The code list this operation answers; nil for a list of places, a detail or a change list.
    var codeList: TourCodeList? {
        switch kind {
        case .areaCodes: .areas
        case .serviceCategoryCodes: .serviceCategories
        case .legalDongCodes: .legalDongs
        case .classificationCodes: .classification
        default: nil
        }
    }

    /// Whether the codes come from a sync of the service (a language service's list): answered only once
    /// `nearby sync tourapi --lang …` fetched it, unless a table ships (EngService2's classification).
    var codesAreSynced: Bool { codeList != nil && language != .ko }
}

extension TourAPI {
    /// Why a data file behind a code list could not be read (its message names the file).
    struct DataUnavailable: Error, Sendable {
        var message: String
    }

    static let areaTable = table(TourCodeTable.areas)
    static let serviceCategories = table(TourCodeTable.serviceCategories)
    static let classification = table(TourCodeTable.classification)
    static let englishClassification = table(TourCodeTable.englishClassification)
    /// The legal-dong 시도 (level 1, 2 digits) each followed by its 시군구 (level 2, 3 digits), from the
    /// region data the repository ships (`data/kr_regions.bin`, today's codes: data/README.md), the codes
    /// TourAPI's `lDongRegnCd` and `lDongSignguCd` take.
    static let legalDongs: Result<[TourCode], DataUnavailable> = Result {
        let regions = try RegionAreas.shared.index().regions
        let sigungu = Dictionary(grouping: regions.filter { $0.level == .sigungu }) { String($0.code.prefix(2)) }
        return regions.filter { $0.level == .sido }.sorted { $0.code < $1.code }.flatMap { sido in
            [TourCode(level: 1, code: sido.code, name: sido.name, parent: "")]
                + (sigungu[sido.code] ?? []).sorted { $0.code < $1.code }.map {
                    TourCode(level: 2, code: String($0.code.dropFirst(2)), name: $0.name, parent: sido.code)
                }
        }
    }.mapError { DataUnavailable(message: "\($0)") }

    private static func table(_ file: String) -> Result<[TourCode], DataUnavailable> {
        Result { try TourCodeTable.load(file) }.mapError { DataUnavailable(message: "\($0)") }
    }

    /// The shipped table of `list` in `language`, or nil when none ships (a language service's
    /// areas, …: their names come from a sync).
    static func shipped(_ list: TourCodeList, _ language: TourLanguage) -> Result<[TourCode], DataUnavailable>? {
        switch (list, language) {
        case (.areas, .ko): areaTable
        case (.serviceCategories, .ko): serviceCategories
        case (.legalDongs, .ko): legalDongs
        case (.classification, .ko): classification
        case (.classification, .en): englishClassification
        default: nil
        }
    }

    /// The codes `operation` answers: for a language service the list synced from it when the cache has
    /// one (the service's own answer, newer than any table), else the table that ships, else `12`.
    func codes(_ operation: TourOperation, _ list: TourCodeList) async throws -> [TourCode] {
        if operation.codesAreSynced, !engine.isPostGIS {
            let path = engine.path
            let service = operation.service
            let synced = try await engine.current.withLane(small: true, timeout: options.requestTimeout) { _, _ in
                try PlaceCache(path: path, readOnly: true).syncedCodes(service: service, list: list.rawValue)?.codes
            }
            // A list the service answered empty is remembered by the sync, and answered as none.
            if let synced, !synced.isEmpty { return synced }
        }
        guard let table = Self.shipped(list, operation.language) else { throw Self.notSynced(operation) }
        switch table {
        case .success(let codes): return codes
        case .failure(let e): throw APIError(.internalServerError, "the code table could not be read: \(e.message)")
        }
    }

    /// The refusal of a language service's code list the cache holds none of and no table ships for:
    /// TourAPI's `12` NO_OPENAPI_SERVICE_ERROR, HTTP 501 (the operation is known, not answered), rather
    /// than the Korean names.
    static func notSynced(_ operation: TourOperation) -> APIError {
        APIError(
            .notImplemented,
            "\(operation.service) \(operation.name) is not served: its names in \(operation.service)'s language "
                + "come from the service, and this cache holds none (nearby sync tourapi --lang "
                + "\(operation.language.code) fetches them; docs/tourapi-compat.md)")
    }

    /// `ldongCode2`: with `lDongListYn` N (the default) the 시도 (`rnum`, `code`, `name`), or with
    /// `lDongRegnCd` that 시도's 시군구 (`code` their 3 digits); with `lDongListYn` Y every 시군구 (of the
    /// 시도, when given) as `rnum`, `lDongRegnCd`, `lDongRegnNm`, `lDongSignguCd`, `lDongSignguNm`.
    func legalDongCodes(_ codes: [TourCode], _ given: [String: String], format: Format) throws -> Response {
        let regn = given["lDongRegnCd"] ?? ""
        guard regn.isEmpty || (regn.utf8.count == 2 && regn.utf8.allSatisfy { (0x30...0x39).contains($0) }) else {
            throw APIError(.badRequest, parameter: "lDongRegnCd", "\(MessageText.quoted(regn)) is not 2 digits")
        }
        let list = try Self.yesNo(given, "lDongListYn")
        let (rows, page) = try paging(given)
        let sido = Dictionary(
            codes.filter { $0.level == 1 }.map { ($0.code, $0.name) }, uniquingKeysWith: { a, _ in a })
        let sigungu = codes.filter { $0.level == 2 && (regn.isEmpty || $0.parent == regn) }
        let items: [[(String, String)]]
        if list {
            items = sigungu.enumerated().map { n, d in
                [
                    ("rnum", String(n + 1)), ("lDongRegnCd", d.parent), ("lDongRegnNm", sido[d.parent] ?? ""),
                    ("lDongSignguCd", d.code), ("lDongSignguNm", d.name),
                ]
            }
        } else {
            let shown = regn.isEmpty ? codes.filter { $0.level == 1 } : sigungu
            items = shown.enumerated().map { n, c in [("rnum", String(n + 1)), ("code", c.code), ("name", c.name)] }
        }
        return Self.page(items, rows: rows, page: page, format: format)
    }

    /// A `…ListYn` flag: Y or N (absent: N), case-insensitive.
    static func yesNo(_ given: [String: String], _ name: String) throws -> Bool {
        switch (given[name] ?? "").uppercased() {
        case "", "N": false
        case "Y": true
        case let other: throw APIError(.badRequest, parameter: name, "\(MessageText.quoted(other)) is not Y or N")
        }
    }

    /// `lclsSystmCode2` with `lclsSystmListYn` N (the default): the level 1 codes (`rnum`, `code`,
    /// `name`), or with `lclsSystm1` its level 2 codes, with `lclsSystm2` too its level 3 codes, with
    /// `lclsSystm3` that code alone. With `lclsSystmListYn` Y every level 3 code (under the levels given)
    /// with its parents: `lclsSystm1Cd`, `lclsSystm1Nm`, `lclsSystm2Cd`, `lclsSystm2Nm`, `lclsSystm3Cd`,
    /// `lclsSystm3Nm`, `rnum`.
    func classificationCodes(_ codes: [TourCode], _ given: [String: String], format: Format) throws -> Response {
        let list = try Self.yesNo(given, "lclsSystmListYn")
        return try codeTree(
            codes, names: ["lclsSystm1", "lclsSystm2", "lclsSystm3"], list: list, given, format: format)
    }

    /// `categoryCode2` (and KorService1's `categoryCode1`): the cat1 codes (`rnum`, `code`, `name`), or with
    /// `cat1` its cat2 codes, with `cat2` too its cat3 codes, with `cat3` that code alone. `contentTypeId` is
    /// read and not applied: the table does not say which content types use a code.
    func serviceCategoryCodes(_ codes: [TourCode], _ given: [String: String], format: Format) throws -> Response {
        try codeTree(codes, names: ["cat1", "cat2", "cat3"], list: false, given, format: format)
    }

    /// One page of a three-level code tree whose codes are unique across levels, the levels given by the
    /// parameters `names`; with `list` every level 3 code with its parents (`…1Cd`, `…1Nm`, … `rnum`),
    /// else one level's codes.
    private func codeTree(
        _ entries: [TourCode], names: [String], list: Bool, _ given: [String: String], format: Format
    ) throws -> Response {
        let levels = names.map { given[$0] ?? "" }
        for (n, code) in levels.enumerated() where !code.isEmpty && n > 0 && levels[n - 1].isEmpty {
            throw APIError(.badRequest, parameter: names[n - 1], "missing (\(names[n]) needs it)")
        }
        for (n, code) in levels.enumerated()
        where code.utf8.contains(where: { !(0x30...0x39).contains($0) && !(0x41...0x5A).contains($0) }) {
            throw APIError(
                .badRequest, parameter: names[n], "\(MessageText.quoted(code)) is not a code (digits and capitals)")
        }
        let (rows, page) = try paging(given)
        let byCode = Dictionary(entries.map { ($0.code, $0) }, uniquingKeysWith: { a, _ in a })
        /// Whether an entry lies under the levels given (its own code or its parents' equal them).
        func under(_ e: TourCode) -> Bool {
            var path = [e.code]
            var parent = e.parent
            while let p = byCode[parent] {
                path.insert(p.code, at: 0)
                parent = p.parent
            }
            for (n, code) in levels.enumerated() where !code.isEmpty {
                guard path.count > n, path[n] == code else { return false }
            }
            return true
        }
        let items: [[(String, String)]]
        if list {
            items = entries.filter { $0.level == 3 && under($0) }.enumerated().map { n, e in
                let two = byCode[e.parent]
                let one = two.flatMap { byCode[$0.parent] }
                return [
                    (names[0] + "Cd", one?.code ?? ""), (names[0] + "Nm", one?.name ?? ""),
                    (names[1] + "Cd", two?.code ?? ""), (names[1] + "Nm", two?.name ?? ""),
                    (names[2] + "Cd", e.code), (names[2] + "Nm", e.name), ("rnum", String(n + 1)),
                ]
            }
        } else {
            let depth = levels.lastIndex { !$0.isEmpty }.map { $0 + 1 } ?? 0
            let level = min(depth + 1, 3)
            let shown = entries.filter { $0.level == level && under($0) }
            items = shown.enumerated().map { n, e in [("rnum", String(n + 1)), ("code", e.code), ("name", e.name)] }
        }
        return Self.page(items, rows: rows, page: page, format: format)
    }

    /// `areaCode2` (and KorService1's `areaCode1`): without `areaCode` the areas (`rnum`, `code`, `name`:
    /// `1`, `서울`), with `areaCode` that area's 시군구 (`code` its sigunguCode, `name` as `강남구`), in the
    /// service's order. An `areaCode` of other than digits is `10`; digits that are no area answer the
    /// empty page.
    func areaCodes(_ entries: [TourCode], _ given: [String: String], format: Format) throws -> Response {
        let area = given["areaCode"] ?? ""
        guard area.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw APIError(.badRequest, parameter: "areaCode", "\(MessageText.quoted(area)) is not a number")
        }
        let (rows, page) = try paging(given)
        // "01" is area 1, as a number.
        let code = area.isEmpty ? "" : String(Int(area.drop { $0 == "0" }) ?? 0)
        let shown = entries.filter { area.isEmpty ? $0.level == 1 : $0.level == 2 && $0.parent == code }
        let items = shown.enumerated().map { n, e in [("rnum", String(n + 1)), ("code", e.code), ("name", e.name)] }
        return Self.page(items, rows: rows, page: page, format: format)
    }
}
