/// A point on the WGS84 ellipsoid, degrees.
public struct Coordinate: Sendable, Hashable {
    public var lat: Double
    public var lon: Double
    public init(lat: Double, lon: Double) { self.lat = lat; self.lon = lon }
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

    public init(
        center: Coordinate? = nil, shape: QueryShape = .all, filter: PlaceFilter = PlaceFilter(),
        order: PlaceOrder = PlaceOrder([]), limit: Int = 0, page: Int = 1, cursor: String? = nil,
        distance: DistanceModel = .haversine
    ) {
        self.center = center; self.shape = shape; self.filter = filter; self.order = order
        self.limit = limit; self.page = page; self.cursor = cursor; self.distance = distance
    }

    /// The order actually applied (the default made explicit).
    public var effectiveOrder: PlaceOrder {
        if !order.keys.isEmpty { return order }
        return center == nil ? PlaceOrder([]) : PlaceOrder([SortKey(.distance)])
    }

    /// Problems that make the query meaningless, as one human sentence; nil when valid.
    public var problem: String? {
        if let c = center {
            if !(c.lat.isFinite && (-90...90).contains(c.lat)) { return "latitude \(c.lat) is outside [-90, 90]" }
            if !(c.lon.isFinite && (-180...180).contains(c.lon)) { return "longitude \(c.lon) is outside [-180, 180]" }
        }
        switch shape {
        case .all: break
        case .radius(let r):
            if center == nil { return "a radius needs a centre (--lat and --lon)" }
            if !(r.isFinite && r >= 0) { return "radius \(r) must be a finite number of metres ≥ 0" }
        case .knn(let k, let maxDistance):
            if center == nil { return "k nearest needs a centre (--lat and --lon)" }
            if k < 1 { return "k must be at least 1" }
            if let m = maxDistance, !(m.isFinite && m >= 0) { return "maximum distance \(m) must be finite and ≥ 0" }
        }
        if center == nil && order.usesDistance { return "sorting by distance needs a centre (--lat and --lon)" }
        if limit < 0 { return "limit must be ≥ 0" }
        if page < 1 { return "page must be ≥ 1" }
        if page.multipliedReportingOverflow(by: limit).overflow || page * limit > Int(Int32.max) {
            return "page × limit is too large; use the cursor for deep pages"
        }
        if Accessibility.mask(filter.accessibility) == nil {
            let unknown = filter.accessibility.filter { Accessibility.bit($0) == nil }
            return "unknown accessibility tag '\(unknown.joined(separator: ","))' (known: \(Accessibility.tags.joined(separator: ", ")))"
        }
        return nil
    }
}
