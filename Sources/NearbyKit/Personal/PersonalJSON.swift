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

    static func time(_ ms: Int64) -> String {
        lock.lock()
        defer { lock.unlock() }
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    /// The formatter is used under `lock` only.
    /// Appends `,"bookmarks":…` and the other fields to an object whose closing `}` was removed.
    static func appendMembers(_ item: PersonalData.Item?, _ fields: [PersonalField], to out: inout [UInt8]) {
        for f in fields {
            out += Array(",\"\(f.rawValue)\":".utf8)
            switch f {
            case .bookmarks:
                out.append(UInt8(ascii: "["))
                for (i, b) in (item?.bookmarks ?? []).enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    out += Array("{\"list\":".utf8)
                    JSONWriter.appendString(b.list, to: &out)
                    out += Array(",\"added\":\"\(time(b.added))\"}".utf8)
                }
                out.append(UInt8(ascii: "]"))
            case .rating:
                out += Array((item?.rating.map { "\($0)" } ?? "null").utf8)
            case .memo:
                guard let m = item?.memo else {
                    out += Array("null".utf8)
                    continue
                }
                out += Array("{\"text\":".utf8)
                JSONWriter.appendString(m.text, to: &out)
                out += Array(",\"created\":\"\(time(m.created))\",\"updated\":\"\(time(m.updated))\"}".utf8)
            case .visits:
                out.append(UInt8(ascii: "["))
                for (i, v) in (item?.visits ?? []).enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    out += Array("\"\(time(v))\"".utf8)
                }
                out.append(UInt8(ascii: "]"))
            }
        }
    }
}
