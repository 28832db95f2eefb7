import Dispatch
import Foundation
import HTTPTypes
import Hummingbird
import NIOPosix
import NearbyKit

/// `/v1/clusters…`: supercluster's hierarchy over the places a filter matches (`nearby clusters`,
/// the same `ClusterRequest` and writer). The hierarchies of every place and of one content type, with
/// the default options (`ClusterRequest.isKept`), are kept for the cache generation they were built at
/// (read from their `ClusterFile` beside the cache, or built, on the first request that needs each);
/// other filters build theirs for the request.
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

    /// The request's hierarchy: a kept one, or one built now from every match (through a lane, like
    /// any query), off the event loops.
    func hierarchy(_ request: ClusterRequest, _ snapshot: EngineSnapshot) async throws -> PlaceClusters {
        let build: @Sendable () async throws -> PlaceClusters = {
            var answer = try await snapshot.run(request.query, records: false, timeout: options.requestTimeout)
            if !answer.rows.hasCoordinates {
                answer = try await snapshot.run(request.query, records: true, timeout: options.requestTimeout)
            }
            let rows = answer.rows
            return try await Self.offload {
                PlaceClusters(rows: rows, options: request.options, kept: keptFile(request, snapshot))
            }
        }
        guard request.isKept else { return try await build() }
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
final class KeptHierarchies: @unchecked Sendable {
    /// A build's task runs on the event loops, as the requests do (an unstructured task does not take
    /// their preference): it only waits there, for a lane and for `ClustersAPI.offload`.
    private static let executor = EventLoopExecutor(MultiThreadedEventLoopGroup.singleton)
    private let lock = NSLock()
    private var generation: Int64?
    private var builds: [String: Task<PlaceClusters, any Error>] = [:]

    func hierarchy(
        generation: Int64, key: String, build: @escaping @Sendable () async throws -> PlaceClusters
    ) async throws -> PlaceClusters {
        let kept: Task<PlaceClusters, any Error>? = lock.withLock {
            if generation > self.generation ?? .min {
                self.generation = generation
                builds = [:]
            }
            return generation == self.generation ? builds[key] : nil
        }
        if let kept { return try await kept.value }
        let task: Task<PlaceClusters, any Error> = lock.withLock {
            // A request still on an older generation builds its own, kept by no one.
            guard generation == self.generation else {
                return Task(executorPreference: Self.executor) { try await build() }
            }
            if let task = builds[key] { return task }
            let task = Task(executorPreference: Self.executor) { try await build() }
            builds[key] = task
            return task
        }
        do { return try await task.value } catch {
            // A failed build (a deadline, a reload) is not kept: the next request tries again.
            lock.withLock { if builds[key] == task { builds[key] = nil } }
            throw error
        }
    }
}
