import ArgumentParser
import Foundation
import NearbyKit

struct ClustersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clusters",
        abstract: "Cluster the places a query matches at a zoom, as supercluster does; a cluster's children or leaves.",
        discussion: """
            Builds supercluster's hierarchy (radius --radius-px pixels of a tile --extent pixels wide, \
            levels 0 to --max-zoom + 1) over every place the filters match, taken in id order, and \
            writes the clusters and places alone at --zoom inside --bbox (the viewport, not a filter) \
            as a GeoJSON FeatureCollection in supercluster's shape, or JSON lines. A cluster id holds \
            for the same filters, options and cache: --children ID and --leaves ID take them again.

            Examples:
              nearby clusters --zoom 7
              nearby clusters --zoom 12 --bbox 126.9,37.5,127.1,37.6 --category 39
              nearby clusters --children 123456 --category 39
              nearby clusters --leaves 123456 --category 39 --limit 0
            """)

    @OptionGroup var options: QueryOptions
    @OptionGroup var cache: CacheOptions

    @Option(help: "The zoom whose clusters to write (0…25).") var zoom: String?
    @Option(help: ArgumentHelp("Write the children of this cluster.", valueName: "id")) var children: String?
    @Option(
        help: ArgumentHelp("Write the places of this cluster (--limit, default 10, 0: all; --offset).", valueName: "id")
    )
    var leaves: String?
    @Option(help: "Leaves skipped first (with --leaves).") var offset: String?
    @Option(name: .customLong("radius-px"), help: "Cluster radius in pixels (default 40).") var radiusPx: String?
    @Option(help: "Tile extent in pixels (default 512).") var extent: String?
    @Option(name: .customLong("min-points"), help: "Points a cluster needs at least (default 2).") var minPoints:
        String?
    @Option(name: .customLong("max-zoom"), help: "Highest zoom that clusters (default 16).") var maxZoom: String?
    @Option(help: "snapshot (default), memory or sqlite.") var engine: EngineKind?
    @Option(help: "geojson (default) or jsonl.") var format: ClusterFormat = .geojson

    func validate() throws {
        let asked = [zoom, children, leaves].compactMap { $0 }.count
        if asked != 1 { throw ValidationError("give one of --zoom, --children ID or --leaves ID") }
        if engine == .postgis { throw ValidationError("clusters read a cache: --engine snapshot, memory or sqlite") }
        if offset != nil && leaves == nil { throw ValidationError("--offset pages --leaves") }
    }

    func run() throws {
        var pairs = options.parameters
        func add(_ name: String, _ value: String?) { if let value { pairs.append((name, value)) } }
        add("zoom", zoom)
        add("offset", offset)
        add("radius-px", radiusPx)
        add("extent", extent)
        add("min-points", minPoints)
        add("max-zoom", maxZoom)
        if options.limit != nil && leaves == nil { throw UsageError("--limit pages --leaves") }
        var request: ClusterRequest
        do { request = try ClusterRequest.parse(pairs, areas: RegionAreas.shared) } catch { throw UsageError(error) }
        let id = try (children ?? leaves).map { text in
            guard let v = DecimalNumber.integer(text), v >= 0 else {
                throw UsageError("--\(children != nil ? "children" : "leaves"): \(text) is not a cluster id")
            }
            return v
        }
        let placeCache = try cache.open(readOnly: true)
        // Personal conditions (`--bookmarked`, `--min-rating`, …) read the user's data from the cache.
        try PersonalLayer.attach(&request.query, from: placeCache)
        // The hierarchy of every place or of one content type is kept beside the cache (`ClusterFile`),
        // stamped with the cache state read before the engine reads the places.
        let kept = try ClusterFile.path(ofCache: placeCache.path, for: request).map { path in
            ClusterFile.Location(
                path: path,
                stamp: IndexSnapshot.Stamp(
                    identity: try placeCache.identity(), generation: try placeCache.generation()),
                key: request.hierarchyKey)
        }
        let report: @Sendable (String) -> Void = { StandardError.write("nearby clusters: \($0)") }
        let queryEngine = try (engine ?? .snapshot).open(placeCache, report: report)
        let clusters: PlaceClusters
        do {
            // The mapped snapshot's table answers every place or one content type without a query
            // (`PlaceClusters(table:request:)`); a damaged one is rebuilt through the snapshot engine.
            if let mapped = (queryEngine as? SnapshotEngine)?.current as? MemoryEngine {
                do {
                    clusters = try PlaceClusters(mapped, request, kept: kept, report: report)
                } catch is IndexSnapshot.Problem {
                    clusters = try PlaceClusters(queryEngine, request, kept: kept, report: report)
                }
            } else {
                clusters = try PlaceClusters(queryEngine, request, kept: kept, report: report)
            }
        } catch let e as RequestError { throw UsageError(e) }
        let items: [ClusterItem]
        if let zoom = request.zoom {
            items = clusters.clusters(request, zoom: zoom)
        } else if children != nil, let id {
            items = try clusters.index.children(of: id)
        } else {
            items = try clusters.index.leaves(of: id!, limit: request.limit, offset: request.offset)
        }
        let places = try clusters.rows(of: items).withRecords { ids in
            try ids.compactMap { try placeCache.place(id: $0) }
        }
        var out = ClusterWriter(format: format)
        try out.write(items, places: places, index: clusters.index)
        try out.finish()
    }
}

extension ClusterFormat: ExpressibleByArgument {}
