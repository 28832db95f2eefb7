import Foundation
import Testing

@testable import NearbyBench
@testable import NearbyCarousel
@testable import NearbyCore
@testable import NearbyKit
@testable import NearbyPostGIS
@testable import NearbyRegions
@testable import NearbyServer
@testable import NearbyStore

/// A representative of every error type of the project has the kind its exit code and HTTP status
/// come from (`ErrorKind`). `APIError` is an answer already, and `RegionFile`'s private byte reader
/// fails only into `RegionFile.FormatError`: neither is listed.
@Suite struct ErrorKindOfTypesTests {
    static let missing = "/nonexistent-nearby-path/file"

    func kind(_ body: () throws -> Void) -> ErrorKind? {
        do {
            try body()
            return nil
        } catch { return ErrorKind(of: error) }
    }

    @Test func core() {
        #expect(RequestError(parameter: "radius", reason: "x").kind == .usage)
        #expect(RequestError.staleCursor.kind == .conflict)
        #expect(DistanceModelError.unknownModel("x").kind == .usage)
        #expect(ClusterNotFound(id: 1).kind == .notFound)
        #expect(DistanceModelError.outsideProjection(lat: 0, lon: 0, crs: 5179).kind == .usage)
        #expect(DistanceModelError.proj("x").kind == .internal)
        #expect(KoreanTowns.FormatError(description: "x").kind == .damaged)
        #expect(kind { _ = try DefaultDataset.loadTowns(path: Self.missing) } == .io)
        let stamp = IndexSnapshot.Stamp(identity: 1, generation: 1)
        let problems: [(IndexSnapshot.Problem, ErrorKind)] = [
            (.missing, .notFound), (.unreadable("x"), .io), (.foreign, .damaged), (.version(1), .unsupported),
            (.truncated, .damaged), (.damaged("x"), .damaged), (.stale(found: stamp, wanted: stamp), .conflict),
        ]
        for (problem, expected) in problems { #expect(problem.kind == expected, "\(problem)") }
        #expect(kind { _ = try MappedFile(path: Self.missing) } == .io)
        #expect(kind { _ = try PlaceJSON.Selection(names: ["nope"]) } == .usage)
        #expect(kind { _ = try PlaceJSON.decode(Array("{".utf8)) } == .usage)
        #expect(JSONError(offset: 0, reason: "x").kind == .usage)
    }

    @Test func store() {
        #expect(SQLiteError(path: "c", code: 5, message: "busy").kind == .unavailable)  // SQLITE_BUSY
        #expect(SQLiteError(path: "c", code: 11, message: "corrupt").kind == .damaged)  // SQLITE_CORRUPT
        #expect(SQLiteError(path: "c", code: 10, message: "I/O").kind == .internal)  // SQLITE_IOERR
        #expect(PlaceCache.DamagedRow(field: "lat", reason: "x").kind == .damaged)
        let cache: [(PlaceCacheError, ErrorKind)] = [
            (.cannotOpen(path: "c", reason: "x"), .io), (.notACache(path: "c", reason: "x"), .damaged),
            (.newerSchema(path: "c", version: 9, supported: 1), .unsupported), (.busy(path: "c"), .unavailable),
            (.damaged(path: "c", row: "r", field: "f", reason: "x"), .damaged),
            (.sqlite(path: "c", message: "x"), .internal),
        ]
        for (error, expected) in cache { #expect(error.kind == expected, "\(error)") }
        #expect(kind { _ = try PlaceCache(path: Self.missing, readOnly: true) } == .io)
        #expect(RecordError(file: "f", line: 1, field: "lat", reason: "x").kind == .usage)
        #expect(UnsupportedInputError(file: "f", message: "x").kind == .unsupported)
    }

    @Test func postGIS() {
        #expect(PGError(message: "x").kind == .internal)
        #expect(PostGISError(name: "db", message: "x").kind == .internal)
        #expect(PostGISError(name: "db", message: "busy", isBusy: true).kind == .unavailable)
    }

    @Test func regions() {
        #expect(RegionFile.FormatError(path: "f", message: "x").kind == .damaged)
        #expect(kind { _ = try RegionFile(contentsOf: Self.missing) } == .io)
        #expect(RegionCodeChanges.FormatError(path: "f", line: 1, message: "x").kind == .damaged)
        #expect(kind { _ = try RegionCodeChanges(contentsOf: Self.missing) } == .io)
    }

    @Test func kit() {
        #expect(DefaultDataset.NotFound(searched: []).kind == .notFound)
        #expect(RegionData.NotFound(searched: []).kind == .notFound)
        #expect(UnreadableInputError(name: "f", reason: "x").kind == .usage)
        #expect(kind { _ = try CoordinateLine(fields: ["x"], names: ["lat"]) } == .usage)
        #expect(UsageError("x").kind == .usage)
        #expect(UsageError(RequestError.staleCursor).kind == .usage)
        #expect(StdoutError(reason: "x").kind == .io)
    }

    @Test func benchAndCarousel() {
        #expect(kind { _ = try Workload.readQueries(path: Self.missing) } == .usage)
        #expect(CarouselInputError("x").kind == .usage)
        #expect(CarouselSimulatorError.afterEnd.kind == .usage)
    }

    @Test func server() {
        #expect(QueryString.Malformed(parameter: "q").kind == .usage)
        #expect(BlockChannel.Cancelled().kind == .io)
        #expect(DeadlineExceeded(started: true, limit: .seconds(1)).kind == .unavailable)
        #expect(EventLoopAffinity.Failure(description: "x").kind == .unsupported)
    }
}
