import Foundation
import NearbyTestSupport
import Testing

@testable import NearbyCore

/// Points in towns and between them, over Korea, seeded: dense enough that every zoom clusters.
enum ClusterPoints {
    static func korea(_ n: Int, seed: UInt64) -> (lons: [Double], lats: [Double]) {
        var g = SeededGenerator(seed: seed)
        let towns = (0..<40).map { _ in
            (Double.random(in: 126.0...129.5, using: &g), Double.random(in: 34.0...38.5, using: &g))
        }
        var lons: [Double] = []
        var lats: [Double] = []
        for i in 0..<n {
            if i % 4 == 0 {
                lons.append(Double.random(in: 124.5...131, using: &g))
                lats.append(Double.random(in: 33...39, using: &g))
            } else {
                let t = towns[Int.random(in: 0..<towns.count, using: &g)]
                let spread = [0.002, 0.02, 0.2][Int.random(in: 0..<3, using: &g)]
                lons.append(t.0 + Double.random(in: -spread...spread, using: &g))
                lats.append(t.1 + Double.random(in: -spread...spread, using: &g))
            }
        }
        // Points in the same place, and on both sides of the antimeridian.
        lons += [127.0, 127.0, 127.0, 179.9999, -179.9999, 180, -180]
        lats += [37.5, 37.5, 37.5, 10, 10, -20, -20]
        return (lons, lats)
    }
}

@Suite struct ClusterIndexTests {
    static let points = ClusterPoints.korea(3_000, seed: 7)
    static let index = ClusterIndex(lons: points.lons, lats: points.lats)

    @Test func supercluster_sExampleGivesItsAnswer() throws {
        // pysupercluster's example: Paris alone, London and Greenwich one cluster at zoom 4.
        let index = ClusterIndex(lons: [2.3522, -0.1278, -0.0077], lats: [48.8566, 51.5074, 51.4826])
        let items = index.clusters(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90, zoom: 4)
        #expect(items.count == 2)
        let found = items.first { $0.isCluster }
        let cluster = try #require(found)
        #expect(cluster.count == 2)
        #expect(abs(cluster.lon - -0.06775) < 1e-9)
        #expect(abs(cluster.lat - 51.49500168658321) < 1e-9)
        #expect(try index.expansionZoom(of: cluster.id) == 8)
        #expect(Set(try index.leaves(of: cluster.id).map(\.id)) == [1, 2])
        #expect(items.first(where: { !$0.isCluster })?.id == 0)
        #expect(cluster.abbreviatedCount == "2")
    }

    @Test func everyPointIsInExactlyOneEntryOfEachLevel() throws {
        let n = Self.points.lons.count
        let index = Self.index
        for z in 0...17 {
            var seen = [Int](repeating: 0, count: n)
            for item in index.level(zoom: z) {
                if item.isCluster {
                    #expect(index.zoom(ofCluster: item.id)! >= z)
                    for leaf in try index.leaves(of: item.id, limit: 0) { seen[leaf.id] += 1 }
                } else {
                    seen[item.id] += 1
                }
            }
            #expect(seen.allSatisfy { $0 == 1 }, "zoom \(z)")
        }
    }

    @Test func childrenAndLeavesAddUpAndExpansionZoomIsDeeper() throws {
        let index = Self.index
        for z in [0, 3, 6, 9, 12, 16] {
            for item in index.level(zoom: z) where item.isCluster {
                let children = try index.children(of: item.id)
                #expect(children.reduce(0) { $0 + $1.count } == item.count)
                #expect(try index.leaves(of: item.id, limit: 0).count == item.count)
                let expansion = try index.expansionZoom(of: item.id)
                #expect(expansion > z)
                #expect(expansion <= index.options.maxZoom + 1)
                // A page of leaves is the same slice of all of them.
                let all = try index.leaves(of: item.id, limit: 0)
                #expect(try index.leaves(of: item.id, limit: 3, offset: 1) == Array(all.dropFirst(1).prefix(3)))
            }
        }
    }

    @Test func theWholeWorldIsTheWholeLevel() {
        let index = Self.index
        for z in [0, 2, 5, 8, 11, 14, 17, 25] {
            let level = Set(index.level(zoom: z))
            #expect(Set(index.clusters(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90, zoom: z)) == level)
            #expect(Set(index.clusters(minLon: -540, minLat: -90, maxLon: 540, maxLat: 90, zoom: z)) == level)
        }
    }

    @Test func aBoxFindsWhatLiesInItAndTheAntimeridianSplits() {
        let index = Self.index
        for z in [4, 10] {
            let level = index.level(zoom: z)
            let box = index.clusters(minLon: 126.5, minLat: 35, maxLon: 128, maxLat: 37.45, zoom: z)
            let inside = level.filter { $0.lon >= 126.5 && $0.lon <= 128 && $0.lat >= 35 && $0.lat <= 37.45 }
            #expect(Set(box).symmetricDifference(inside).isEmpty, "zoom \(z)")
            let crossing = index.clusters(minLon: 170, minLat: -30, maxLon: -170, maxLat: 30, zoom: z)
            let expected = level.filter { ($0.lon >= 170 || $0.lon <= -170) && abs($0.lat) <= 30 }
            #expect(Set(crossing).symmetricDifference(expected).isEmpty, "zoom \(z)")
            #expect(crossing.reduce(0) { $0 + $1.count } == 4)
        }
    }

    @Test func buildsAreDeterministicAndIdsDecode() throws {
        let again = ClusterIndex(lons: Self.points.lons, lats: Self.points.lats)
        for z in 0...17 { #expect(again.level(zoom: z) == Self.index.level(zoom: z)) }
        let n = Self.points.lons.count
        #expect(throws: ClusterNotFound.self) { try Self.index.children(of: 0) }
        #expect(throws: ClusterNotFound.self) { try Self.index.children(of: n + (1 << 30)) }
        #expect(throws: ClusterNotFound.self) { try Self.index.expansionZoom(of: Int.max) }
        #expect(throws: ClusterNotFound.self) { try Self.index.leaves(of: -5) }
    }

    /// The greedy pass with every neighbour found by comparing every pair: the grid's answers, entry for
    /// entry and bit for bit, at every zoom. Points on the equator one radius apart (radius 64 of an
    /// extent of 512 makes r = 2^−(z+3), and 22.5° is 1/16 of the world, so x is exact) test a neighbour
    /// at exactly r; towns,
    /// duplicates, the antimeridian and a longitude beyond ±180° the rest.
    @Test(arguments: [2, 3]) func theGridFindsWhatComparingEveryPairFinds(minPoints: Int) {
        let options = ClusterOptions(radius: 64, extent: 512, minPoints: minPoints, maxZoom: 14)
        var (lons, lats) = ClusterPoints.korea(700, seed: 11)
        for z in [6, 9, 12] {
            let step = 360 * pow(2, -Double(z + 3))
            for k in 0..<6 {
                lons.append(22.5 * Double(z - 5) + Double(k) * step)
                lats.append(0)
            }
        }
        lons += [250, 250, -1e300]
        lats += [1, 1, 1]
        let index = ClusterIndex(lons: lons, lats: lats, options: options)

        let n = lons.count
        var xs: [Double] = []
        var ys: [Double] = []
        var ids: [Int] = []
        var counts: [Int] = []
        for i in 0..<n {
            xs.append(ClusterIndex.x(lon: lons[i]))
            ys.append(ClusterIndex.y(lat: lats[i]))
            ids.append(i)
            counts.append(1)
        }
        for z in stride(from: options.maxZoom, through: 0, by: -1) {
            let r = options.radius / (options.extent * pow(2, Double(z)))
            var taken = [Bool](repeating: false, count: xs.count)
            var next: (xs: [Double], ys: [Double], ids: [Int], counts: [Int]) = ([], [], [], [])
            for i in xs.indices where !taken[i] {
                taken[i] = true
                let near = xs.indices.filter { j in
                    !taken[j] && (xs[j] - xs[i]) * (xs[j] - xs[i]) + (ys[j] - ys[i]) * (ys[j] - ys[i]) <= r * r
                }
                for j in near { taken[j] = true }
                let total = near.reduce(counts[i]) { $0 + counts[$1] }
                if !near.isEmpty && total >= minPoints {
                    var wx = xs[i] * Double(counts[i])
                    var wy = ys[i] * Double(counts[i])
                    for j in near {
                        wx += xs[j] * Double(counts[j])
                        wy += ys[j] * Double(counts[j])
                    }
                    next.xs.append(wx / Double(total))
                    next.ys.append(wy / Double(total))
                    next.ids.append((i << 5) + (z + 1) + n)
                    next.counts.append(total)
                } else {
                    for j in [i] + near {
                        next.xs.append(xs[j])
                        next.ys.append(ys[j])
                        next.ids.append(ids[j])
                        next.counts.append(counts[j])
                    }
                }
            }
            (xs, ys, ids, counts) = next
            let level = index.level(zoom: z)
            #expect(level.map(\.id) == ids, "zoom \(z)")
            #expect(level.map(\.count) == counts, "zoom \(z)")
            #expect(level.map(\.x) == xs && level.map(\.y) == ys, "zoom \(z)")
        }
        // The lattice met its neighbour exactly one radius away: at zoom 12, its six points make pairs
        // (with minPoints 3, pairs are too few and stay points).
        let lattice = index.level(zoom: 12).filter { abs($0.lat) < 1e-9 && (157.5...158).contains($0.lon) }
        #expect(lattice.count == (minPoints == 2 ? 3 : 6))
    }

    @Test func minPointsKeepsSmallGroupsAsPoints() {
        let index = ClusterIndex(lons: Self.points.lons, lats: Self.points.lats, options: ClusterOptions(minPoints: 5))
        for z in [0, 6, 12] {
            let level = index.level(zoom: z)
            #expect(level.allSatisfy { !$0.isCluster || $0.count >= 5 })
            #expect(level.reduce(0) { $0 + $1.count } == Self.points.lons.count)
        }
    }

    @Test func abbreviatedCountsAreSupercluster_s() {
        func item(_ count: Int) -> ClusterItem { ClusterItem(id: 0, count: count, lon: 0, lat: 0, x: 0, y: 0) }
        #expect(item(999).abbreviatedCount == "999")
        #expect(item(1000).abbreviatedCount == "1k")
        #expect(item(1234).abbreviatedCount == "1.2k")
        #expect(item(1250).abbreviatedCount == "1.3k")
        #expect(item(9999).abbreviatedCount == "10k")
        #expect(item(12_345).abbreviatedCount == "12k")
        #expect(item(1_500_000).abbreviatedCount == "1500k")
    }

    @Test func optionsNameTheirParameter() {
        #expect(ClusterOptions().problem == nil)
        #expect(ClusterOptions(radius: 0).problem?.parameter == "radius-px")
        #expect(ClusterOptions(extent: .nan).problem?.parameter == "extent")
        #expect(ClusterOptions(minPoints: 0).problem?.parameter == "min-points")
        #expect(ClusterOptions(maxZoom: 25).problem?.parameter == "max-zoom")
        #expect(ClusterOptions(minZoom: 5, maxZoom: 4).problem?.parameter == "min-zoom")
    }

    /// The same points and parameters through pysupercluster (supercluster's C++ port, installed for
    /// the user when missing): the same number of entries and the same point counts (as a sorted
    /// multiset) at each zoom. Fails when the peer cannot be installed or run.
    @Test func agreesWithPysupercluster() throws {
        let folder = try TempFolder()
        let (lons, lats) = Self.points
        var tsv = ""
        for i in lons.indices { tsv += "\(lons[i])\t\(lats[i])\n" }
        let path = try folder.write("points.tsv", tsv)
        let zooms = [0, 2, 4, 6, 8, 10, 12, 14, 16, 17]
        let script = RepositoryData.folder.deletingLastPathComponent().appendingPathComponent(
            "scripts/supercluster_peer.py"
        ).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "counts", path, zooms.map(String.init).joined(separator: ",")]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "the peer failed: \(errors)")
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        try #require(lines.count == zooms.count, "the peer answered \(lines.count) zooms: \(errors)")
        var clustered = 0
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let zoom = try #require(object["zoom"] as? Int)
            let theirs = try #require(object["counts"] as? [Int])
            let ours = Self.index.level(zoom: zoom).map(\.count).sorted()
            #expect(ours.count == theirs.count, "zoom \(zoom): entries")
            #expect(ours == theirs, "zoom \(zoom): point counts")
            clustered += ours.filter { $0 > 1 }.count
        }
        #expect(clustered > 100)
    }
}

/// Calls counted across the closures a kept hierarchy stores.
final class CallCount: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    private var heard: [String] = []
    func bump() { lock.withLock { n += 1 } }
    func hear(_ line: String) { lock.withLock { heard.append(line) } }
    var value: Int { lock.withLock { n } }
    var lines: [String] { lock.withLock { heard } }
}

/// The hierarchy kept on disk (`ClusterFile`): read back exactly, refused when stale or damaged,
/// built again when a level or point is found damaged as it is first read.
@Suite struct ClusterFileTests {
    static let points: (lons: [Double], lats: [Double]) = {
        var p = ClusterPoints.korea(2_000, seed: 11)
        p.lons.append(.nan)
        p.lats.append(37)
        return p
    }()
    static let index = ClusterIndex(lons: points.lons, lats: points.lats)
    static let stamp = IndexSnapshot.Stamp(identity: 42, generation: 7)

    func location(_ folder: TempFolder, generation: Int64 = 7, key: String = "|all") -> ClusterFile.Location {
        ClusterFile.Location(
            path: folder.file("cache.sqlite.nearby-clusters"),
            stamp: IndexSnapshot.Stamp(identity: 42, generation: generation),
            key: key)
    }

    /// The file mapped; `rebuilds` counts the builds its damage asked for (answered by `index`).
    func read(_ location: ClusterFile.Location, rebuilds: CallCount = CallCount()) throws(ClusterFile.Problem)
        -> ClusterIndex
    {
        try ClusterFile.read(location, options: ClusterOptions(), pointCount: Self.points.lons.count) { problem in
            rebuilds.hear("\(problem)")
            rebuilds.bump()
            return Self.index
        }
    }

    /// Every answer of `a` and `b` at every zoom: levels, viewports, children, leaves, expansion zooms.
    func expectSameAnswers(_ a: ClusterIndex, _ b: ClusterIndex) throws {
        #expect(a.levelCounts == b.levelCounts)
        #expect(a.byteCount == b.byteCount)
        for z in 0...18 {
            #expect(a.level(zoom: z) == b.level(zoom: z), "zoom \(z)")
            #expect(
                a.clusters(minLon: 126, minLat: 35, maxLon: 128, maxLat: 37.5, zoom: z)
                    == b.clusters(minLon: 126, minLat: 35, maxLon: 128, maxLat: 37.5, zoom: z), "zoom \(z)")
            for item in a.level(zoom: z) where item.isCluster {
                #expect(try a.children(of: item.id) == b.children(of: item.id))
                #expect(try a.leaves(of: item.id, limit: 0) == b.leaves(of: item.id, limit: 0))
                #expect(try a.expansionZoom(of: item.id) == b.expansionZoom(of: item.id))
            }
        }
    }

    @Test func aKeptHierarchyGivesTheSameAnswersAsABuild() throws {
        let folder = try TempFolder()
        try ClusterFile.write(Self.index, to: location(folder))
        let rebuilds = CallCount()
        try expectSameAnswers(try read(location(folder), rebuilds: rebuilds), Self.index)
        #expect(rebuilds.value == 0)
        // An empty hierarchy, and one with other options, round-trip too.
        let options = ClusterOptions(radius: 60, extent: 256, minPoints: 3, minZoom: 2, maxZoom: 12, nodeSize: 16)
        let other = ClusterIndex(lons: Self.points.lons, lats: Self.points.lats, options: options)
        try ClusterFile.write(other, to: location(folder))
        let back = try ClusterFile.read(location(folder), options: options, pointCount: Self.points.lons.count) { _ in
            rebuilds.bump()
            return other
        }
        try expectSameAnswers(back, other)
        // A mapped index writes the same file again.
        let copy = ClusterFile.Location(path: folder.file("copy"), stamp: Self.stamp, key: "|all")
        try ClusterFile.write(back, to: copy)
        try ClusterFile.write(other, to: location(folder))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: copy.path))
                == Data(contentsOf: URL(fileURLWithPath: location(folder).path)))
        let empty = ClusterIndex(lons: [], lats: [])
        try ClusterFile.write(empty, to: location(folder))
        let none = try ClusterFile.read(location(folder), options: ClusterOptions(), pointCount: 0) { _ in empty }
        #expect(none.levelCounts.count == 18)
        #expect(none.clusters(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90, zoom: 5).isEmpty)
        #expect(rebuilds.value == 0)
    }

    @Test func anotherStateOptionsOrFilterIsIgnoredAndReplaced() throws {
        let folder = try TempFolder()
        try ClusterFile.write(Self.index, to: location(folder, generation: 6))
        #expect(throws: ClusterFile.Problem.stale) { try read(location(folder)) }
        #expect(throws: ClusterFile.Problem.stale) { try read(location(folder, generation: 6, key: "category=39|")) }
        #expect(throws: ClusterFile.Problem.stale) {
            try ClusterFile.read(
                location(folder, generation: 6), options: ClusterOptions(radius: 41), pointCount: 2_008
            ) { _ in Self.index }
        }
        #expect(throws: ClusterFile.Problem.stale) {
            try ClusterFile.read(location(folder, generation: 6), options: ClusterOptions(), pointCount: 2_007) { _ in
                Self.index
            }
        }
        let built = CallCount()
        let heard = CallCount()
        let index = ClusterFile.index(
            at: location(folder), options: ClusterOptions(), pointCount: Self.points.lons.count,
            report: { heard.hear($0) }
        ) {
            built.bump()
            return Self.index
        }
        #expect(built.value == 1 && index === Self.index)
        #expect(heard.lines.count == 1 && heard.lines[0].contains("another cache state"))
        try expectSameAnswers(try read(location(folder)), Self.index)
        #expect(throws: ClusterFile.Problem.stale) { try read(location(folder, generation: 6)) }
        // Now current: read, not built.
        let now = ClusterFile.index(at: location(folder), options: ClusterOptions(), pointCount: Self.points.lons.count)
        {
            built.bump()
            return Self.index
        }
        try expectSameAnswers(now, Self.index)
        #expect(built.value == 1)
    }

    @Test func aDamagedHeaderOrTableIsRefusedAndRebuilt() throws {
        let folder = try TempFolder()
        let place = location(folder)
        try ClusterFile.write(Self.index, to: place)
        let good = try Data(contentsOf: URL(fileURLWithPath: place.path))
        // A flipped byte in the header, the table or `BSUM` (the file's end), and cuts.
        let positions = [3, 20, 90, 100, 200, 96 + 24 * 20 - 1, good.count - 9, good.count - 1]
        var damaged: [Data] = positions.map {
            var d = good
            d[$0] ^= 0x10
            return d
        }
        damaged += [good.prefix(good.count - 1), good.prefix(good.count / 2), good.prefix(50), Data()]
        for bytes in damaged {
            try bytes.write(to: URL(fileURLWithPath: place.path))
            #expect(throws: ClusterFile.Problem.self) { try read(place) }
            let built = CallCount()
            let index = ClusterFile.index(at: place, options: ClusterOptions(), pointCount: Self.points.lons.count) {
                built.bump()
                return Self.index
            }
            #expect(built.value == 1 && index === Self.index)
            #expect(try Data(contentsOf: URL(fileURLWithPath: place.path)) == good)
        }
    }

    /// Damage inside a level or the points is found when that part is first read, not before: the
    /// index then answers from a build (the same answers) and the file is written again.
    @Test func aDamagedLevelOrPointIsFoundWhenReadAndRebuilt() throws {
        let folder = try TempFolder()
        let place = location(folder)
        try ClusterFile.write(Self.index, to: place)
        let good = try Data(contentsOf: URL(fileURLWithPath: place.path))
        let levels = Self.index.levelCounts
        let bodyStart = 96 + 24 * (levels.count + 2) + 8
        // The start of each level, and of the points.
        var starts: [Int] = []
        var at = bodyStart
        for c in levels {
            starts.append(at)
            at += 32 * c
        }
        let pointsStart = at
        // Level 17 (the points alone) damaged: zoom 8 answers from the file, untouched; zoom 17 finds it.
        var bytes = good
        bytes[starts[17] + 40] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: place.path))
        let rebuilds = CallCount()
        let mapped = try read(place, rebuilds: rebuilds)
        #expect(mapped.level(zoom: 8) == Self.index.level(zoom: 8))
        #expect(rebuilds.value == 0)
        #expect(mapped.level(zoom: 17) == Self.index.level(zoom: 17))
        #expect(rebuilds.value == 1 && rebuilds.lines[0].contains("damaged"))
        try expectSameAnswers(mapped, Self.index)
        #expect(rebuilds.value == 1)
        // Each level's and the points' damage, through `index(at:)`: the same answers, the file replaced.
        for position in [starts[0], starts[5] + 3, starts[12] + 100, starts[16] + 7, pointsStart + 8 * 1_000 + 2] {
            var bytes = good
            bytes[position] ^= 0x20
            try bytes.write(to: URL(fileURLWithPath: place.path))
            let built = CallCount()
            let heard = CallCount()
            let index = ClusterFile.index(
                at: place, options: ClusterOptions(), pointCount: Self.points.lons.count, report: { heard.hear($0) }
            ) {
                built.bump()
                return Self.index
            }
            #expect(built.value == 0, "opened, not built, until the damage is read")
            try expectSameAnswers(index, Self.index)
            #expect(built.value == 1, "byte \(position)")
            #expect(heard.lines.contains { $0.contains("damaged") }, "\(heard.lines)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: place.path)) == good)
        }
    }

    /// A level whose blocks hold but whose slots or point ids are out of range (damage the checksums
    /// cannot see) is refused the same way, never read out of range.
    @Test func aLevelOutOfRangeIsRebuilt() throws {
        let folder = try TempFolder()
        let place = location(folder)
        try ClusterFile.write(Self.index, to: place)
        let counts = Self.index.levelCounts
        let levelAt = 96 + 24 * (counts.count + 2) + 8 + 32 * counts[0..<9].reduce(0, +)
        // Level 9's first slot names no position, resealed into the file.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: place.path)))
        let slotAt = levelAt + 28 * counts[9]
        bytes.replaceSubrange(slotAt..<slotAt + 4, with: [0xFF, 0xFF, 0xFF, 0x7F])
        ClusterFile.reseal(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: place.path))
        let rebuilds = CallCount()
        let damaged = try read(place, rebuilds: rebuilds)
        #expect(damaged.level(zoom: 9) == Self.index.level(zoom: 9))
        #expect(rebuilds.value == 1 && rebuilds.lines[0].contains("level 9"))
    }

    @Test func aFolderThatCannotBeWrittenStillAnswers() throws {
        let folder = try TempFolder()
        // A path under a plain file cannot be written, whoever runs the test.
        let blocked = ClusterFile.Location(
            path: try folder.write("plain", "x") + "/cache.nearby-clusters", stamp: Self.stamp, key: "|all")
        let heard = CallCount()
        let index = ClusterFile.index(
            at: blocked, options: ClusterOptions(), pointCount: Self.points.lons.count, report: { heard.hear($0) }
        ) { Self.index }
        #expect(index === Self.index)
        #expect(heard.lines.count == 1 && heard.lines[0].contains("cannot keep"))
        #expect(throws: (any Error).self) { try ClusterFile.write(Self.index, to: blocked) }
    }
}
