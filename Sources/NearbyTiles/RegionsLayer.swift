import Foundation
import NearbyRegions

/// The `regions` layer: Korea's 시도 (below `sigunguZoom`) or 시군구 (from it on; a city split into 일반구
/// is drawn as its 구) as polygons with `code`, `name` (Korean) and `level`, from the offline
/// boundaries (data/kr_regions.bin), so a map has a base map without the internet.
///
/// Each zoom's polygons are simplified once (Douglas–Peucker in world units, `tolerancePixels` tile
/// pixels at that zoom, up to `simplifyUpToZoom`), then each tile's are clipped to the tile and its
/// buffer. A tile's encoded layer is kept (it never changes while the process runs) up to
/// `cacheBytes`, the oldest dropped first. Safe to share across threads.
public final class RegionsLayer: @unchecked Sendable {
    public static let name = "regions"
    /// From this zoom on the layer holds 시군구, below it 시도.
    public static let sigunguZoom = 8
    /// Douglas–Peucker tolerance in tile pixels (at extent 4096).
    public static let tolerancePixels = 1.0
    /// Deeper zooms use this zoom's simplification (1 pixel is then 2.4 m at the equator, less than the
    /// boundaries' own 5 m).
    public static let simplifyUpToZoom = 12
    /// Pixels of buffer around the tile that polygons are clipped to.
    public static let buffer = 64

    private struct Shape {
        var code: String
        var name: String
        var level: RegionLevel
        /// Polygons → rings (closed) in world units; each polygon's box (minX, minY, maxX, maxY).
        var polygons: [[[SIMD2<Double>]]]
        var boxes: [SIMD4<Double>]
        var box: SIMD4<Double>
    }

    private let index: RegionIndex
    private let cacheBytes: Int
    private let lock = NSLock()
    /// Shapes per level and simplification zoom.
    private var shapes: [Int: [Shape]] = [:]
    private var cached: [TileID: [UInt8]] = [:]
    private var cacheOrder: [TileID] = []
    private var cacheOrderStart = 0
    private var cachedBytes = 0

    public init(index: RegionIndex, cacheBytes: Int = 64 << 20) {
        self.index = index
        self.cacheBytes = cacheBytes
    }

    /// The layer of `tile` as an encoded tile message (a `Tile` with this one layer; empty bytes when
    /// no region reaches the tile): tiles concatenate, so this goes before or after the other layers.
    public func encoded(_ tile: TileID) -> [UInt8] {
        lock.lock()
        if let bytes = cached[tile] {
            lock.unlock()
            return bytes
        }
        lock.unlock()
        let bytes = VectorTile.encode([layer(tile)])
        lock.lock()
        defer { lock.unlock() }
        if cached[tile] == nil {
            cached[tile] = bytes
            cacheOrder.append(tile)
            cachedBytes += bytes.count + 64
            while cachedBytes > cacheBytes, cacheOrderStart < cacheOrder.count {
                let old = cacheOrder[cacheOrderStart]
                cacheOrderStart += 1
                cachedBytes -= (cached.removeValue(forKey: old)?.count ?? 0) + 64
            }
            if cacheOrderStart > 4096 {
                cacheOrder.removeFirst(cacheOrderStart)
                cacheOrderStart = 0
            }
        }
        return bytes
    }

    /// The layer's features in `tile`.
    public func layer(_ tile: TileID, extent: Int = VectorTile.defaultExtent) -> TileLayer {
        let all = shapes(zoom: min(tile.z, Self.simplifyUpToZoom), level: tile.z < Self.sigunguZoom ? .sido : .sigungu)
        let n = Double(tile.size)
        let pad = Double(Self.buffer) / Double(extent)
        let box = SIMD4(
            (Double(tile.x) - pad) / n, (Double(tile.y) - pad) / n, (Double(tile.x + 1) + pad) / n,
            (Double(tile.y + 1) + pad) / n)
        let projection = TileProjection(tile: tile, extent: extent)
        var features: [TileFeature] = []
        for shape in all where Self.overlaps(shape.box, box) {
            var polygons: [[[SIMD2<Double>]]] = []
            for (polygon, polygonBox) in zip(shape.polygons, shape.boxes) where Self.overlaps(polygonBox, box) {
                polygons.append(polygon.map { ring in ring.map { projection.pixel(world: $0) } })
            }
            guard let geometry = TileClip.polygon(polygons, extent: extent, buffer: Self.buffer) else { continue }
            features.append(
                TileFeature(
                    id: UInt64(shape.code),
                    properties: [
                        ("code", .string(shape.code)), ("name", .string(shape.name)),
                        ("level", .string(shape.level.description)),
                    ], geometry: geometry))
        }
        return TileLayer(name: Self.name, features: features, extent: extent)
    }

    /// The box in degrees (west, south, east, north) of every boundary.
    public var bounds: (west: Double, south: Double, east: Double, north: Double) {
        let b = index.bounds
        return (b.minLon, b.minLat, b.maxLon, b.maxLat)
    }

    @inline(__always) private static func overlaps(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> Bool {
        a.x <= b.z && b.x <= a.z && a.y <= b.w && b.y <= a.w
    }

    /// The level's shapes simplified for `zoom`, made on first use (the level's unsimplified shapes
    /// first, then the zoom's).
    private func shapes(zoom: Int, level: RegionLevel) -> [Shape] {
        let key = level.rawValue * 100 + zoom
        let baseKey = level.rawValue * 100 + 99
        lock.lock()
        if let done = shapes[key] {
            lock.unlock()
            return done
        }
        let base = shapes[baseKey]
        lock.unlock()
        let full = base ?? Self.worldShapes(index, level: level)
        let tolerance = Self.tolerancePixels / (Double(VectorTile.defaultExtent) * Double(1 << zoom))
        let simplified = full.compactMap { shape -> Shape? in
            var s = shape
            s.polygons = shape.polygons.compactMap { polygon -> [[SIMD2<Double>]]? in
                let rings = polygon.map { TileClip.simplify($0, tolerance: tolerance) }
                guard rings[0].count >= 4 else { return nil }
                return [rings[0]] + rings.dropFirst().filter { $0.count >= 4 }
            }
            guard !s.polygons.isEmpty else { return nil }
            s.boxes = s.polygons.map { Self.box($0[0]) }
            s.box = Self.union(s.boxes)
            return s
        }
        lock.lock()
        defer { lock.unlock() }
        shapes[baseKey] = full
        shapes[key] = simplified
        return simplified
    }

    private static func worldShapes(_ index: RegionIndex, level: RegionLevel) -> [Shape] {
        // The 시군구 drawn are those without parts: a city of 일반구 is drawn as its 구.
        let regions = index.regions.filter { $0.level == level && $0.parts.isEmpty }
        return regions.map { region in
            let polygons = index.polygons(region).map { polygon in
                polygon.map { ring in ring.map { SIMD2(TileMath.worldX(lon: $0.x), TileMath.worldY(lat: $0.y)) } }
            }
            let boxes = polygons.map { box($0[0]) }
            return Shape(
                code: region.code, name: region.name, level: level, polygons: polygons, boxes: boxes, box: union(boxes))
        }
    }

    private static func box(_ ring: [SIMD2<Double>]) -> SIMD4<Double> {
        var b = SIMD4<Double>(.infinity, .infinity, -.infinity, -.infinity)
        for p in ring { b = SIMD4(min(b.x, p.x), min(b.y, p.y), max(b.z, p.x), max(b.w, p.y)) }
        return b
    }

    private static func union(_ boxes: [SIMD4<Double>]) -> SIMD4<Double> {
        boxes.reduce(SIMD4(.infinity, .infinity, -.infinity, -.infinity)) {
            SIMD4(min($0.x, $1.x), min($0.y, $1.y), max($0.z, $1.z), max($0.w, $1.w))
        }
    }
}
