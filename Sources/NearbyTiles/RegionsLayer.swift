import Foundation
import NearbyRegions

/// The `regions` layer: Korea's 시도 (below `sigunguZoom`) or 시군구 (from it on; a city split into 일반구
/// is drawn as its 구) as polygons with `code`, `name` (Korean) and `level`, from the offline
/// boundaries (data/kr_regions.bin), so a map has a base map without the internet.
///
/// A region's polygons are made (dissolved from its towns) when a tile first needs them, and
/// simplified once per zoom (Douglas–Peucker in world units, `tolerancePixels` tile pixels at that
/// zoom, up to `simplifyUpToZoom`); each tile's are then clipped to the tile and its buffer. A tile's encoded layer is kept (it never changes while the process runs) up to
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
        /// Polygons → rings (closed) in world units; each polygon's box (minX, minY, maxX, maxY).
        var polygons: [[[SIMD2<Double>]]]
        var boxes: [SIMD4<Double>]
    }

    private let index: RegionIndex
    private let cacheBytes: Int
    /// The regions each level draws, with their boxes in world units: the only work done up front.
    private let drawn: [RegionLevel: [(region: Region, box: SIMD4<Double>)]]
    private let lock = NSLock()
    /// Each region's polygons in world units (key: region id), and simplified for a zoom
    /// (key: region id × 32 + zoom; nil when nothing is left at that zoom): made on first use.
    private var full: [Int: Shape] = [:]
    private var simplified: [Int: Shape?] = [:]
    private var cached: [TileID: [UInt8]] = [:]
    private var cacheOrder: [TileID] = []
    private var cacheOrderStart = 0
    private var cachedBytes = 0

    public init(index: RegionIndex, cacheBytes: Int = 64 << 20) {
        self.index = index
        self.cacheBytes = cacheBytes
        var drawn: [RegionLevel: [(region: Region, box: SIMD4<Double>)]] = [:]
        // The 시군구 drawn are those without parts: a city of 일반구 is drawn as its 구.
        for region in index.regions where (region.level == .sido || region.level == .sigungu) && region.parts.isEmpty {
            let b = index.boundingBox(region)
            let box = SIMD4(
                TileMath.worldX(lon: b.minLon), TileMath.worldY(lat: b.maxLat), TileMath.worldX(lon: b.maxLon),
                TileMath.worldY(lat: b.minLat))
            drawn[region.level, default: []].append((region, box))
        }
        self.drawn = drawn
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
        let level: RegionLevel = tile.z < Self.sigunguZoom ? .sido : .sigungu
        let zoom = min(tile.z, Self.simplifyUpToZoom)
        let n = Double(tile.size)
        let pad = Double(Self.buffer) / Double(extent)
        let box = SIMD4(
            (Double(tile.x) - pad) / n, (Double(tile.y) - pad) / n, (Double(tile.x + 1) + pad) / n,
            (Double(tile.y + 1) + pad) / n)
        let projection = TileProjection(tile: tile, extent: extent)
        var features: [TileFeature] = []
        for (region, regionBox) in drawn[level] ?? [] where Self.overlaps(regionBox, box) {
            guard let shape = shape(region, zoom: zoom) else { continue }
            var polygons: [[[SIMD2<Double>]]] = []
            for (polygon, polygonBox) in zip(shape.polygons, shape.boxes) where Self.overlaps(polygonBox, box) {
                polygons.append(polygon.map { ring in ring.map { projection.pixel(world: $0) } })
            }
            guard let geometry = TileClip.polygon(polygons, extent: extent, buffer: Self.buffer) else { continue }
            features.append(
                TileFeature(
                    id: UInt64(region.code),
                    properties: [
                        ("code", .string(region.code)), ("name", .string(region.name)),
                        ("level", .string(region.level.description)),
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

    /// The region's polygons simplified for `zoom`, made on first use (its polygons in world units
    /// first, dissolved from its towns); nil when simplification leaves nothing.
    private func shape(_ region: Region, zoom: Int) -> Shape? {
        let key = region.id * 32 + zoom
        lock.lock()
        if let done = simplified[key] {
            lock.unlock()
            return done
        }
        let known = full[region.id]
        lock.unlock()
        let whole =
            known
            ?? {
                let polygons = index.polygons(region).map { polygon in
                    polygon.map { ring in ring.map { SIMD2(TileMath.worldX(lon: $0.x), TileMath.worldY(lat: $0.y)) } }
                }
                return Shape(polygons: polygons, boxes: polygons.map { Self.box($0[0]) })
            }()
        let tolerance = Self.tolerancePixels / (Double(VectorTile.defaultExtent) * Double(1 << zoom))
        let polygons = whole.polygons.compactMap { polygon -> [[SIMD2<Double>]]? in
            let rings = polygon.map { TileClip.simplify($0, tolerance: tolerance) }
            guard rings[0].count >= 4 else { return nil }
            return [rings[0]] + rings.dropFirst().filter { $0.count >= 4 }
        }
        let shape = polygons.isEmpty ? nil : Shape(polygons: polygons, boxes: polygons.map { Self.box($0[0]) })
        lock.lock()
        defer { lock.unlock() }
        full[region.id] = whole
        simplified[key] = shape
        return shape
    }

    private static func box(_ ring: [SIMD2<Double>]) -> SIMD4<Double> {
        var b = SIMD4<Double>(.infinity, .infinity, -.infinity, -.infinity)
        for p in ring { b = SIMD4(min(b.x, p.x), min(b.y, p.y), max(b.z, p.x), max(b.w, p.y)) }
        return b
    }

}
