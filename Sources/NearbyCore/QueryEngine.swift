/// One page of a query's answer.
public struct QueryAnswer: Sendable, Hashable {
    /// Matches before paging (for `.knn`, the number of neighbours found).
    public var total: Int
    public var places: [Place]
    /// Distance in metres of each row under the query's model; nil when the query has no centre.
    public var distances: [Double?]
    /// 1-based page this answer is.
    public var page: Int
    /// Resumes after the last row; nil on the last page or when the query has no limit.
    public var nextCursor: String?

    public init(total: Int, places: [Place], distances: [Double?], page: Int, nextCursor: String?) {
        self.total = total; self.places = places; self.distances = distances
        self.page = page; self.nextCursor = nextCursor
    }
}

/// Something that answers `PlaceQuery`s: the in-memory engine or the SQLite one. Both give identical answers.
public protocol QueryEngine {
    func run(_ query: PlaceQuery) throws -> QueryAnswer
}

/// Why an engine refused a query.
public struct QueryError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
