import Dispatch
import Foundation
import HTTPTypes
import Hummingbird
import NIOPosix
import NearbyKit

/// `/v1/clusters…`: supercluster's hierarchy over the places a filter matches (`nearby clusters`,
/// the same `ClusterRequest` and writer). Hierarchies are kept in memory for the cache generation they
/// were built at (`KeptHierarchies`, bounded by their points; not those of a personal condition); those
/// of every place and of one content type with the default options (`ClusterRequest.isKept`) are also
/// kept on disk (`ClusterFile` beside the cache: read, or built and written, on the first request that
/// needs each). A filter's places come straight from the snapshot's table, without a query.
struct ClustersAPI: Sendable {
    let engine: LiveEngine
    let options: ServerOptions
    /// Tokens and personal reads, as `/v1/places` (`PersonalAccess.personalized`).
    let personal: PersonalAccess
    let kept = KeptHierarchies()

    enum Answer { case zoom, children, leaves }

    /// `GET /v1/clusters?zoom=&bbox=&…`, `GET /v1/clusters/{id}/children?…`, `GET /v1/clusters/{id}/leaves?…`.
    func answer(_ request: Request, _ answer: Answer, id rawID: String? = nil, client: String) async throws -> Response
    {
        var pairs = try PlacesAPI.pairs(request)
        var format = ClusterFormat.geojson
        if let i = pairs.firstIndex(where: { $0.name == "format" }) {
            guard let named = ClusterFormat(rawValue: pairs[i].value) else {
                throw APIError(
                    .badRequest, parameter: "format", "\(RequestError.quoted(pairs[i].value)) is not geojson or jsonl")
            }
            format = named
            pairs.remove(at: i)
            if pairs.contains(where: { $0.name == "format" }) {
                throw APIError(.badRequest, parameter: "format", "given twice")
            }
        }
        var parsed: ClusterRequest
        do { parsed = try ClusterRequest.parse(pairs, areas: RegionAreas.shared) } catch { throw APIError(error) }
        // Personal conditions name their user by the bearer token, as on `/v1/places`.
        try PlacesAPI.refuseUserParameter(pairs)
        if parsed.query.usesPersonalData {
            parsed.query = try personal.personalized(parsed.query, request, client: client)
        }
        let clusterRequest = parsed
        let id = try rawID.map { raw in
            let text = try PlacesAPI.pathSegment(raw, parameter: "id")
            guard let v = DecimalNumber.integer(text), v >= 0 else {
                throw APIError(.badRequest, parameter: "id", "\(RequestError.quoted(text)) is not a cluster id")
            }
            return v
        }
        if answer == .zoom && clusterRequest.zoom == nil {
            throw APIError(.badRequest, parameter: "zoom", "required (0…\(ClusterOptions.zoomLimit + 1))")
        }
        let chosenFormat = format
        let snapshot = engine.current
        let clusters = try await hierarchy(clusterRequest, snapshot)
        let bytes = try await Self.offload { () throws -> [UInt8] in
            let items: [ClusterItem]
            do {
                switch answer {
                case .zoom: items = clusters.clusters(clusterRequest, zoom: clusterRequest.zoom!)
                case .children: items = try clusters.index.children(of: id!)
                case .leaves:
                    items = try clusters.index.leaves(
                        of: id!, limit: clusterRequest.limit, offset: clusterRequest.offset)
                }
            } catch let e as ClusterNotFound {
                throw APIError(.notFound, parameter: "id", e.description)
            }
            let places = try clusters.rows(of: items).withRecords { ids in try snapshot.places(ids: ids) }
            var out: [UInt8] = []
            var writer = ClusterWriter(format: chosenFormat, to: StdoutBlocks(blockSize: 1 << 16) { out += $0 })
            try writer.write(items, places: places, index: clusters.index)
            try writer.finish()
            return out
        }
        var headers: HTTPFields = [.contentType: chosenFormat.mediaType]
        headers[.xCacheGeneration] = String(snapshot.generation)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The request's hierarchy: a kept one, or one built now on a lane (like any query), off the event
    /// loops: from the table's rows (`PlaceClusters.fromTable`), or from every match of a query.
    func hierarchy(_ request: ClusterRequest, _ snapshot: EngineSnapshot) async throws -> PlaceClusters {
        let build: @Sendable () async throws -> PlaceClusters = {
            // A filter alone: its places straight from the snapshot's table, on a lane, no query
            // (`PlaceClusters.fromTable`); a damaged snapshot is asked as a query, which rebuilds it.
            if !engine.isPostGIS {
                let clusters = try await snapshot.withEngine(timeout: options.requestTimeout) { lane in
                    do {
                        return try PlaceClusters.fromTable(of: lane, request, kept: keptFile(request, snapshot))
                    } catch is IndexSnapshot.Problem {
                        return nil
                    }
                }
                if let clusters { return clusters }
            }
            var answer = try await snapshot.run(request.query, records: false, timeout: options.requestTimeout)
            if !answer.rows.hasCoordinates {
                answer = try await snapshot.run(request.query, records: true, timeout: options.requestTimeout)
            }
            let rows = answer.rows
            return try await Self.offload {
                PlaceClusters(rows: rows, options: request.options, kept: keptFile(request, snapshot))
            }
        }
        // A personal condition's places change with the user's data: built for each request.
        guard !request.query.usesPersonalData else { return try await build() }
        return try await kept.hierarchy(generation: snapshot.generation, key: request.hierarchyKey, build: build)
    }

    /// Where the request's hierarchy is kept beside the cache (`ClusterFile`), stamped with the
    /// generation the snapshot's lanes read; nil for PostGIS, a filter or options not kept, or a
    /// cache whose identity cannot be read.
    func keptFile(_ request: ClusterRequest, _ snapshot: EngineSnapshot) -> ClusterFile.Location? {
        guard !engine.isPostGIS, let path = ClusterFile.path(ofCache: engine.path, for: request),
            let identity = try? PlaceCache(path: engine.path, readOnly: true).identity()
        else { return nil }
        return ClusterFile.Location(
            path: path, stamp: IndexSnapshot.Stamp(identity: identity, generation: snapshot.generation),
            key: request.hierarchyKey)
    }

    /// `work` on a dispatch queue, never an event loop (a build takes a second on a million places).
    static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}

/// The hierarchies kept for one cache generation, by `ClusterRequest.hierarchyKey`; a request for
/// a newer generation drops them. A hierarchy being built is shared by the requests that wait for it.
/// They are bounded by their points together (`pointLimit`): past it, the least recently asked are
/// dropped (the one just built last of all; one larger than the bound alone is answered, not kept).
final class KeptHierarchies: @unchecked Sendable {
    /// A build's task runs on the event loops, as the requests do (an unstructured task does not take
    /// their preference): it only waits there, for a lane and for `ClustersAPI.offload`.
    private static let executor = EventLoopExecutor(MultiThreadedEventLoopGroup.singleton)
    /// The default bound: every place of a 1M-place cache, its content types and some filters (some
    /// 107 bytes a point built in memory; a kept file's levels are mapped).
    static let defaultPointLimit = 4_000_000

    private struct Entry {
        let task: Task<PlaceClusters, any Error>
        /// Points of the finished hierarchy (nil while it is built: not counted yet).
        var points: Int?
        var lastUse: UInt64
    }

    let pointLimit: Int
    private let lock = NSLock()
    private var generation: Int64?
    private var entries: [String: Entry] = [:]
    private var keptPoints = 0
    private var uses: UInt64 = 0

    init(pointLimit: Int = defaultPointLimit) { self.pointLimit = pointLimit }

    /// Keys of the hierarchies kept now (finished or being built), and their points together.
    var kept: (keys: Set<String>, points: Int) { lock.withLock { (Set(entries.keys), keptPoints) } }

    func hierarchy(
        generation: Int64, key: String, build: @escaping @Sendable () async throws -> PlaceClusters
    ) async throws -> PlaceClusters {
        let task: Task<PlaceClusters, any Error> = lock.withLock {
            if generation > self.generation ?? .min {
                self.generation = generation
                entries = [:]
                keptPoints = 0
            }
            // A request still on an older generation builds its own, kept by no one.
            guard generation == self.generation else {
                return Task(executorPreference: Self.executor) { try await build() }
            }
            uses += 1
            if entries[key] != nil {
                entries[key]!.lastUse = uses
                return entries[key]!.task
            }
            let task = Task(executorPreference: Self.executor) { try await build() }
            entries[key] = Entry(task: task, points: nil, lastUse: uses)
            return task
        }
        do {
            let clusters = try await task.value
            lock.withLock {
                guard entries[key]?.task == task, entries[key]?.points == nil else { return }
                entries[key]!.points = clusters.count
                keptPoints += clusters.count
                evict(sparing: key)
            }
            return clusters
        } catch {
            // A failed build (a deadline, a reload) is not kept: the next request tries again.
            lock.withLock {
                if entries[key]?.task == task {
                    keptPoints -= entries[key]!.points ?? 0
                    entries[key] = nil
                }
            }
            throw error
        }
    }

    /// Drops the least recently asked finished hierarchies while the points pass the bound (under
    /// `lock`), `key` (the one just built) last.
    private func evict(sparing key: String) {
        while keptPoints > pointLimit {
            let finished = entries.filter { $0.value.points != nil }
            guard
                let victim = finished.filter({ $0.key != key }).min(by: { $0.value.lastUse < $1.value.lastUse })
                    ?? finished.first
            else { return }
            keptPoints -= victim.value.points!
            entries[victim.key] = nil
        }
    }
}
