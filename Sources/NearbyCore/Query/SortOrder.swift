import Foundation

/// A field a query's answer can be ordered by.
public enum SortField: String, Sendable, Hashable, CaseIterable {
    /// Distance from the query centre under the query's distance model (needs a centre).
    case distance
    /// Title in Korean collation (see `KoreanCollation`).
    case title
    /// `created`; places without it sort as the oldest.
    case created
    /// `modified`; places without it sort as the oldest.
    case modified
    /// Content type id, numerically.
    case category
    /// The user's rating (`PersonalData`); unrated places sort as the lowest.
    case rating
    /// When the user bookmarked the place (in `--bookmarked-in`'s list, else the latest of its lists);
    /// places not bookmarked sort as the oldest.
    case bookmarked
    /// When the user's memo was last updated; places without one sort as the oldest.
    case memo
    /// The user's last visit; places never visited sort as the oldest.
    case visited
}

/// One sort key: a field and a direction.
public struct SortKey: Sendable, Hashable, CustomStringConvertible {
    public var field: SortField
    public var descending: Bool

    public init(_ field: SortField, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }

    public var description: String { descending ? "-\(field.rawValue)" : field.rawValue }
}

/// The order of a query's answer: keys in priority order. Every order is total because ties are
/// always broken by id ascending (integer ids numerically, see `PlaceTable`), whatever the directions.
///
/// Text syntax (the CLI's `--sort`): keys separated by commas, each a field name, optionally prefixed
/// with `-` for descending (or `+` for ascending): `title,-modified`, `-created,distance`.
public struct PlaceOrder: Sendable, Hashable, CustomStringConvertible {
    public var keys: [SortKey]

    public init(_ keys: [SortKey]) { self.keys = keys }

    /// Parses `title,-modified`; nil when a field is unknown, a key is empty or a field repeats.
    public init?(parsing text: String) {
        var keys: [SortKey] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            var name = Substring(TextNormalization.trimmingSpaces(part))
            var descending = false
            if name.first == "-" {
                descending = true
                name = name.dropFirst()
            } else if name.first == "+" {
                name = name.dropFirst()
            }
            guard let field = SortField(rawValue: name.lowercased()),
                !keys.contains(where: { $0.field == field })
            else { return nil }
            keys.append(SortKey(field, descending: descending))
        }
        self.keys = keys
    }

    public var description: String { keys.map(\.description).joined(separator: ",") }

    public var usesDistance: Bool { keys.contains { $0.field == .distance } }
    public var usesTitle: Bool { keys.contains { $0.field == .title } }
    /// True when the first key is ascending distance: the order best-first nearest search produces.
    public var isDistanceFirst: Bool { keys.first == SortKey(.distance) }
}

/// TourAPI's `arrange` codes: A title, C modified (newest first), D created (newest first), E distance;
/// O, Q, R, S are A, C, D, E restricted to places with an image.
public enum Arrange: String, Sendable, CaseIterable {
    case A, C, D, E, O, Q, R, S

    public var order: PlaceOrder {
        switch self {
        case .A, .O: PlaceOrder([SortKey(.title)])
        case .C, .Q: PlaceOrder([SortKey(.modified, descending: true)])
        case .D, .R: PlaceOrder([SortKey(.created, descending: true)])
        case .E, .S: PlaceOrder([SortKey(.distance)])
        }
    }

    public var requiresImage: Bool { [.O, .Q, .R, .S].contains(self) }
}
