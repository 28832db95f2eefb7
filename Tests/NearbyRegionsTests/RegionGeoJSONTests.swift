import Foundation
import NearbyCore
import Testing

@testable import NearbyRegions

/// GeoJSON polygons: valid JSON, closed rings, and the same inside/outside as the index.
@Suite struct RegionGeoJSONTests {
    /// Polygons of a Feature's MultiPolygon as (lon, lat) rings.
    func polygons(_ text: String) throws -> (properties: [String: Any], polygons: [[[SIMD2<Double>]]]) {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "Feature")
        let geometry = try #require(object["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "MultiPolygon")
        let coordinates = try #require(geometry["coordinates"] as? [[[[Double]]]])
        let polygons = coordinates.map { $0.map { $0.map { SIMD2($0[0], $0[1]) } } }
        for ring in polygons.joined() {
            #expect(ring.count >= 4 && ring.first == ring.last)
        }
        return (try #require(object["properties"] as? [String: Any]), polygons)
    }

    func evenOdd(_ polygons: [[[SIMD2<Double>]]], lat: Double, lon: Double) -> Bool {
        var odd = false
        for ring in polygons.joined() {
            for i in 0..<(ring.count - 1) {
                let a = ring[i]
                let b = ring[i + 1]
                if (a.y > lat) != (b.y > lat), lon < a.x + (lat - a.y) * (b.x - a.x) / (b.y - a.y) { odd.toggle() }
            }
        }
        return odd
    }

    @Test(arguments: ["11110", "50", "11110119", "47940"])
    func polygonMatchesMembership(code: String) throws {
        let index = try SharedIndex.get()
        let region = try SharedIndex.region(code)
        let (properties, polygons) = try polygons(index.geoJSON(region))
        #expect(properties["code"] as? String == region.code)
        #expect(properties["name"] as? String == region.name)
        #expect(properties["level"] as? String == "\(region.level)")
        if region.level <= .sigungu {
            // Dissolved: no inner border is left, i.e. no edge is walked both ways.
            var edges = Set<[Double]>()
            for ring in polygons.joined() {
                for i in 0..<(ring.count - 1) { edges.insert([ring[i].x, ring[i].y, ring[i + 1].x, ring[i + 1].y]) }
            }
            #expect(!edges.contains { edges.contains([$0[2], $0[3], $0[0], $0[1]]) })
        }
        let box = index.boundingBox(region)
        let faceRings = index.shapeFaces(region).map { index.rings(face: $0).flatMap { $0 } }
        var rng = SystemRandomNumberGenerator()
        var inside = 0
        var disagree = 0
        for _ in 0..<1500 {
            let lat = Double.random(in: box.minLat...box.maxLat, using: &rng)
            let lon = Double.random(in: box.minLon...box.maxLon, using: &rng)
            // Dissolving drops only edges walked both ways, so it keeps the even-odd answer of all
            // the region's own rings together (brute force over its faces).
            let member = evenOdd([Array(faceRings.joined())], lat: lat, lon: lon)
            if evenOdd(polygons, lat: lat, lon: lon) != member { disagree += 1 }
            if member { inside += 1 }
        }
        #expect(inside > 20)
        #expect(disagree == 0)
    }
}
