import Foundation

/// The loaded places in id order, with the columns queries filter and sort on in flat arrays.
///
/// Row order is id order, so comparing row indices compares ids: the tie-breaker of every sort.
/// Id order (`PlaceTable.idPrecedes`): ids made only of ASCII digits come first, compared as
/// numbers (any length; equal numbers such as "7" and "007" then by bytes); all other ids follow,
/// compared by their UTF-8 bytes.
///
/// Memory per place for the columns: category 4 B, areacode and sigungucode 2 B each (dictionary
/// codes), created and modified 8 B each (`yyyyMMddHHmmss`, 0 when missing), event start/end 4 B each
/// (`yyyyMMdd`, 0 when missing), accessibility mask with the has-image bit 4 B: 36 B. Title ranks (4 B)
/// are built on the first title sort.
public final class PlaceTable: @unchecked Sendable {
    /// Full records, for output. Row i is `places[i]`.
    public let places: [Place]
    let category: [Int32]
    let areacode: CodeColumn
    let sigungucode: CodeColumn
    let created: [Int64]
    let modified: [Int64]
    let eventStart: [Int32]
    let eventEnd: [Int32]
    /// Accessibility bits (`Accessibility.bit`) with `imageBit` set when the place has an image.
    let flags: [UInt32]
    static let imageBit: UInt32 = 1 << 31

    private let lock = NSLock()
    private var ranks: [UInt32]?

    public var count: Int { places.count }

    /// Takes places in any order; duplicate ids are kept (the cache never has them).
    public init(_ input: [Place]) {
        let places = Self.sortedById(input)
        self.places = places
        category = places.map { Int32(truncatingIfNeeded: $0.category) }
        areacode = CodeColumn(places.map(\.areacode))
        sigungucode = CodeColumn(places.map(\.sigungucode))
        created = places.map { Self.timestamp($0.created) }
        modified = places.map { Self.timestamp($0.modified) }
        eventStart = places.map { Self.day($0.eventStart) }
        eventEnd = places.map { Self.day($0.eventEnd ?? $0.eventStart) }
        flags = places.map { p in
            var f: UInt32 = p.image.map { $0.isEmpty ? 0 : Self.imageBit } ?? 0
            for tag in p.accessibility { f |= Accessibility.bit(tag) ?? 0 }
            return f
        }
    }

    /// Korean-collation rank of each row's title (equal titles share a rank), built on first use.
    func titleRanks() -> [UInt32] {
        lock.lock(); defer { lock.unlock() }
        if let ranks { return ranks }
        let r = KoreanCollation.ranks(of: places.map(\.title))
        ranks = r
        return r
    }

    /// Bytes of the columns (not of the `Place` records), title ranks included once built.
    public var byteCount: Int {
        lock.lock(); defer { lock.unlock() }
        return category.capacity * 4 + (areacode.codes.capacity + sigungucode.codes.capacity) * 2
            + (created.capacity + modified.capacity) * 8 + (eventStart.capacity + eventEnd.capacity) * 4
            + flags.capacity * 4 + (ranks?.capacity ?? 0) * 4
    }

    /// Row of an id, by binary search; nil when absent.
    public func row(ofId id: String) -> Int? {
        var lo = 0, hi = places.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if Self.idPrecedes(places[mid].id, id) { lo = mid + 1 } else { hi = mid }
        }
        return lo < places.count && places[lo].id == id ? lo : nil
    }

    /// The id order described on the type.
    public static func idPrecedes(_ a: String, _ b: String) -> Bool {
        let da = isDigits(a), db = isDigits(b)
        if da != db { return da }
        if da {
            let ta = a.utf8.drop { $0 == 48 }, tb = b.utf8.drop { $0 == 48 }
            if ta.count != tb.count { return ta.count < tb.count }
            if !ta.elementsEqual(tb) { return ta.lexicographicallyPrecedes(tb) }
        }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    private static func isDigits(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }

    /// Sorts by id; skips the sort when the input is already in order (the cache reads it that way).
    /// Ids of at most 18 digits are compared as integers, which is the common case and fast.
    private static func sortedById(_ places: [Place]) -> [Place] {
        let keys: [Int64] = places.map { p in
            p.id.utf8.count <= 18 && isDigits(p.id) && p.id.utf8.first != 48 ? Int64(p.id)! : -1
        }
        func precedes(_ i: Int, _ j: Int) -> Bool {
            let a = keys[i], b = keys[j]
            return a >= 0 && b >= 0 ? a < b : idPrecedes(places[i].id, places[j].id)
        }
        if places.indices.dropFirst().allSatisfy({ !precedes($0, $0 - 1) }) { return places }
        return Array(places.indices).sorted(by: precedes).map { places[$0] }
    }

    private static func timestamp(_ s: String?) -> Int64 { s.flatMap { DateBound.timestamp($0) } ?? 0 }
    private static func day(_ s: String?) -> Int32 { s.flatMap { DateBound.day($0) } ?? 0 }
}

/// A text column stored as small dictionary codes (0 = missing), for equality filters.
struct CodeColumn: Sendable {
    let codes: [UInt16]
    let dictionary: [String: UInt16]

    /// More than 65,535 distinct values keep the first ones coded; the rest share code `UInt16.max`
    /// and are then compared as text (`matches`), so answers stay exact.
    init(_ values: [String?]) {
        var dict: [String: UInt16] = [:]
        codes = values.map { v in
            guard let v else { return 0 }
            if let c = dict[v] { return c }
            guard dict.count < Int(UInt16.max) - 1 else { return UInt16.max }
            let c = UInt16(dict.count + 1)
            dict[v] = c
            return c
        }
        dictionary = dict
    }

    /// Codes of the wanted values (unknown values match nothing).
    func codes(of wanted: Set<String>) -> Set<UInt16> { Set(wanted.compactMap { dictionary[$0] }) }
}
