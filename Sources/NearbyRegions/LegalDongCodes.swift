import Foundation
import NearbyCore

/// The 시도 and 시군구 codes `--ldong` takes, each with every code it stands for (today's and former:
/// 42 and 51 are both 강원), as the region index resolves them (`RegionIndex.legalDongCodes`), kept
/// in a small file beside the boundaries (`data/ldong-codes.tsv`): a query with `--ldong` then reads
/// some hundred lines instead of loading the boundaries (over 100 ms of a cold process).
///
/// Format: one line a code, ascending: the code, a tab, the codes it stands for (itself included),
/// ascending, separated by spaces. `nearby region --render-ldong-codes` writes it from the index; a
/// test checks the file holds the index's table.
public struct LegalDongCodes: Sendable, Equatable {
    public static let fileName = "ldong-codes.tsv"

    /// Each code and the codes it stands for.
    public let codes: [String: Set<String>]

    /// The table of `index`: every 시도 and 시군구 code and former code it resolves.
    public init(index: RegionIndex) {
        var codes: [String: Set<String>] = [:]
        for region in index.regions where region.level <= .sigungu {
            for code in [region.code] + region.formerCodes where codes[code] == nil {
                if let all = index.legalDongCodes(code) { codes[code] = all }
            }
        }
        self.codes = codes
    }

    /// The table in the file at `path` (`rendered`'s format).
    public init(contentsOf path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RegionFile.FormatError(path: path, message: "cannot read the file", kind: .io)
        }
        var codes: [String: Set<String>] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "\t")
            guard parts.count == 2 else {
                throw RegionFile.FormatError(path: path, message: "a line is not code<TAB>codes")
            }
            codes[String(parts[0])] = Set(parts[1].split(separator: " ").map(String.init))
        }
        self.codes = codes
    }

    /// The file's text.
    public var rendered: String {
        codes.keys.sorted().map { "\($0)\t\(codes[$0]!.sorted().joined(separator: " "))\n" }.joined()
    }
}

extension RegionIndex {
    /// `--ldong`: the codes a 시도 or 시군구 code (old or new, `resolve`) stands for, itself included;
    /// nil when it names no region, or one below 시군구.
    public func legalDongCodes(_ code: String) -> Set<String>? {
        guard case .found(let regions) = resolve(code), regions.allSatisfy({ $0.level <= .sigungu }) else {
            return nil
        }
        return Set([code] + regions.flatMap { [$0.code] + $0.formerCodes })
    }
}
