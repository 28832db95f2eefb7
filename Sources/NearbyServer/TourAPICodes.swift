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

/// `lclsSystmCode2`: the new classification's codes and Korean names (`TourClassification`,
/// data/tourapi-lcls.tsv).
extension TourAPI {
    static let classification: Result<[TourClassification.Entry], DataUnavailable> =
        Result { try TourClassification.load() }.mapError { DataUnavailable(message: "\($0)") }

    /// With `lclsSystmListYn` N (the default): the level 1 codes (`rnum`, `code`, `name`), or with
    /// `lclsSystm1` its level 2 codes, with `lclsSystm2` too its level 3 codes, with `lclsSystm3` that
    /// code alone. With `lclsSystmListYn` Y every level 3 code (under the levels given) with its parents:
    /// `lclsSystm1Cd`, `lclsSystm1Nm`, `lclsSystm2Cd`, `lclsSystm2Nm`, `lclsSystm3Cd`, `lclsSystm3Nm`, `rnum`.
    func classificationCodes(_ given: [String: String], format: Format) throws -> Response {
        let levels = ["lclsSystm1", "lclsSystm2", "lclsSystm3"].map { given[$0] ?? "" }
        for (n, code) in levels.enumerated() where !code.isEmpty && n > 0 && levels[n - 1].isEmpty {
            throw APIError(
                .badRequest, parameter: "lclsSystm\(n)", "missing (lclsSystm\(n + 1) needs it)")
        }
        for (n, code) in levels.enumerated()
        where code.utf8.contains(where: { !(0x30...0x39).contains($0) && !(0x41...0x5A).contains($0) }) {
            throw APIError(
                .badRequest, parameter: "lclsSystm\(n + 1)",
                "\(MessageText.quoted(code)) is not a code (digits and capitals)")
        }
        let list: Bool
        switch (given["lclsSystmListYn"] ?? "").uppercased() {
        case "", "N": list = false
        case "Y": list = true
        case let other:
            throw APIError(.badRequest, parameter: "lclsSystmListYn", "\(MessageText.quoted(other)) is not Y or N")
        }
        let (rows, page) = try paging(given)
        let entries: [TourClassification.Entry]
        switch Self.classification {
        case .success(let e): entries = e
        case .failure(let e):
            throw APIError(.internalServerError, "the classification data could not be read: \(e.message)")
        }
        let byCode = Dictionary(entries.map { ($0.code, $0) }, uniquingKeysWith: { a, _ in a })
        /// Whether an entry lies under the levels given (its own code or its parents' equal them).
        func under(_ e: TourClassification.Entry) -> Bool {
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
                    ("lclsSystm1Cd", one?.code ?? ""), ("lclsSystm1Nm", one?.name ?? ""),
                    ("lclsSystm2Cd", two?.code ?? ""), ("lclsSystm2Nm", two?.name ?? ""),
                    ("lclsSystm3Cd", e.code), ("lclsSystm3Nm", e.name), ("rnum", String(n + 1)),
                ]
            }
        } else {
            let depth = levels.lastIndex { !$0.isEmpty }.map { $0 + 1 } ?? 0
            let shown =
                depth == 3
                ? entries.filter { $0.level == 3 && under($0) }
                : entries.filter { $0.level == depth + 1 && under($0) }
            items = shown.enumerated().map { n, e in [("rnum", String(n + 1)), ("code", e.code), ("name", e.name)] }
        }
        return Self.page(items, rows: rows, page: page, format: format)
    }
}
