import Foundation
import NearbyCore
import NearbyStore

/// Places and parsed files shared by the import and output tests of several targets.
public enum SamplePlaces {
    /// Two places that exercise every field, quoting and escapes, a line break in a title, -0 and a
    /// coordinate with a long decimal expansion: a writer and a reader must give them back exactly.
    public static let roundTrip = [
        Place(
            id: "126508", title: "덕수궁 \"Deoksugung\" \\ 🎉", lat: 37.5658049845, lon: 126.9751183616, category: 12,
            created: "20071106090000", modified: "20240517110023", areacode: "1", sigungucode: "24",
            addr: "서울특별시 중구 세종대로 99", tel: "02-771-9955", image: "http://tong.visitkorea.or.kr/a.jpg",
            cat1: "A02", cat2: "A0201", cat3: "A02010100", eventStart: "20240501", eventEnd: "20240505",
            accessibility: ["elevator", "wheelchair"], lDongRegnCd: "11", lDongSignguCd: "140",
            lclsSystm1: "HS", lclsSystm2: "HS01", lclsSystm3: "HS010100"),
        Place(id: "2", title: "시청\n앞", lat: -0.0, lon: 0.30000000000000004, category: 39),
    ]

    /// `n` places anywhere on Earth (seeded), ids `p0`…, three content types, modified dates in 2024.
    public static func random(_ n: Int, seed: UInt64) -> [Place] {
        var rng = SplitMix64(seed: seed)
        return (0..<n).map { i in
            Place(
                id: "p\(i)", title: "장소 \(i)", lat: .random(in: -90...90, using: &rng),
                lon: .random(in: -180...180, using: &rng), category: [12, 14, 39][i % 3],
                modified: "2024010\(i % 9 + 1)000000")
        }
    }
}

/// Writes `bytes` to a real file in a fresh temporary folder, reads it back and parses it, named `name`.
public func parseFile(_ bytes: [UInt8], name: String, format: ImportFormat? = nil, strict: Bool = false) throws
    -> ParsedInput
{
    let dir = try TempFolder()
    let read = try withExtendedLifetime(dir) {
        try Data(contentsOf: URL(fileURLWithPath: dir.write(name, Data(bytes))))
    }
    return try PlaceParser.parse(Array(read), file: name, format: format, strict: strict)
}

public func parseFile(_ text: String, name: String, format: ImportFormat? = nil, strict: Bool = false) throws
    -> ParsedInput
{
    try parseFile(Array(text.utf8), name: name, format: format, strict: strict)
}

extension ParsedInput {
    public var places: [Place] { records.compactMap { if case .upsert(let p) = $0.record { p } else { nil } } }
    public var lines: [Int] { records.map(\.line) }
    public var messages: [String] { errors.map(\.description) }
}
