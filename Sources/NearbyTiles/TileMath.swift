import Foundation

/// A tile of the Web Mercator (EPSG:3857) pyramid, XYZ scheme: `x` from the antimeridian eastwards, `y`
/// from the north (latitude 85.0511°) southwards, each in 0..<2^z.
public struct TileID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var z: Int
    public var x: Int
    public var y: Int

    /// The deepest zoom served: 2^24 tiles a side, a tile some 2.4 m wide at the equator.
    public static let maxZoom = 24

    public init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    /// Nil unless 0 ≤ z ≤ `maxZoom` and x, y are in 0..<2^z.
    public init?(validZ z: Int, x: Int, y: Int) {
        guard (0...Self.maxZoom).contains(z), (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y) else {
            return nil
        }
        self.init(z: z, x: x, y: y)
    }

    public var description: String { "\(z)/\(x)/\(y)" }

    public static func < (a: TileID, b: TileID) -> Bool { (a.z, a.x, a.y) < (b.z, b.x, b.y) }

    /// Tiles a side at this zoom.
    public var size: Int { 1 << z }

    /// The row in MBTiles' TMS scheme (y from the south).
    public var tmsY: Int { size - 1 - y }

    /// The four tiles under this one.
    public var children: [TileID] {
        [(0, 0), (1, 0), (0, 1), (1, 1)].map { TileID(z: z + 1, x: 2 * x + $0.0, y: 2 * y + $0.1) }
    }

    /// The tile's box in degrees: west and east longitude, south and north latitude.
    public var bounds: (west: Double, south: Double, east: Double, north: Double) {
        let n = Double(size)
        return (
            TileMath.longitude(worldX: Double(x) / n), TileMath.latitude(worldY: Double(y + 1) / n),
            TileMath.longitude(worldX: Double(x + 1) / n), TileMath.latitude(worldY: Double(y) / n)
        )
    }
}

/// Web Mercator in "world" units: x and y in 0…1 over the whole square map, y down from the north.
public enum TileMath {
    /// The latitude whose Mercator y is ±π: the square map's north and south edges.
    public static let maxLatitude = 85.051_128_779_806_59

    /// Longitude wrapped into -180…180 (180 stays 180: the east edge of the last column).
    public static func wrapped(_ lon: Double) -> Double {
        lon >= -180 && lon <= 180 ? lon : lon - 360 * ((lon + 180) / 360).rounded(.down)
    }

    @inline(__always) public static func worldX(lon: Double) -> Double { (wrapped(lon) + 180) / 360 }

    /// Latitudes beyond ±`maxLatitude` are clamped to the map's edges.
    @inline(__always) public static func worldY(lat: Double) -> Double {
        let clamped = min(max(lat, -maxLatitude), maxLatitude)
        let s = sin(clamped * .pi / 180)
        return 0.5 - log((1 + s) / (1 - s)) / (4 * .pi)
    }

    @inline(__always) public static func longitude(worldX: Double) -> Double { worldX * 360 - 180 }

    @inline(__always) public static func latitude(worldY: Double) -> Double {
        atan(sinh(.pi * (1 - 2 * worldY))) * 180 / .pi
    }

    /// The tile at `z` holding the point; the map's east and south edges belong to the last column and
    /// row, longitudes wrap.
    public static func tile(lon: Double, lat: Double, z: Int) -> TileID {
        let n = 1 << z
        let x = min(n - 1, max(0, Int((worldX(lon: lon) * Double(n)).rounded(.down))))
        let y = min(n - 1, max(0, Int((worldY(lat: lat) * Double(n)).rounded(.down))))
        return TileID(z: z, x: x, y: y)
    }

    /// The tiles at `z` that a box (degrees; west ≤ east, no antimeridian crossing) touches, as
    /// column and row ranges.
    public static func tiles(west: Double, south: Double, east: Double, north: Double, z: Int) -> (
        x: ClosedRange<Int>, y: ClosedRange<Int>
    ) {
        let a = tile(lon: west, lat: north, z: z)
        let b = tile(lon: east, lat: south, z: z)
        return (a.x...max(a.x, b.x), a.y...max(a.y, b.y))
    }
}

/// A tile's own pixel space: `extent` units a side, (0, 0) at the north-west corner.
public struct TileProjection: Sendable {
    public let tile: TileID
    public let extent: Int
    private let scale: Double
    private let originX: Double
    private let originY: Double

    public init(tile: TileID, extent: Int = VectorTile.defaultExtent) {
        self.tile = tile
        self.extent = extent
        scale = Double(tile.size) * Double(extent)
        originX = Double(tile.x) * Double(extent)
        originY = Double(tile.y) * Double(extent)
    }

    /// The point in tile pixels, unrounded.
    @inline(__always) public func pixel(lon: Double, lat: Double) -> SIMD2<Double> {
        SIMD2(TileMath.worldX(lon: lon) * scale - originX, TileMath.worldY(lat: lat) * scale - originY)
    }

    /// A point in world units (`TileMath.worldX/Y`) in tile pixels, unrounded.
    @inline(__always) public func pixel(world p: SIMD2<Double>) -> SIMD2<Double> {
        SIMD2(p.x * scale - originX, p.y * scale - originY)
    }
}
