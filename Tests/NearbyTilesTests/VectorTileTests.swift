import Foundation
import NearbyCore
import NearbyTestSupport
import NearbyTiles
import Testing

@Suite struct VectorTileTests {
    @Test func aKnownPointEncodesAsTheSpecificationsExample() {
        // The specification's example: a point at (25, 17) is [9, 50, 34].
        let tile = VectorTile.encode([
            TileLayer(name: "l", features: [TileFeature(properties: [], geometry: .point(SIMD2(25, 17)))])
        ])
        let decoded = try? DecodedTile(tile)
        #expect(decoded?.layers.first?.features.first?.parts == [[SIMD2(25, 17)]])
        // …and the command integers themselves sit in the bytes: geometry field 4, length 3.
        #expect(tile.windowsContain([0x22, 3, 9, 50, 34]))
    }

    @Test func anEmptyLayerIsLeftOutAndAnEmptyTileIsNoBytes() {
        #expect(VectorTile.encode([TileLayer(name: "x", features: [])]).isEmpty)
    }

    @Test func keysAndValuesAreDeduplicated() throws {
        let features = (0..<50).map { i -> TileFeature in
            let kind = TileValue.string(i % 2 == 0 ? "a" : "b")
            let n = TileValue.int(Int64(i % 3 - 1))
            return TileFeature(
                id: UInt64(i), properties: [("kind", kind), ("n", n)], geometry: .point(SIMD2(Int32(i), Int32(i))))
        }
        let bytes = VectorTile.encode([TileLayer(name: "p", features: features)])
        let layer = try #require(try DecodedTile(bytes).layer("p"))
        #expect(layer.version == 2 && layer.extent == 4096 && layer.features.count == 50)
        // 2 keys + 5 values (a, b, -1, 0, 1) is what dedupes to; each string appears once in the bytes.
        #expect(bytes.occurrences(of: Array("kind".utf8)) == 1)
        let four: [String: DecodedTile.Value] = ["kind": .string("a"), "n": .uint(0)]
        let three: [String: DecodedTile.Value] = ["kind": .string("b"), "n": .int(-1)]
        #expect(layer.features[4].properties == four)
        #expect(layer.features[3].properties == three)
        #expect(layer.features.map { $0.id } == (0..<50).map { UInt64($0) })
    }

    /// Random points and polygons, encoded and decoded: the quantised input back.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func randomGeometryRoundTrips(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        func int(_ range: ClosedRange<Int32>) -> Int32 {
            range.lowerBound + Int32(rng.next() % UInt64(range.upperBound - range.lowerBound + 1))
        }
        var features: [TileFeature] = []
        var expected: [[[SIMD2<Int32>]]] = []
        for i in 0..<40 {
            if rng.next() % 2 == 0 {
                let p = SIMD2(int(-64...4160), int(-64...4160))
                features.append(
                    TileFeature(
                        id: rng.next() % 3 == 0 ? nil : rng.next(),
                        properties: [("i", .int(Int64(i))), ("t", .string("장소 \(i)")), ("d", .double(Double(i) / 3))],
                        geometry: .point(p)))
                expected.append([[p]])
            } else {
                // A star-shaped ring around a centre, with a square hole: projected as doubles, clipped.
                let cx = Double(int(0...4096))
                let cy = Double(int(0...4096))
                let n = Int(int(3...30))
                let ring = (0...n).map { k -> SIMD2<Double> in
                    let a = Double(k % n) / Double(n) * 2 * .pi
                    let r = 300 + Double(int(0...500))
                    return SIMD2(cx + r * cos(a), cy + r * sin(a))
                }
                let hole = [
                    SIMD2(cx - 50, cy - 50), SIMD2(cx + 50, cy - 50), SIMD2(cx + 50, cy + 50), SIMD2(cx - 50, cy + 50),
                ]
                guard let geometry = TileClip.polygon([[ring, hole]], extent: 4096, buffer: 64),
                    case .polygon(let rings) = geometry
                else { continue }
                features.append(TileFeature(properties: [("b", .bool(i % 2 == 0))], geometry: geometry))
                expected.append(rings)
                // Shell positive, holes negative (tile coordinates, y down); inside the buffered tile.
                for (k, r) in rings.enumerated() {
                    #expect((TileClip.doubleArea(r) > 0) == (k == 0))
                    #expect(r.allSatisfy { $0.x >= -64 && $0.x <= 4160 && $0.y >= -64 && $0.y <= 4160 })
                }
            }
        }
        let decoded = try DecodedTile(VectorTile.encode([TileLayer(name: "r", features: features)]))
        let layer = try #require(decoded.layer("r"))
        #expect(layer.features.map(\.parts) == expected)
        #expect(layer.features.map(\.id) == features.map(\.id))
        for (f, d) in zip(features, layer.features) {
            #expect(d.type == (f.geometry.isPoint ? 1 : 3))
            for (key, value) in f.properties {
                switch value {
                case .string(let s): #expect(d.properties[key] == .string(s))
                case .int(let v): #expect(d.properties[key] == (v >= 0 ? .uint(UInt64(v)) : .int(v)))
                case .double(let v): #expect(d.properties[key] == .double(v))
                case .bool(let v): #expect(d.properties[key] == .bool(v))
                }
            }
        }
    }

    @Test func gzipRoundTrips() throws {
        let bytes = Array((0..<100_000).map { UInt8(truncatingIfNeeded: $0 % 251) })
        let packed = try Gzip.compress(bytes)
        #expect(packed.prefix(2) == [0x1F, 0x8B])
        #expect(packed.count < bytes.count / 10)
        #expect(try Gzip.decompress(packed) == bytes)
        #expect(try Gzip.decompress(try Gzip.compress([])) == [])
    }
}

@Suite struct TileClipTests {
    @Test func aSquareLargerThanTheTileIsClippedToTheBuffer() throws {
        let ring = [
            SIMD2(-1000.0, -1000), SIMD2(5000.0, -1000), SIMD2(5000.0, 5000), SIMD2(-1000.0, 5000),
            SIMD2(-1000.0, -1000),
        ]
        let geometry = try #require(TileClip.polygon([[ring]], extent: 4096, buffer: 64))
        guard case .polygon(let rings) = geometry else {
            Issue.record("not a polygon")
            return
        }
        #expect(rings.count == 1)
        #expect(Set(rings[0]) == [SIMD2(-64, -64), SIMD2(4160, -64), SIMD2(4160, 4160), SIMD2(-64, 4160)])
        #expect(TileClip.doubleArea(rings[0]) > 0)
    }

    @Test func aPolygonOutsideTheBufferIsDroppedWithItsHoles() {
        let far = [SIMD2(5000.0, 5000), SIMD2(6000.0, 5000), SIMD2(6000.0, 6000), SIMD2(5000.0, 5000)]
        #expect(TileClip.polygon([[far, far]], extent: 4096, buffer: 64) == nil)
        // A sliver thinner than a pixel rounds to no area.
        let sliver = [SIMD2(10.0, 10), SIMD2(1000.0, 10.2), SIMD2(10.0, 10.4), SIMD2(10.0, 10)]
        #expect(TileClip.polygon([[sliver]], extent: 4096, buffer: 64) == nil)
    }

    @Test func counterClockwiseInputIsWoundAsTheSpecificationAsks() throws {
        // Counter-clockwise on screen (y down) = negative area: the shell is reversed, the hole too.
        let shell = [SIMD2(0.0, 0), SIMD2(0.0, 100), SIMD2(100.0, 100), SIMD2(100.0, 0), SIMD2(0.0, 0)]
        let hole = [SIMD2(10.0, 10), SIMD2(20.0, 10), SIMD2(20.0, 20), SIMD2(10.0, 20), SIMD2(10.0, 10)]
        guard case .polygon(let rings) = try #require(TileClip.polygon([[shell, hole]], extent: 4096, buffer: 64))
        else { return }
        #expect(TileClip.doubleArea(rings[0]) == 2 * 10_000 && TileClip.doubleArea(rings[1]) == -2 * 100)
    }

    @Test func douglasPeuckerKeepsEveryPointFartherThanTheTolerance() {
        var rng = SplitMix64(seed: 9)
        let ring =
            (0..<400).map { k -> SIMD2<Double> in
                let a = Double(k) / 400 * 2 * .pi
                let r = 1000 + Double(rng.next() % 100) / 200
                return SIMD2(r * cos(a), r * sin(a))
            } + [SIMD2(1000.0 + Double(0), 0)]
        var closed = ring
        closed[closed.count - 1] = closed[0]
        let simple = TileClip.simplify(closed, tolerance: 1)
        #expect(simple.count < closed.count / 2 && simple.count >= 4)
        #expect(simple.first == closed.first && simple.last == closed.last)
        // Every dropped point lies within the tolerance of the kept polyline.
        for p in closed {
            let d = zip(simple, simple.dropFirst()).map { a, b -> Double in
                let ab = b - a
                let t = max(0, min(1, ((p - a) * ab).sum() / (ab * ab).sum()))
                let q = a + t * ab
                return ((p - q) * (p - q)).sum().squareRoot()
            }.min()!
            #expect(d <= 1 + 1e-9)
        }
    }
}

extension TileGeometry {
    var isPoint: Bool {
        if case .point = self { return true }
        return false
    }
}

extension Array where Element == UInt8 {
    func windowsContain(_ needle: [UInt8]) -> Bool { occurrences(of: needle) > 0 }

    func occurrences(of needle: [UInt8]) -> Int {
        guard count >= needle.count else { return 0 }
        return (0...(count - needle.count)).filter { self[$0..<($0 + needle.count)].elementsEqual(needle) }.count
    }
}
