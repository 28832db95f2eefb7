/// A point on the WGS84 ellipsoid, degrees.
public struct Coordinate: Sendable, Hashable {
    public var lat: Double
    public var lon: Double
    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
    }
}

/// Which places a query considers before filters: every place, a circle, or the k nearest.
/// (A bounding box is a filter, `PlaceFilter.bbox`; the engines also use it to find candidates.)
public enum QueryShape: Sendable, Hashable {
    /// Every cached place (narrowed by the filters).
    case all
    /// Places at most this many metres from the centre, under the query's distance model.
    case radius(Double)
    /// The k nearest places that pass the filters (ties by id), at most `maxDistance` metres away.
    /// Sorting and paging then apply to those k.
    case knn(k: Int, maxDistance: Double?)
}

/// Everything a query asks: shape around a centre, filters, order and page.
public struct PlaceQuery: Sendable, Hashable {
    /// Needed by `.radius`, `.knn` and the distance sort; also gives every answer row a distance.
    public var center: Coordinate?
    public var shape: QueryShape
    public var filter: PlaceFilter
    /// Keys after which ties are broken by id. Empty means: distance when there is a centre, else id.
    public var order: PlaceOrder
    /// Rows per page; 0 returns every match on one page.
    public var limit: Int
    /// 1-based page (TourAPI `pageNo`); ignored when `cursor` is set.
    public var page: Int
    /// Opaque cursor from a previous answer's `nextCursor`: resumes right after its last row.
    public var cursor: String?
    public var distance: DistanceModel
    /// Report the plan and the rows it read with the answer (`QueryAnswer.explanation`); changes no row.
    public var explain = false
    /// Count every match for the answer's `total` (the default). Off, the total is left out (nil) and a
    /// sorted page stops once it is full: a filter no statistic answers (a keyword, a code family) then
    /// costs the rows of the page, not a count of every place. Changes no row.
    public var countsTotal = true
    /// The language whose places answer (`TourLanguage`: Korean, the default, or one synced from a
    /// language service). The engines over a cache hold the Korean places; the caller (NearbyKit, the
    /// server) runs another language's query on that language's engine.
    public var language = TourLanguage.ko
    /// The user and the conditions on that user's data (`PersonalFilter`); unset for a public query.
    public var personal = PersonalFilter()
    /// The user's data the engine consults when `usesPersonalData` (attached by NearbyKit's
    /// `PersonalLayer` after parsing; the parser never sets it). Compared by identity.
    public var personalData: PersonalDataRef?

    public init(
        center: Coordinate? = nil, shape: QueryShape = .all, filter: PlaceFilter = PlaceFilter(),
        order: PlaceOrder = PlaceOrder([]), limit: Int = 0, page: Int = 1, cursor: String? = nil,
        distance: DistanceModel = .haversine
    ) {
        self.center = center
        self.shape = shape
        self.filter = filter
        self.order = order
        self.limit = limit
        self.page = page
        self.cursor = cursor
        self.distance = distance
    }

    /// The order actually applied (the default made explicit).
    public var effectiveOrder: PlaceOrder {
        if !order.keys.isEmpty { return order }
        return center == nil ? order : Self.byDistance
    }

    /// True when the rows come in plain ascending distance order (asked, or the default with a centre).
    var isByDistanceOnly: Bool {
        center != nil && (order.keys.isEmpty || (order.keys.count == 1 && order.keys[0] == SortKey(.distance)))
    }

    /// Made once: building the array per query would be an allocation on every query's path.
    static let byDistance = PlaceOrder([SortKey(.distance)])

    /// What makes the query meaningless, naming the parameter (`QueryParameters`' names); nil when valid.
    /// The one place these rules live: the request parser and every engine ask it.
    public var problem: RequestError? {
        func bad(_ parameter: String, _ reason: String) -> RequestError {
            RequestError(parameter: parameter, reason: reason)
        }
        if let c = center {
            if !(c.lat.isFinite && (-90...90).contains(c.lat)) { return bad("lat", "\(c.lat) is outside -90…90") }
            if !(c.lon.isFinite && (-180...180).contains(c.lon)) { return bad("lon", "\(c.lon) is outside -180…180") }
        }
        switch shape {
        case .all: break
        case .radius(let r):
            if !(r.isFinite && r >= 0) { return bad("radius", "must be a finite number of metres ≥ 0, got \(r)") }
            if center == nil { return bad("radius", "needs a centre (lat and lon)") }
        case .knn(let k, let maxDistance):
            if k < 1 { return bad("knn", "must be at least 1, got \(k)") }
            if let m = maxDistance, !(m.isFinite && m >= 0) {
                return bad("radius", "must be a finite number of metres ≥ 0, got \(m)")
            }
            if center == nil { return bad("knn", "needs a centre (lat and lon)") }
        }
        if center == nil && order.usesDistance {
            return bad("sort", "sorting by distance needs a centre (lat and lon)")
        }
        if limit < 0 { return bad("limit", "must be 0 (every match) or more, got \(limit)") }
        if page < 1 { return bad("page", "must be 1 or more, got \(page)") }
        if page.multipliedReportingOverflow(by: limit).overflow || page * limit > Int(Int32.max) {
            // On the first page the product is the limit alone: name it, not a page nobody asked for.
            if page == 1 { return bad("limit", "\(limit) is too large (at most \(Int32.max))") }
            return bad("page", "page × limit is too large; use the cursor for deep pages")
        }
        if personal.keywordIn != nil && filter.keyword == nil {
            return bad("keyword-in", "says where the keyword is looked for; give a keyword")
        }
        if let r = personal.minRating, !(r.isFinite && (1...5).contains(r)) {
            return bad("min-rating", "must be 1…5, got \(r)")
        }
        if let unknown = filter.accessibility.first(where: { Accessibility.bit($0) == nil }) {
            return bad(
                "accessible",
                "unknown tag \(RequestError.quoted(unknown)) (known: \(Accessibility.tags.joined(separator: ", ")))")
        }
        return nil
    }
}
