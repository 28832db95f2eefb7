import Foundation
import Hummingbird
import NearbyKit

/// `ldongCode2`: the legal-dong codes of 시도 and 시군구 with their names, from the region data the
/// repository ships (`data/kr_regions.bin`, today's codes: data/README.md), the codes TourAPI's
/// `lDongRegnCd` and `lDongSignguCd` take.
extension TourAPI {
    /// One 시군구 of the legal-dong table: its 시도's code and name, its own 3 digits and name.
    struct LegalDong: Sendable {
        var regn: String
        var regnName: String
        var signgu: String
        var signguName: String
    }

    /// Why a data file behind a code list could not be read (its message names the file).
    struct DataUnavailable: Error, Sendable {
        var message: String
    }

    /// The 시도 (code, name) and the 시군구 in code order, read once from the region data.
    static let legalDongs: Result<(sido: [(code: String, name: String)], sigungu: [LegalDong]), DataUnavailable> =
        Result {
            try legalDongTable()
        }.mapError { DataUnavailable(message: "\($0)") }

    private static func legalDongTable() throws -> (sido: [(code: String, name: String)], sigungu: [LegalDong]) {
        let index = try RegionAreas.shared.index()
        let sido = index.regions.filter { $0.level == .sido }.sorted { $0.code < $1.code }
        let names = Dictionary(sido.map { ($0.code, $0.name) }, uniquingKeysWith: { a, _ in a })
        let sigungu = index.regions.filter { $0.level == .sigungu }.sorted { $0.code < $1.code }.map {
            LegalDong(
                regn: String($0.code.prefix(2)), regnName: names[String($0.code.prefix(2))] ?? "",
                signgu: String($0.code.dropFirst(2)), signguName: $0.name)
        }
        return (sido.map { ($0.code, $0.name) }, sigungu)
    }

    /// `ldongCode2`: with `lDongListYn` N (the default) the 시도 (`rnum`, `code`, `name`), or with
    /// `lDongRegnCd` that 시도's 시군구 (`code` their 3 digits); with `lDongListYn` Y every 시군구 (of the
    /// 시도, when given) as `rnum`, `lDongRegnCd`, `lDongRegnNm`, `lDongSignguCd`, `lDongSignguNm`.
    func legalDongCodes(_ given: [String: String], format: Format) throws -> Response {
        let regn = given["lDongRegnCd"] ?? ""
        guard regn.isEmpty || (regn.utf8.count == 2 && regn.utf8.allSatisfy { (0x30...0x39).contains($0) }) else {
            throw APIError(.badRequest, parameter: "lDongRegnCd", "\(MessageText.quoted(regn)) is not 2 digits")
        }
        let list: Bool
        switch (given["lDongListYn"] ?? "").uppercased() {
        case "", "N": list = false
        case "Y": list = true
        case let other:
            throw APIError(.badRequest, parameter: "lDongListYn", "\(MessageText.quoted(other)) is not Y or N")
        }
        let (rows, page) = try paging(given)
        let table: (sido: [(code: String, name: String)], sigungu: [LegalDong])
        switch Self.legalDongs {
        case .success(let t): table = t
        case .failure(let e): throw APIError(.internalServerError, "the region data could not be read: \(e.message)")
        }
        let sigungu = table.sigungu.filter { regn.isEmpty || $0.regn == regn }
        let items: [[(String, String)]]
        if list {
            items = sigungu.enumerated().map { n, d in
                [
                    ("rnum", String(n + 1)), ("lDongRegnCd", d.regn), ("lDongRegnNm", d.regnName),
                    ("lDongSignguCd", d.signgu), ("lDongSignguNm", d.signguName),
                ]
            }
        } else if regn.isEmpty {
            items = table.sido.enumerated().map { n, s in [("rnum", String(n + 1)), ("code", s.code), ("name", s.name)]
            }
        } else {
            items = sigungu.enumerated().map { n, d in
                [("rnum", String(n + 1)), ("code", d.signgu), ("name", d.signguName)]
            }
        }
        return Self.page(items, rows: rows, page: page, format: format)
    }
}

/// `lclsSystmCode2` and `categoryCode2`: a code tree's codes and names (`TourCodeTable`:
/// data/tourapi-lcls.tsv and, EngService2's English names, data/tourapi-lcls-en.tsv; data/tourapi-cat.tsv).
extension TourAPI {
    static let classification: Result<[TourCodeTable.Entry], DataUnavailable> =
        Result { try TourCodeTable.load(TourCodeTable.classification) }.mapError { DataUnavailable(message: "\($0)") }
    static let englishClassification: Result<[TourCodeTable.Entry], DataUnavailable> =
        Result { try TourCodeTable.load(TourCodeTable.englishClassification) }.mapError {
            DataUnavailable(message: "\($0)")
        }

    /// The file of the new classification's names in `language` (`TourCodeTable`), or nil for a language
    /// with no table: its service's `lclsSystmCode2` is refused (`TourOperation.Kind.codesWithoutNames`).
    static func classificationFile(_ language: TourLanguage) -> String? {
        switch language {
        case .ko: TourCodeTable.classification
        case .en: TourCodeTable.englishClassification
        default: nil
        }
    }
    static let serviceCategories: Result<[TourCodeTable.Entry], DataUnavailable> =
        Result { try TourCodeTable.load(TourCodeTable.serviceCategories) }.mapError {
            DataUnavailable(message: "\($0)")
        }

    /// `lclsSystmCode2` with `lclsSystmListYn` N (the default): the level 1 codes (`rnum`, `code`,
    /// `name`), or with `lclsSystm1` its level 2 codes, with `lclsSystm2` too its level 3 codes, with
    /// `lclsSystm3` that code alone. With `lclsSystmListYn` Y every level 3 code (under the levels given)
    /// with its parents: `lclsSystm1Cd`, `lclsSystm1Nm`, `lclsSystm2Cd`, `lclsSystm2Nm`, `lclsSystm3Cd`,
    /// `lclsSystm3Nm`, `rnum`.
    /// `language` picks the names: Korean (KorService2) or English (EngService2, whose table has the codes
    /// EngService2 lists).
    func classificationCodes(_ given: [String: String], language: TourLanguage, format: Format) throws -> Response {
        let list: Bool
        switch (given["lclsSystmListYn"] ?? "").uppercased() {
        case "", "N": list = false
        case "Y": list = true
        case let other:
            throw APIError(.badRequest, parameter: "lclsSystmListYn", "\(MessageText.quoted(other)) is not Y or N")
        }
        let table = language == .en ? Self.englishClassification : Self.classification
        return try codeTree(
            table, names: ["lclsSystm1", "lclsSystm2", "lclsSystm3"], list: list, given, format: format)
    }

    /// `categoryCode2` (and KorService1's `categoryCode1`): the cat1 codes (`rnum`, `code`, `name`), or with
    /// `cat1` its cat2 codes, with `cat2` too its cat3 codes, with `cat3` that code alone. `contentTypeId` is
    /// read and not applied: the table does not say which content types use a code.
    func serviceCategoryCodes(_ given: [String: String], format: Format) throws -> Response {
        try codeTree(Self.serviceCategories, names: ["cat1", "cat2", "cat3"], list: false, given, format: format)
    }

    /// One page of a three-level code tree, the levels given by the parameters `names`; with `list` every
    /// level 3 code with its parents (`…1Cd`, `…1Nm`, … `rnum`), else one level's codes.
    private func codeTree(
        _ table: Result<[TourCodeTable.Entry], DataUnavailable>, names: [String], list: Bool,
        _ given: [String: String], format: Format
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
        let entries: [TourCodeTable.Entry]
        switch table {
        case .success(let e): entries = e
        case .failure(let e): throw APIError(.internalServerError, "the code table could not be read: \(e.message)")
        }
        let byCode = Dictionary(entries.map { ($0.code, $0) }, uniquingKeysWith: { a, _ in a })
        /// Whether an entry lies under the levels given (its own code or its parents' equal them).
        func under(_ e: TourCodeTable.Entry) -> Bool {
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
}

/// `areaCode2` (and KorService1's `areaCode1`): TourAPI's areas and each area's 시군구 with their Korean
/// names (`TourCodeTable.areas`, data/tourapi-area.tsv); and the refusal of the language services' code
/// lists that have no table of names in their language.
extension TourAPI {
    static let areaTable: Result<[TourCodeTable.Entry], DataUnavailable> =
        Result { try TourCodeTable.load(TourCodeTable.areas) }.mapError { DataUnavailable(message: "\($0)") }

    /// Without `areaCode` the areas (`rnum`, `code`, `name`: `1`, `서울`), with `areaCode` that area's 시군구
    /// (`code` its sigunguCode, `name` as `강남구`), in the service's order. An `areaCode` of other than
    /// digits is `10`; digits that are no area answer the empty page.
    func areaCodes(_ given: [String: String], format: Format) throws -> Response {
        let area = given["areaCode"] ?? ""
        guard area.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw APIError(.badRequest, parameter: "areaCode", "\(MessageText.quoted(area)) is not a number")
        }
        let (rows, page) = try paging(given)
        let entries: [TourCodeTable.Entry]
        switch Self.areaTable {
        case .success(let e): entries = e
        case .failure(let e): throw APIError(.internalServerError, "the area table could not be read: \(e.message)")
        }
        // "01" is area 1, as a number.
        let code = area.isEmpty ? "" : String(Int(area.drop { $0 == "0" }) ?? 0)
        let shown = entries.filter { area.isEmpty ? $0.level == 1 : $0.level == 2 && $0.parent == code }
        let items = shown.enumerated().map { n, e in [("rnum", String(n + 1)), ("code", e.code), ("name", e.name)] }
        return Self.page(items, rows: rows, page: page, format: format)
    }

    /// The refusal of a language service's code list whose names Nearby has no table of in the language
    /// (`TourOperation.Kind.codesWithoutNames`): TourAPI's `12` NO_OPENAPI_SERVICE_ERROR, HTTP 501 (the
    /// operation is known, not answered), rather than the Korean names.
    static func withoutNames(_ operation: TourOperation) -> APIError {
        APIError(
            .notImplemented,
            "\(operation.service) \(operation.name) is not served: Nearby has no table of its names in "
                + "\(operation.service)'s language, and does not answer them in Korean (docs/tourapi-compat.md)")
    }
}
