import Foundation
import NearbyTiles
import Testing

@Suite struct TileMathTests {
    @Test func theWorldTileCoversTheSquareMap() {
        let b = TileID(z: 0, x: 0, y: 0).bounds
        #expect(b.west == -180 && b.east == 180)
        #expect(abs(b.north - TileMath.maxLatitude) < 1e-9 && abs(b.south + TileMath.maxLatitude) < 1e-9)
        #expect(abs(TileMath.worldY(lat: 0) - 0.5) < 1e-15)
        #expect(abs(TileMath.worldY(lat: 85.0511287798066)) < 1e-12)
        #expect(abs(TileMath.worldY(lat: -85.0511287798066) - 1) < 1e-12)
    }

    @Test func latitudesBeyondTheMapAreClampedToItsEdges() {
        #expect(TileMath.worldY(lat: 89.9) == TileMath.worldY(lat: TileMath.maxLatitude))
        #expect(TileMath.worldY(lat: -90) == TileMath.worldY(lat: -TileMath.maxLatitude))
        for z in [0, 1, 7, 16] {
            #expect(TileMath.tile(lon: 0, lat: 90, z: z).y == 0)
            #expect(TileMath.tile(lon: 0, lat: -90, z: z).y == (1 << z) - 1)
            #expect(TileMath.tile(lon: 0, lat: 85.0511, z: z).y == 0)
            #expect(TileMath.tile(lon: 0, lat: -85.0511, z: z).y == (1 << z) - 1)
        }
    }

    @Test func longitudesWrapAndTheEastEdgeIsTheLastColumn() {
        for z in [0, 3, 12] {
            let n = 1 << z
            #expect(TileMath.tile(lon: -180, lat: 0, z: z).x == 0)
            #expect(TileMath.tile(lon: 180, lat: 0, z: z).x == n - 1)
            #expect(TileMath.tile(lon: 190, lat: 10, z: z) == TileMath.tile(lon: -170, lat: 10, z: z))
            #expect(TileMath.tile(lon: -190, lat: 10, z: z) == TileMath.tile(lon: 170, lat: 10, z: z))
            #expect(TileMath.tile(lon: 540, lat: 10, z: z).x == 0)  // 540° is -180°
        }
        #expect(TileMath.wrapped(180) == 180 && TileMath.wrapped(-180) == -180 && TileMath.wrapped(181) == -179)
    }

    @Test func knownTilesAndTheirBoxes() {
        // Seoul City Hall at zoom 10 and 14 (as any slippy-map calculator gives).
        #expect(TileMath.tile(lon: 126.978, lat: 37.5665, z: 10) == TileID(z: 10, x: 873, y: 396))
        #expect(TileMath.tile(lon: 126.978, lat: 37.5665, z: 14) == TileID(z: 14, x: 13970, y: 6344))
        for tile in [TileID(z: 10, x: 873, y: 396), TileID(z: 14, x: 13970, y: 6344), TileID(z: 1, x: 1, y: 0)] {
            let b = tile.bounds
            #expect(b.west < b.east && b.south < b.north)
            // The box's corners project to the tile's corners; a point inside to the tile itself.
            let p = TileProjection(tile: tile)
            let nw = p.pixel(lon: b.west, lat: b.north)
            let se = p.pixel(lon: b.east, lat: b.south)
            #expect(abs(nw.x) < 1e-6 && abs(nw.y) < 1e-6, "\(tile) \(nw)")
            #expect(abs(se.x - 4096) < 1e-6 && abs(se.y - 4096) < 1e-6, "\(tile) \(se)")
            #expect(TileMath.tile(lon: (b.west + b.east) / 2, lat: (b.south + b.north) / 2, z: tile.z) == tile)
        }
        #expect(TileID(z: 3, x: 2, y: 1).tmsY == 6)
        #expect(TileID(validZ: 2, x: 4, y: 0) == nil && TileID(validZ: -1, x: 0, y: 0) == nil)
        #expect(TileID(validZ: 25, x: 0, y: 0) == nil && TileID(validZ: 2, x: 3, y: 3) != nil)
    }

    @Test func aBoxCoversTheTilesItTouches() {
        let r = TileMath.tiles(west: 126, south: 33, east: 130, north: 38.7, z: 7)
        for x in r.x {
            for y in r.y {
                let b = TileID(z: 7, x: x, y: y).bounds
                #expect(b.west <= 130 && b.east >= 126 && b.south <= 38.7 && b.north >= 33)
            }
        }
        #expect(r.x == 108...110 && r.y == 49...51)
    }
}
