/// Euclidean distance in a projected plane (the `projected` model), in the CRS's metres.
///
/// `distance` is `√(dx² + dy²)` (see `PlanarMetric.distance(x1:y1:x2:y2:)`, which brute-force scans
/// use too). The box bounds are exact and need no rounding slack: subtraction, squaring, addition and
/// √ are all monotone under IEEE rounding, and a box's edges are coordinates of its points, so the
/// computed bound to the nearest (farthest) edge never exceeds (falls short of) the computed distance.
public struct PlanarMetric: SpatialMetric, Sendable {
    public let x: Double
    public let y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// Euclidean distance between two projected points.
    @inlinable
    public static func distance(x1: Double, y1: Double, x2: Double, y2: Double) -> Double {
        let dx = x2 - x1
        let dy = y2 - y1
        return (dx * dx + dy * dy).squareRoot()
    }

    @inlinable
    public func distance(x: Double, y: Double) -> Double {
        Self.distance(x1: self.x, y1: self.y, x2: x, y2: y)
    }

    @inlinable
    public func lowerBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
        Self.distance(x1: x, y1: y, x2: min(max(x, minX), maxX), y2: min(max(y, minY), maxY))
    }

    @inlinable
    public func upperBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
        Self.distance(
            x1: x, y1: y,
            x2: x - minX > maxX - x ? minX : maxX, y2: y - minY > maxY - y ? minY : maxY)
    }
}
