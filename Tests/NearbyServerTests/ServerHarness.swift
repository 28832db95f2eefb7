import Foundation
import Logging
import NIOPosix
import NearbyKit
import NearbyServer
import NearbyTestSupport
import ServiceLifecycle
import Testing

/// The real server on an ephemeral loopback port, over a real cache file, run by a real `ServiceGroup`.
final class RunningServer: @unchecked Sendable {
    let port: Int
    let engine: LiveEngine
    let http: LoopbackHTTP
    private let group: ServiceGroup
    private let done: DispatchSemaphore

    convenience init(
        path: String, options: ServerOptions = RunningServer.options(), provider: EngineProvider = .default,
        logger given: Logger? = nil
    ) throws {
        try self.init(
            engine: try LiveEngine(path: path, provider: provider, lanes: options.lanes), options: options,
            logger: given)
    }

    /// The server over a PostgreSQL/PostGIS database (`nearby serve --engine postgis`).
    convenience init(postgis url: String, options: ServerOptions = RunningServer.options(), logger: Logger? = nil)
        throws
    {
        try self.init(engine: try LiveEngine(postgis: url, lanes: options.lanes), options: options, logger: logger)
    }

    init(engine: LiveEngine, options: ServerOptions, logger given: Logger?) throws {
        self.engine = engine
        var logger = given ?? Logger(label: "nearby.test")
        if given == nil { logger.logLevel = .warning }
        final class Port: @unchecked Sendable { var value = 0 }
        let box = Port()
        let ready = DispatchSemaphore(value: 0)
        let services = NearbyHTTPServer.services(engine: engine, options: options, logger: logger) { port in
            box.value = port
            ready.signal()
        }
        let group = ServiceGroup(configuration: .init(services: services.map { .init(service: $0) }, logger: logger))
        self.group = group
        let done = DispatchSemaphore(value: 0)
        self.done = done
        final class Failure: @unchecked Sendable { var error: (any Error)? }
        let failure = Failure()
        Task(executorPreference: ServerThreads.shared) {
            do { try await group.run() } catch { failure.error = error }
            done.signal()
        }
        guard ready.wait(timeout: .now() + 60) == .success else {
            throw LoopbackHTTP.Failure(
                description: "the server did not start: \(failure.error.map { "\($0)" } ?? "no error")")
        }
        port = box.value
        http = LoopbackHTTP(port: port)
    }

    static func options(_ edit: (inout ServerOptions) -> Void = { _ in }) -> ServerOptions {
        var o = ServerOptions()
        o.host = "127.0.0.1"
        o.port = 0
        o.reloadInterval = .milliseconds(100)
        edit(&o)
        return o
    }

    /// Graceful shutdown; returns when the group has finished. ServiceLifecycle finishes a graceful
    /// shutdown in a task of its own on the cooperative pool, which other suites' blocking tests can
    /// hold for tens of seconds on a machine with two cores: the deadline allows for that, and still
    /// fails a server that does not stop.
    func stop() {
        let group = self.group
        Task(executorPreference: ServerThreads.shared) { await group.triggerGracefulShutdown() }
        #expect(done.wait(timeout: .now() + 240) == .success, "the server did not shut down")
    }
}

/// Threads of the test servers' own for their tasks (the service group, the reload service's polling,
/// the shutdown trigger): the tests block Swift's cooperative pool while they wait for an answer, and
/// so do other suites running at the same time, and a server polling on the pool would not see an
/// import in time. (ServiceLifecycle still starts one unstructured task on the pool when a graceful
/// shutdown begins, so `stop` can wait for a pool thread.)
final class ServerThreads: TaskExecutor {
    static let shared = ServerThreads()
    private let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loops.next().execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// A real server over a fresh cache of the fixture's 6,000 places, stopped when released: a suite holds
/// one for each test (Swift Testing makes an instance per test), so each test gets its own server.
final class ServedFixture {
    let folder: TempFolder
    let server: RunningServer
    let places = Fixture.places(6_000)

    init() throws {
        folder = try TempFolder()
        server = try RunningServer(path: try Fixture.cache(in: folder))
    }

    deinit { server.stop() }
}

/// A suite with a `ServedFixture` for each test.
protocol ServedSuite {
    var served: ServedFixture { get }
}

extension ServedSuite {
    var server: RunningServer { served.server }
    var places: [Place] { served.places }
}

/// A cache of `count` places on a grid over central Seoul (ids 1…count), some festivals and named sights.
enum Fixture {
    static let seoul = (lat: 37.5665, lon: 126.9780)

    static func places(_ count: Int, idOffset: Int = 0) -> [Place] {
        let categories = [12, 14, 15, 39, 32]
        return (0..<count).map { i in
            let n = i + 1 + idOffset
            let row = Double(i / 80)
            let col = Double(i % 80)
            let category = categories[i % categories.count]
            let title = i == 0 ? "경복궁" : i == 1 ? "덕수궁" : "장소 \(n)"
            return Place(
                id: String(n), title: title,
                lat: 37.50 + row * 0.0015, lon: 126.90 + col * 0.002, category: category,
                created: String(format: "2024%02d%02d120000", 1 + i % 12, 1 + i % 28),
                modified: String(format: "2025%02d%02d093000", 1 + i % 12, 1 + i % 28),
                areacode: "1", sigungucode: String(1 + i % 25), addr: "서울 \(n)", tel: i % 7 == 0 ? "02-000-\(n)" : nil,
                cat1: "A01", eventStart: category == 15 ? "2025050\(1 + i % 5)" : nil,
                eventEnd: category == 15 ? "2025051\(i % 10)" : nil
            )
        }
    }

    static func cache(in folder: TempFolder, count: Int = 6_000) throws -> String {
        let path = folder.file("places.sqlite")
        _ = try Importer().importPlaces(places(count), into: PlaceCache(path: path))
        return path
    }

    /// Ids within `radius` metres of the point by haversine, by (distance, integer id): the brute force.
    static func within(_ places: [Place], lat: Double, lon: Double, radius: Double) -> [(id: String, distance: Double)]
    {
        places.map { (id: $0.id, distance: Haversine.distance(lat1: lat, lon1: lon, lat2: $0.lat, lon2: $0.lon)) }
            .filter { $0.distance <= radius }
            .sorted { ($0.distance, Int($0.id)!) < ($1.distance, Int($1.id)!) }
    }
}

/// The suites that talk to a real server, nested here to run one test at a time: their deadlines,
/// lane waits and reload timings assume no other server is answering on the same cores.
@Suite(.serialized) enum RealServer {}
