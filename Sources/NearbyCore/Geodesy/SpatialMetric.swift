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
    /// A distance no greater than the distance from the centre to any point of the box.
    func lowerBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double
    /// A distance no smaller than the distance from the centre to any point of the box.
    func upperBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double
    /// A box holding every point with `distance ≤ radius`, or nil: lets the index skip boxes and
    /// points with four comparisons before any bound or distance is computed.
    func searchBox(radius: Double) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)?
}

extension SpatialMetric {
    public func searchBox(radius: Double) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? { nil }
}
