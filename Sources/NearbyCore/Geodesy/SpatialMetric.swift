/// How the spatial index measures distance from one query centre.
///
/// The index prunes with `lowerBound` and counts whole subtrees with `upperBound`, then refines every
/// surviving point with `distance`, so answers are exact whatever the metric: bounds only need to be
/// conservative (lowerBound ≤ true distance to any point of the box ≤ upperBound).
/// Coordinates are (x, y) = (lon, lat) in degrees for spherical/ellipsoidal metrics and projected
/// metres for planar ones.
public protocol SpatialMetric {
    /// Exact distance in metres from the centre to (x, y).
    func distance(x: Double, y: Double) -> Double
    /// The same distance, given `cosY` = `Haversine.cosLat(y)` (an index over (lon, lat) stores it per
    /// point): a metric that needs that cosine uses it, any other ignores it (the default).
    func distance(x: Double, y: Double, cosY: Double) -> Double
    /// A distance no greater than the distance from the centre to any point of the box.
    func lowerBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double
    /// A distance no smaller than the distance from the centre to any point of the box.
    func upperBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double
    /// A box holding every point with `distance ≤ radius`, or nil: lets the index skip boxes and
    /// points with four comparisons before any bound or distance is computed.
    func searchBox(radius: Double) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)?

    /// What the index asks of boxes against one circle: made once per query, so a metric can turn the
    /// radius into whatever its box tests compare against. `searchBox` is this metric's
    /// `searchBox(radius:)`, which the index has computed for its own window already.
    associatedtype Circle: CircleTest = BoundsCircle<Self>
    func circle(radius: Double, searchBox: (minX: Double, minY: Double, maxX: Double, maxY: Double)?) -> Circle
}

/// Conservative tests of boxes (minX, minY, maxX, maxY) against one circle of a metric: `isOutside`
/// only when no point of the box has `distance ≤ radius`, `isInside` only when every point has.
/// `distance` is the metric's for every point within the radius, and beyond the radius for the others
/// (a circle may skip exact arithmetic for points it knows are outside).
public protocol CircleTest {
    func isOutside(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Bool
    func isInside(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Bool
    func distance(x: Double, y: Double) -> Double
    /// `distance`, given `cosY` = `Haversine.cosLat(y)`, as `SpatialMetric.distance(x:y:cosY:)`.
    func distance(x: Double, y: Double, cosY: Double) -> Double
}

extension CircleTest {
    @inlinable public func distance(x: Double, y: Double, cosY: Double) -> Double { distance(x: x, y: y) }
}

/// The circle test of any metric: its `lowerBound` and `upperBound` against the radius.
public struct BoundsCircle<M: SpatialMetric>: CircleTest {
    @usableFromInline let metric: M
    @usableFromInline let radius: Double

    @inlinable public init(metric: M, radius: Double) {
        self.metric = metric
        self.radius = radius
    }

    @inlinable public func isOutside(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Bool {
        metric.lowerBound(minX: minX, minY: minY, maxX: maxX, maxY: maxY) > radius
    }

    @inlinable public func isInside(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Bool {
        metric.upperBound(minX: minX, minY: minY, maxX: maxX, maxY: maxY) <= radius
    }

    @inlinable public func distance(x: Double, y: Double) -> Double { metric.distance(x: x, y: y) }
    @inlinable public func distance(x: Double, y: Double, cosY: Double) -> Double {
        metric.distance(x: x, y: y, cosY: cosY)
    }
}

extension SpatialMetric where Circle == BoundsCircle<Self> {
    @inlinable public func circle(radius: Double, searchBox: (minX: Double, minY: Double, maxX: Double, maxY: Double)?)
        -> BoundsCircle<Self>
    {
        BoundsCircle(metric: self, radius: radius)
    }
}

extension SpatialMetric {
    @inlinable public func distance(x: Double, y: Double, cosY: Double) -> Double { distance(x: x, y: y) }

    public func searchBox(radius: Double) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? { nil }
}
