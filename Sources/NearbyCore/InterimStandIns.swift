// INTERIM — deleted as soon as the index, geo and data branches land. Minimal stand-ins with the
// names and signatures the query engine is written against, so the engine can be built and tested
// against brute force before the real pieces exist. Not part of the product.
import CPROJ
import Foundation

public struct PackedRTree: Sendable {
    let xs: [Double], ys: [Double]
    public init(xs: [Double], ys: [Double], nodeSize: Int = 16) { self.xs = xs; self.ys = ys }
    public var count: Int { xs.count }

    public func search(minX: Double, minY: Double, maxX: Double, maxY: Double, _ visit: (Int) -> Void) {
        for i in xs.indices where xs[i] >= minX && xs[i] <= maxX && ys[i] >= minY && ys[i] <= maxY { visit(i) }
    }
    public func searchLonLat(minLon: Double, minLat: Double, maxLon: Double, maxLat: Double, _ visit: (Int) -> Void) {
        if minLon <= maxLon { search(minX: minLon, minY: minLat, maxX: maxLon, maxY: maxLat, visit); return }
        search(minX: minLon, minY: minLat, maxX: 180, maxY: maxLat, visit)
        search(minX: -180, minY: minLat, maxX: maxLon, maxY: maxLat, visit)
    }
    public func within<M: SpatialMetric>(_ metric: M, radius: Double, _ visit: (Int, Double) -> Void) {
        for i in xs.indices { let d = metric.distance(x: xs[i], y: ys[i]); if d <= radius { visit(i, d) } }
    }
    public func count<M: SpatialMetric>(_ metric: M, radius: Double) -> Int {
        var n = 0; within(metric, radius: radius) { _, _ in n += 1 }; return n
    }
    public func nearest<M: SpatialMetric>(_ metric: M, k: Int, maxDistance: Double = .infinity,
                                          where accept: ((Int) -> Bool)? = nil) -> [(item: Int, distance: Double)] {
        var all: [(item: Int, distance: Double)] = []
        within(metric, radius: maxDistance) { i, d in if accept?(i) ?? true { all.append((i, d)) } }
        all.sort { ($0.distance, $0.item) < ($1.distance, $1.item) }
        return Array(all.prefix(k))
    }
}

public struct HaversineMetric: SpatialMetric {
    let lat: Double, lon: Double
    public init(lat: Double, lon: Double) { self.lat = lat; self.lon = lon }
    public func distance(x: Double, y: Double) -> Double { Haversine.distance(lat1: lat, lon1: lon, lat2: y, lon2: x) }
    public func lowerBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double { 0 }
    public func upperBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double { .infinity }
}

public struct PlanarMetric: SpatialMetric {
    let x: Double, y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    public func distance(x: Double, y: Double) -> Double { ((x - self.x) * (x - self.x) + (y - self.y) * (y - self.y)).squareRoot() }
    public func lowerBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double { 0 }
    public func upperBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double { .infinity }
}

public struct GeodesicMetric: SpatialMetric {
    let lat: Double, lon: Double
    public init(lat: Double, lon: Double) { self.lat = lat; self.lon = lon }
    public func distance(x: Double, y: Double) -> Double {
        var g = geod_geodesic(); geod_init(&g, 6378137, 1 / 298.257223563)
        var s = 0.0, a1 = 0.0, a2 = 0.0
        geod_inverse(&g, lat, lon, y, x, &s, &a1, &a2)
        return s
    }
    public func lowerBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double { 0 }
    public func upperBound(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double { .infinity }
}

public struct ProjectedCRS: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public init?(_ name: String) { self.name = name }
    public var description: String { name }
    /// The concrete CRS for a query point (resolves `utm` to a zone).
    public func resolved(lat: Double, lon: Double) -> String {
        guard name.lowercased() == "utm" else { return name }
        let zone = min(60, Int((lon + 180) / 6) + 1)
        return "EPSG:\(lat >= 0 ? 32600 + zone : 32700 + zone)"
    }
}

public enum DistanceModel: Sendable, Hashable, CustomStringConvertible {
    case haversine, geodesic, projected(ProjectedCRS)
    public init?(parsing s: String) {
        switch s {
        case "haversine": self = .haversine
        case "geodesic": self = .geodesic
        case "projected": self = .projected(ProjectedCRS("EPSG:5179")!)
        default:
            guard s.hasPrefix("projected:"), let c = ProjectedCRS(String(s.dropFirst(10))) else { return nil }
            self = .projected(c)
        }
    }
    public var description: String {
        switch self { case .haversine: "haversine"; case .geodesic: "geodesic"; case .projected(let c): "projected:\(c)" }
    }
}

public struct Projection: @unchecked Sendable {
    let pj: OpaquePointer
    public init(crs: String) throws {
        guard let raw = proj_create_crs_to_crs(nil, "EPSG:4326", crs, nil),
              let norm = proj_normalize_for_visualization(nil, raw) else { throw QueryError("unknown CRS \(crs)") }
        proj_destroy(raw); pj = norm
    }
    public func forward(lats: [Double], lons: [Double]) -> (xs: [Double], ys: [Double]) {
        var xs = lons, ys = lats
        xs.withUnsafeMutableBufferPointer { x in ys.withUnsafeMutableBufferPointer { y in
            _ = proj_trans_generic(pj, PJ_FWD, x.baseAddress, 8, x.count, y.baseAddress, 8, y.count, nil, 0, 0, nil, 0, 0)
        } }
        return (xs, ys)
    }
}

public enum KoreanCollation {
    public static func ranks(of titles: [String]) -> [UInt32] {
        let order = titles.indices.sorted { Array(titles[$0].unicodeScalars.map(\.value)).lexicographicallyPrecedes(titles[$1].unicodeScalars.map(\.value)) }
        var ranks = [UInt32](repeating: 0, count: titles.count)
        var r: UInt32 = 0
        for (n, i) in order.enumerated() {
            if n > 0 && titles[order[n - 1]] != titles[i] { r += 1 }
            ranks[i] = r
        }
        return ranks
    }
}

public struct KeywordMatcher: Sendable {
    let k: String
    public init(_ keyword: String) { k = keyword.lowercased() }
    public func matches(_ title: String) -> Bool { title.lowercased().contains(k) }
}
