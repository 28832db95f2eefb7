import NearbyCore

/// The input formats `PlaceParser` reads; detected from content unless forced (`--format`).
public enum ImportFormat: String, CaseIterable, Sendable {
    /// One `PlaceJSON` object per line.
    case jsonl
    /// TourAPI items wherever they sit in JSON documents: responses (KorService, KorService1/2), bare
    /// arrays, collector and capture wrappers, batch dumps, one item or response per line.
    case tourapi
    /// Kakao Local search responses (`documents[]`), or their documents, wherever they sit.
    case kakao
    /// Header row, then one place per row; RFC 4180 quoting.
    case csv
    /// Header row, then one place per row, tab-separated, no quoting.
    case tsv
    /// A GeoJSON FeatureCollection of Point features.
    case geojson
}

/// A bad record: where it is and what is wrong. Printed as `file:line: field: reason`.
public struct RecordError: NearbyError, Equatable {
    public var file: String
    /// 1-based; CSV/TSV count the header as line 1; TourAPI/GeoJSON give the line where the item starts.
    public var line: Int
    /// The field as the input names it (`mapy` in TourAPI), `json` for a syntax error, or a path such as
    /// `item[3].mapy` when several items share a line.
    public var field: String
    public var reason: String

    public init(file: String, line: Int, field: String, reason: String) {
        self.file = file
        self.line = line
        self.field = field
        self.reason = reason
    }

    /// One line whatever the parts hold (`MessageText.oneLine`): echoed values are quoted and cut where
    /// they are made, and a control character that slipped through is escaped here.
    public var description: String { MessageText.oneLine("\(file):\(line): \(field): \(reason)") }
    public var kind: ErrorKind { .usage }
}

/// One thing an input asks of the cache.
public enum ImportRecord: Equatable, Sendable {
    case upsert(Place)
    /// A TourAPI sync-list item with `showflag` 0: the place was withdrawn.
    case delete(id: String)
    /// A detailWithTour2 or detailPetTour2 item: merges into the place with its id (`PlaceDetail`).
    case detail(PlaceDetail)
}

/// A record and the 1-based line it came from.
public struct LineRecord: Equatable, Sendable {
    public var line: Int
    public var record: ImportRecord
    public init(line: Int, record: ImportRecord) {
        self.line = line
        self.record = record
    }
}

/// Everything read from one input: good records in input order, and the bad ones that were skipped.
public struct ParsedInput: Sendable {
    public var file: String
    public var format: ImportFormat
    public var records: [LineRecord]
    public var errors: [RecordError]

    public init(file: String, format: ImportFormat, records: [LineRecord] = [], errors: [RecordError] = []) {
        self.file = file
        self.format = format
        self.records = records
        self.errors = errors
    }
}

/// The whole input was refused: it is in no supported format, or it is a TourAPI error envelope.
public struct UnsupportedInputError: NearbyError, Equatable {
    public var file: String
    public var message: String
    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }
    public var description: String { MessageText.oneLine("\(file): \(message)") }
    public var kind: ErrorKind { .unsupported }
}
