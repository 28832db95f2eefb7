import Foundation
import NearbyRegions
import NearbyTestSupport
import NearbyTiles
import Testing

/// The real boundaries, loaded once per test process.
enum SharedRegions {
    static let layer = Result { RegionsLayer(index: try RegionIndex(contentsOf: RepositoryData.regionsPath())) }
}

@Suite struct RegionsLayerTests {
    @Test func lowZoomsHoldTheSeventeenSido() throws {
        let regions = try SharedRegions.layer.get()
        let tile = try DecodedTile(regions.encoded(TileID(z: 0, x: 0, y: 0)))
        let layer = try #require(tile.layer("regions"))
        #expect(layer.features.count == 17)
        let names = Set(layer.features.compactMap { $0.properties["name"]?.description })
        #expect(names.contains("서울특별시") && names.contains("제주특별자치도"))
        #expect(layer.features.allSatisfy { $0.properties["level"] == .string("sido") && $0.type == 3 })
        #expect(layer.features.allSatisfy { $0.id == UInt64($0.properties["code"]!.description) })
    }

    @Test func sigunguFromZoomEightWoundAndInsideTheBuffer() throws {
        let regions = try SharedRegions.layer.get()
        let seoul = TileMath.tile(lon: 126.978, lat: 37.5665, z: 10)
        let layer = try #require(try DecodedTile(regions.encoded(seoul)).layer("regions"))
        let codes = Set(layer.features.compactMap { $0.properties["code"]?.description })
        #expect(codes.contains("11110") && codes.contains("11140"))  // 종로구, 중구
        #expect(!codes.contains("11") && !codes.contains("41110"))  // no 시도, no city split into 구
        #expect(layer.features.allSatisfy { $0.properties["level"] == .string("sigungu") })
        for feature in layer.features {
            var shells = 0
            for ring in feature.parts {
                #expect(ring.count >= 3)
                #expect(ring.allSatisfy { $0.x >= -64 && $0.x <= 4160 && $0.y >= -64 && $0.y <= 4160 })
                let area = DecodedTile.doubleArea(ring)
                #expect(area != 0)
                if area > 0 { shells += 1 }
            }
            #expect(shells >= 1 && DecodedTile.doubleArea(feature.parts[0]) > 0, "\(feature.properties)")
        }
    }

    @Test func theSeaAndAbroadHoldNothing() throws {
        let regions = try SharedRegions.layer.get()
        #expect(regions.encoded(TileID(z: 8, x: 0, y: 0)).isEmpty)
        #expect(regions.encoded(TileMath.tile(lon: 139.69, lat: 35.68, z: 9)).isEmpty)  // Tokyo
        // Cached: the same bytes again.
        let t = TileMath.tile(lon: 129.07, lat: 35.18, z: 9)  // Busan
        #expect(!regions.encoded(t).isEmpty && regions.encoded(t) == regions.encoded(t))
    }

    @Test func simplificationShrinksLowZooms() throws {
        let regions = try SharedRegions.layer.get()
        let z5 = TileMath.tile(lon: 127.5, lat: 36.5, z: 5)
        let z12 = TileMath.tile(lon: 126.978, lat: 37.5665, z: 12)
        let low = regions.encoded(z5).count
        #expect(low > 1_000 && low < 400_000, "\(low) bytes at z5")
        #expect(!regions.encoded(z12).isEmpty)
    }
}
