import Foundation
import NearbyCore

/// The personal output fields of an answer row: `bookmarks`, `rating`, `memo`, `visits`.
public enum PersonalField: String, Sendable, CaseIterable {
    case bookmarks, rating, memo, visits

    /// The fields a query's personal conditions and sort keys read: written when `--fields` names none.
    public static func used(by q: PlaceQuery) -> [PersonalField] {
        let p = q.personal
        let keys = Set(q.order.keys.map(\.field))
        var out: [PersonalField] = []
        if p.bookmarked || p.bookmarkedIn != nil || keys.contains(.bookmarked) { out.append(.bookmarks) }
        if p.minRating != nil || keys.contains(.rating) { out.append(.rating) }
        if p.hasMemo || (p.keywordIn?.contains(.memo) ?? false) || keys.contains(.memo) { out.append(.memo) }
        if p.visited != nil || keys.contains(.visited) { out.append(.visits) }
        return out
    }
}

enum PersonalJSON {
    nonisolated(unsafe) private static let formatter: ISO8601DateFormatter = {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }()
    private static let lock = NSLock()

    /// Unix milliseconds as ISO 8601 UTC with milliseconds (`2026-11-28T06:10:15.123Z`).
    static func time(_ ms: Int64) -> String {
        var out: [UInt8] = []
        appendTime(ms, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `time(ms)`. Years 1970–9999 are written here, the day from Hinnant's `civil_from_days`
    /// (`CivilDate`, exact over the proleptic Gregorian calendar): a personal answer writes one per bookmark, and
    /// Foundation's formatter (ICU) costs some microseconds each, most of such a request. Other years
    /// go to Foundation's formatter.
    static func appendTime(_ ms: Int64, to out: inout [UInt8]) {
        guard (0..<253_402_300_800_000).contains(ms) else {
            out.append(contentsOf: foundationTime(ms).utf8)
            return
        }
        let inDay = ms % 86_400_000
        let (year, month, day) = CivilDate.civil(day: Int(ms / 86_400_000))
        func digits(_ v: Int, _ scale: Int, then separator: Unicode.Scalar) {
            var p = scale
            while p > 0 {
                out.append(UInt8(ascii: "0") + UInt8(v / p % 10))
                p /= 10
            }
            out.append(UInt8(ascii: separator))
        }
        digits(year, 1000, then: "-")
        digits(month, 10, then: "-")
        digits(day, 10, then: "T")
        digits(Int(inDay / 3_600_000), 10, then: ":")
        digits(Int(inDay / 60_000 % 60), 10, then: ":")
        digits(Int(inDay / 1000 % 60), 10, then: ".")
        digits(Int(inDay % 1000), 100, then: "Z")
    }

    /// Foundation's formatting of `ms`: other years, and what a test compares `time` with.
    static func foundationTime(_ ms: Int64) -> String {
        lock.lock()
        defer { lock.unlock() }
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    /// Appends `,"bookmarks":…` and the other fields to an object whose closing `}` was removed.
    static func appendMembers(_ item: PersonalData.Item?, _ fields: [PersonalField], to out: inout [UInt8]) {
        for f in fields {
            out.append(contentsOf: ",\"".utf8)
            out.append(contentsOf: f.rawValue.utf8)
            out.append(contentsOf: "\":".utf8)
            switch f {
            case .bookmarks:
                out.append(UInt8(ascii: "["))
                for (i, b) in (item?.bookmarks ?? []).enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(contentsOf: "{\"list\":".utf8)
                    JSONWriter.appendString(b.list, to: &out)
                    out.append(contentsOf: ",\"added\":\"".utf8)
                    appendTime(b.added, to: &out)
                    out.append(contentsOf: "\"}".utf8)
                }
                out.append(UInt8(ascii: "]"))
            case .rating:
                out.append(contentsOf: (item?.rating.map { "\($0)" } ?? "null").utf8)
            case .memo:
                guard let m = item?.memo else {
                    out.append(contentsOf: "null".utf8)
                    continue
                }
                out.append(contentsOf: "{\"text\":".utf8)
                JSONWriter.appendString(m.text, to: &out)
                out.append(contentsOf: ",\"created\":\"".utf8)
                appendTime(m.created, to: &out)
                out.append(contentsOf: "\",\"updated\":\"".utf8)
                appendTime(m.updated, to: &out)
                out.append(contentsOf: "\"}".utf8)
            case .visits:
                out.append(UInt8(ascii: "["))
                for (i, v) in (item?.visits ?? []).enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(UInt8(ascii: "\""))
                    appendTime(v, to: &out)
                    out.append(UInt8(ascii: "\""))
                }
                out.append(UInt8(ascii: "]"))
            }
        }
    }
}
