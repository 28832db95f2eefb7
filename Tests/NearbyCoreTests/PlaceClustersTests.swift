import Foundation
import NearbyTestSupport
import Testing

@testable import NearbyCore

/// `PlaceClusters` from a table without a query (every place in id order through `IDRW`, one content
/// type by its columns) against the hierarchy of the query's matches, and kept in a file.
@Suite struct PlaceClustersTests {
    static let places: [Place] = {
        var g = QuerySampler(seed: 32)
        return g.places(2_500)
    }()
    static let byId = Dictionary(uniqueKeysWithValues: places.map { ($0.id, $0) })
    static let stamp = IndexSnapshot.Stamp(identity: 0xC1, generation: 4)
    static let folder = try! TempFolder()
    static let mapped: MemoryEngine = {
        let path = folder.file("cache.sqlite.nearby-index")
        try! IndexSnapshot.write(places.shuffled(), stamp: stamp, to: path)
        return try! IndexSnapshot.engine(path, wanted: stamp) { ids in ids.compactMap { byId[$0] } }
    }()
    static let memory = MemoryEngine(places: places, generation: stamp.generation)

    static func request(category: Int? = nil) -> ClusterRequest {
        var query = PlaceQuery()
        if let category { query.filter.categories = [category] }
        return ClusterRequest(query: query)
    }

    /// The ids of the places of `items` (clusters left out), in order.
    static func ids(_ clusters: PlaceClusters, _ items: [ClusterItem]) throws -> [String] {
        try clusters.rows(of: items).withRecords { ids in ids.compactMap { byId[$0] } }.map(\.id)
    }

    /// The same levels at every zoom, and the same places behind every point.
    static func expectSame(_ a: PlaceClusters, _ b: PlaceClusters) throws {
        #expect(a.count == b.count)
        #expect(a.index.levelCounts == b.index.levelCounts)
        for z in 0...17 {
            let level = a.index.level(zoom: z)
            #expect(level == b.index.level(zoom: z), "zoom \(z)")
            #expect(try ids(a, level) == ids(b, level), "zoom \(z)")
        }
    }

    @Test func aTableGivesTheHierarchyOfTheQuery() throws {
        let counts = Dictionary(grouping: Self.places, by: \.category).mapValues(\.count)
        let category = counts.max { $0.value < $1.value }!.key
        for engine in [Self.mapped, Self.memory] {
            for request in [Self.request(), Self.request(category: category), Self.request(category: 4_242)] {
                let fromTable = try #require(try PlaceClusters(table: engine.table, request: request))
                let rows = try engine.run(request.query, records: false).rows
                let fromQuery = PlaceClusters(rows: rows, options: request.options)
                try Self.expectSame(fromTable, fromQuery)
                #expect(fromTable.count == request.query.filter.categories.map { counts[$0.first!] ?? 0 } ?? 2_500)
                // The engine's entry point takes the table's way.
                try Self.expectSame(try PlaceClusters(engine, request), fromQuery)
            }
            // A circle or a shape asks the query.
            var circle = Self.request()
            circle.query.center = Coordinate(lat: 37.5, lon: 127)
            #expect(try PlaceClusters(table: engine.table, request: circle) == nil)
        }
    }

    /// Every filter condition alone, with one content type, and random filters: the table's rows in id
    /// order (one pass, or a content type's stored run) give the hierarchy of the query's matches.
    @Test func aTableGivesTheHierarchyOfAnyFilter() throws {
        var filters = PlaceFilter.Condition.allCases.map { FilterExamples.filter($0) }
        for condition in PlaceFilter.Condition.allCases where condition != .categories {
            var f = FilterExamples.filter(condition)
            f.categories = [39]
            filters.append(f)
        }
        var sampler = QuerySampler(seed: 77)
        filters += (0..<40).map { _ in sampler.filter() }
        for engine in [Self.mapped, Self.memory] {
            for filter in filters {
                var request = Self.request()
                request.query.filter = filter
                let fromTable = try #require(try PlaceClusters(table: engine.table, request: request))
                let rows = try engine.run(request.query, records: false).rows
                let fromQuery = PlaceClusters(rows: rows, options: request.options)
                #expect(fromTable.count == rows.count, "\(filter)")
                try Self.expectSame(fromTable, fromQuery)
            }
        }
    }

    /// Kept beside the cache: built and written once, then mapped (no build); a file of another
    /// generation is built again and replaced; a damaged level is found when read and built again.
    @Test func theTableWayKeepsAndReadsTheFile() throws {
        let folder = try TempFolder()
        let request = Self.request()
        func location(_ generation: Int64) -> ClusterFile.Location {
            ClusterFile.Location(
                path: folder.file("cache.sqlite.nearby-clusters"),
                stamp: IndexSnapshot.Stamp(identity: 0xC1, generation: generation), key: request.hierarchyKey)
        }
        let reference = try #require(try PlaceClusters(table: Self.mapped.table, request: request))
        let heard = CallCount()
        let first = try #require(
            try PlaceClusters(table: Self.mapped.table, request: request, kept: location(3)) { heard.hear($0) })
        try Self.expectSame(first, reference)
        #expect(heard.lines.isEmpty)
        let older = try Data(contentsOf: URL(fileURLWithPath: location(3).path))
        // The same generation: mapped, nothing said.
        let again = try #require(
            try PlaceClusters(table: Self.mapped.table, request: request, kept: location(3)) { heard.hear($0) })
        try Self.expectSame(again, reference)
        #expect(heard.lines.isEmpty)
        // Another generation: built again, said so, replaced.
        let now = try #require(
            try PlaceClusters(table: Self.mapped.table, request: request, kept: location(4)) { heard.hear($0) })
        try Self.expectSame(now, reference)
        #expect(heard.lines.count == 1 && heard.lines[0].contains("another cache state"), "\(heard.lines)")
        let good = try Data(contentsOf: URL(fileURLWithPath: location(4).path))
        #expect(good != older)
        // A damaged level: opened, then found when read, built again and replaced.
        var bytes = good
        bytes[bytes.count / 3] ^= 0x04
        try bytes.write(to: URL(fileURLWithPath: location(4).path))
        let damaged = try #require(
            try PlaceClusters(table: Self.mapped.table, request: request, kept: location(4)) { heard.hear($0) })
        try Self.expectSame(damaged, reference)
        #expect(heard.lines.count == 2 && heard.lines[1].contains("damaged"), "\(heard.lines)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: location(4).path)) == good)
    }
}
