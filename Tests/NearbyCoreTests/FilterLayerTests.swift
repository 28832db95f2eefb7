import Foundation
import NearbyTestSupport
import Testing

@testable import NearbyCore

/// Every filter condition through every layer of the core: one list of conditions and properties,
/// `isEmpty`, the request parser and its inverse, the cursor fingerprint, and the memory and snapshot
/// engines against the brute force. The store and PostGIS suites run the same examples on their
/// engines (`CacheSnapshotTests`, `SQLiteEngineTests`, `PostGISEngineTests`).
@Suite struct FilterLayerTests {
    static let places: [Place] = {
        var g = QuerySampler(seed: 2929)
        return g.places(1500)
    }()
    static let reference = QueryBruteForce(places)
    static let memory = MemoryEngine(places: places, generation: 1)
    static let snapshot: MemoryEngine = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nearby-filter-layers-\(getpid()).nearby-index"
        ).path
        let stamp = IndexSnapshot.Stamp(identity: 0xF1, generation: 1)
        try! IndexSnapshot.write(places, stamp: stamp, to: path)
        defer { unlink(path) }
        let byId = Dictionary(uniqueKeysWithValues: places.map { ($0.id, $0) })
        return try! IndexSnapshot.engine(path, wanted: stamp) { ids in ids.compactMap { byId[$0] } }
    }()

    /// The queries each condition is asked in: everywhere sorted by title, and around Seoul by distance.
    static func queries(_ c: PlaceFilter.Condition) -> [PlaceQuery] {
        let f = FilterExamples.filter(c)
        return [
            PlaceQuery(filter: f, order: PlaceOrder([SortKey(.title)]), limit: 0),
            PlaceQuery(center: Coordinate(lat: 37.57, lon: 126.98), shape: .radius(20_000), filter: f, limit: 30),
        ]
    }

    @Test func theConditionsAreThePropertiesOfTheFilter() {
        let properties = Mirror(reflecting: PlaceFilter()).children.compactMap(\.label)
        #expect(Set(properties) == Set(PlaceFilter.Condition.allCases.map(\.rawValue)))
        #expect(properties.count == PlaceFilter.Condition.allCases.count)
        #expect(PlaceFilter().isEmpty && PlaceFilter().conditions.isEmpty)
    }

    @Test(arguments: PlaceFilter.Condition.allCases)
    func eachExampleSetsItsConditionAlone(_ c: PlaceFilter.Condition) {
        let f = FilterExamples.filter(c)
        #expect(f.conditions == [c])
        #expect(!f.isEmpty, "isEmpty misses \(c)")
        let empty = Mirror(reflecting: PlaceFilter()).children.map { String(describing: $0.value) }
        let changed = zip(Mirror(reflecting: f).children, empty).filter { String(describing: $0.0.value) != $0.1 }.map(
            \.0.label)
        #expect(changed == [c.rawValue])
    }

    @Test(arguments: PlaceFilter.Condition.allCases)
    func theParserReadsWhatItWritesAndTheCursorCoversIt(_ c: PlaceFilter.Condition) throws {
        for q in Self.queries(c) {
            let rendered = QueryParameters.render(q)
            let parsed = try QueryParameters.parse(rendered, areas: FilterExamples.Areas())
            #expect(parsed.filter == q.filter, "\(c): \(rendered)")
            #expect(parsed.filter.conditions == [c])
            var unfiltered = q
            unfiltered.filter = PlaceFilter()
            #expect(
                PageCursor.fingerprint(of: q, generation: 1) != PageCursor.fingerprint(of: unfiltered, generation: 1),
                "the cursor fingerprint misses \(c)")
        }
    }

    @Test(arguments: PlaceFilter.Condition.allCases)
    func theEnginesAnswerAsTheBruteForce(_ c: PlaceFilter.Condition) throws {
        for q in Self.queries(c) {
            let expected = Self.reference.page(q)
            let everything = Self.reference.page(
                {
                    var u = q
                    u.filter = PlaceFilter()
                    return u
                }())
            // The example must be selective here, or a layer that ignores it would pass.
            #expect(
                expected.total! > 0 && expected.total! < everything.total!,
                "\(c): \(expected.total!) of \(everything.total!)")
            for (name, engine) in [("memory", Self.memory), ("snapshot", Self.snapshot)] {
                let a = try engine.run(q)
                #expect(
                    QueryBruteForce.Answer(total: a.total, ids: a.places.map(\.id), distances: a.distances) == expected,
                    "\(name) engine, \(c): \(q)")
            }
        }
    }
}

/// What the compiler cannot see when a filter is added: the random queries draw it, the query page
/// documents it, and a change of the snapshot's bytes comes with a new format version.
@Suite struct FilterLayerCompletenessTests {
    @Test func randomFiltersDrawEveryCondition() {
        var g = QuerySampler(seed: 31)
        var seen: Set<PlaceFilter.Condition> = []
        for _ in 0..<3_000 { seen.formUnion(g.filter().conditions) }
        // A region needs a resolver; FilterExamples and the region suites cover it.
        #expect(seen == Set(PlaceFilter.Condition.allCases).subtracting([.region]))
    }

    @Test func theQueryPageDocumentsEveryParameter() throws {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/query.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        let missing = QueryParameters.all.map(\.name).filter { !text.contains("--\($0)") }
        #expect(missing.isEmpty, "docs/query.md does not mention \(missing.map { "--" + $0 })")
    }

    /// The bytes of a snapshot of fixed places, pinned per format version: a change of the layout or
    /// of what a section means must come with a new `IndexSnapshot.formatVersion` (older files are then
    /// rebuilt, not misread). When this fails, bump the version if the meaning changed, then pin the
    /// new hash under it.
    @Test func theSnapshotsBytesChangeOnlyWithItsVersion() throws {
        var g = QuerySampler(seed: 404)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nearby-golden-\(getpid()).nearby-index"
        ).path
        defer { unlink(path) }
        try IndexSnapshot.write(g.places(500), stamp: IndexSnapshot.Stamp(identity: 1, generation: 1), to: path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        var h = Hasher.Deterministic()
        for b in bytes { h.add(b) }
        let pinned: [UInt32: UInt64] = [9: 4_878_297_873_194_766_258]
        #expect(
            pinned[IndexSnapshot.formatVersion] == h.value,
            "format \(IndexSnapshot.formatVersion): the snapshot's bytes hash to \(h.value)")
    }
}

extension Hasher {
    /// FNV-1a, 64 bits: the same value in every process (Swift's `Hasher` is seeded per process).
    struct Deterministic {
        private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
        mutating func add(_ byte: UInt8) { value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    }
}
