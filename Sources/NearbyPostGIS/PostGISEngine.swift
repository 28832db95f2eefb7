import NearbyCore
import NearbyStore

/// Answers queries from a PostgreSQL/PostGIS database (`nearby query --engine postgis --pg URL`),
/// exactly as `MemoryEngine` does.
///
/// Exact by construction: PostGIS only narrows. A radius query sends the SQLite engine's widened
/// boxes (`SQLiteEngine.searchBoxes`: they hold every true answer under every distance model) to the
/// GiST index with `&&`, and `ST_DWithin` on PostGIS's sphere with the same widened angle drops the
/// box's corners; a bbox query sends its box. The candidates then go through `MemoryEngine` in scan
/// mode, so distances, every filter, order, paging and cursors are the very code the other engines
/// run (a filter added to Core works here unchanged), and cursors are interchangeable with theirs
/// over the same places and generation. k nearest without a maximum distance searches growing
/// circles until one holds k matches, as `SQLiteEngine` does.
public final class PostGISEngine: QueryEngine {
    public let store: PostGISStore
    public let cursorKey: PageCursor.Key

    public init(store: PostGISStore) throws {
        self.store = store
        cursorKey = try store.cursorKey()
    }

    /// PostGIS's sphere for geography with use_spheroid = false: the mean radius of WGS84,
    /// (2a + b) / 3 (liblwgeom `spheroid_init`).
    static let postgisSphereRadius = 6_371_008.771_415

    public func run(_ q: PlaceQuery) throws -> QueryAnswer {
        if let problem = q.problem { throw problem }
        func answer(_ prefilter: PostGISStore.Prefilter?, searchRadius: Double = .infinity) throws -> QueryAnswer {
            let c = try store.candidates(prefilter)
            return try MemoryEngine(places: c.places, generation: c.generation, cursorKey: cursorKey, indexed: false)
                .run(q, searchRadius: searchRadius)
        }
        switch q.shape {
        case .all:
            if let box = q.filter.bbox ?? q.filter.region?.box {
                return try answer(PostGISStore.Prefilter(boxes: SQLiteEngine.split(box), within: nil))
            }
            return try answer(nil)
        case .radius(let r):
            return try answer(Self.prefilter(around: q.center!, radius: r))
        case .knn(let k, let maxDistance):
            // Every place within `radius` is a candidate, so k matches found there are the k nearest. The
            // circle is found for the first page (a cursor's row may lie beyond a smaller circle that
            // already holds k matches of another order), then the query runs on its candidates.
            var first = q
            first.cursor = nil
            var radius = min(maxDistance ?? .infinity, 2000)
            while true {
                let c = try store.candidates(Self.prefilter(around: q.center!, radius: radius))
                let engine = MemoryEngine(places: c.places, generation: c.generation, cursorKey: cursorKey, indexed: false)
                let a = try engine.run(first, searchRadius: radius)
                if a.total >= k || radius >= (maxDistance ?? .infinity) || radius > SQLiteEngine.halfCircumference {
                    return q.cursor == nil ? a : try engine.run(q, searchRadius: radius)
                }
                radius = min(maxDistance ?? .infinity, radius * 4)
            }
        }
    }

    /// The boxes around `c` and, unless they reach a pole, the circle on PostGIS's sphere whose angle
    /// is their half height: the spherical cap they were made from, so it too holds every true answer
    /// (widened by a millionth and a metre against rounding in PostGIS).
    static func prefilter(around c: Coordinate, radius: Double) -> PostGISStore.Prefilter {
        let boxes = SQLiteEngine.searchBoxes(around: c, radius: radius)
        let b = boxes[0]
        var angle: Double?
        if b.maxLat < 90 { angle = b.maxLat - c.lat } else if b.minLat > -90 { angle = c.lat - b.minLat }
        let within = angle.map { (center: c, metres: $0 * .pi / 180 * postgisSphereRadius * 1.000_001 + 1) }
        return PostGISStore.Prefilter(boxes: boxes, within: within)
    }
}
