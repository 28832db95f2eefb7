import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyServer

/// What a hostile client sends: numbers that `strtod` would half-read, days that do not exist, lists
/// with holes, codes that are no codes, escaped ids, and requests that are not HTTP/1.1 as the server
/// speaks it. Every refusal is a 4xx with a JSON body naming what was wrong.
@Suite(.serialized) struct StrictInputTests {
    static let tour = "/B551011/KorService2/"

    /// The envelope's header, from TourAPI's JSON or its XML (the answer without `_type=json`).
    func tourHeader(_ r: LoopbackHTTP.Response) -> [String: Any] {
        if r.headers["content-type"]?.hasPrefix("application/xml") == true {
            return (try? TourXML(Array(r.body)))?.header ?? [:]
        }
        return (r.json["response"] as? [String: Any])?["header"] as? [String: Any] ?? [:]
    }

    /// Runs blocking work (the harness's start and stop, a request on a socket) on a thread of its
    /// own: a test that blocked a thread of the cooperative pool could starve the server's own tasks
    /// when other suites' tests do the same on a machine with few cores.
    static func offPool<T>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let box = ResultBox<T>()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                box.value = Result { try work() }
                done.resume()
            }.start()
        }
        return try box.value!.get()
    }

    final class ResultBox<T>: @unchecked Sendable { var value: Result<T, any Error>? }

    /// Starts a server over the fixture plus a place whose id has a space and Hangul.
    func withServer(_ body: (Server) async throws -> Void) async throws {
        let (running, folder) = try await Self.offPool { () -> (RunningServer, TempFolder) in
            let folder = try TempFolder()
            let path = folder.file("places.sqlite")
            var places = Fixture.places(300)
            places.append(Place(id: "가 나", title: "가나", lat: 37.55, lon: 126.95, category: 12))
            _ = try Importer().importPlaces(places, into: PlaceCache(path: path))
            return (try RunningServer(path: path), folder)
        }
        defer { withExtendedLifetime(folder) {} }
        let server = Server(running: running)
        do { try await body(server) } catch {
            _ = try? await Self.offPool { running.stop() }
            throw error
        }
        _ = try await Self.offPool { running.stop() }
    }

    /// The running server, asked from a test without blocking the cooperative pool.
    struct Server: Sendable {
        let running: RunningServer
        final class Sent: @unchecked Sendable {
            let response: LoopbackHTTP.Response
            init(_ r: LoopbackHTTP.Response) { response = r }
        }
        func get(_ target: String) async throws -> LoopbackHTTP.Response {
            let port = running.port
            return try await StrictInputTests.offPool { Sent(try LoopbackHTTP(port: port).get(target)) }.response
        }
        func raw(_ request: [UInt8]) async throws -> LoopbackHTTP.Response {
            let port = running.port
            return try await StrictInputTests.offPool { Sent(try LoopbackHTTP(port: port).raw(request)) }.response
        }
    }

    func expectRefused(
        _ server: Server, _ target: String, _ parameter: String?, status: Int = 400,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let r = try await server.get(target)
        let label = "\(target.prefix(100)): \(r.text.prefix(300))"
        #expect(r.status == status, "\(label)", sourceLocation: sourceLocation)
        if target.hasPrefix(Self.tour) {
            let header = tourHeader(r)
            #expect(
                ["10", "11", "04"].contains(header["resultCode"] as? String ?? ""), "\(label)",
                sourceLocation: sourceLocation)
            if let parameter {
                #expect(
                    (header["resultMsg"] as? String ?? "").contains(": \(parameter): "), "\(label)",
                    sourceLocation: sourceLocation)
            }
        } else {
            #expect(r.json["status"] as? Int == status, "\(label)", sourceLocation: sourceLocation)
            #expect(r.json["parameter"] as? String == parameter, "\(label)", sourceLocation: sourceLocation)
        }
    }

    @Test func numbersAreDecimalOnly() async throws {
        try await withServer { server in
            for bad in [
                "37%00abc", "37%00", "0x25", "0X25", "0x1p5", "nan", "inf", "-infinity", "1e999", "37abc", "3%2C7",
                "%0B37", "37.5.1", "", "+", ".",
            ] {
                try await expectRefused(server, "/v1/places?lat=\(bad)&lon=127&radius=100", "lat")
                try await expectRefused(server, "/v1/places?lat=37.5&lon=\(bad)&radius=100", "lon")
                try await expectRefused(server, "/v1/where?lat=\(bad)&lon=127", "lat")
                try await expectRefused(server, "/v1/distance?lat1=\(bad)&lon1=127&lat2=37&lon2=127", "lat1")
                try await expectRefused(
                    server, Self.tour + "locationBasedList2?mapX=\(bad)&mapY=37.5&radius=100&_type=json", "mapX")
                if !bad.isEmpty {
                    try await expectRefused(
                        server, Self.tour + "locationBasedList2?mapX=127&mapY=37.5&radius=\(bad)&_type=json", "radius")
                }
            }
            try await expectRefused(server, "/v1/places?lat=37.5&lon=127&radius=0x7d0", "radius")
            try await expectRefused(server, "/v1/places?lat=37.5&lon=127&radius=2000%00", "radius")
            try await expectRefused(server, "/v1/places?bbox=0x7e,37,128,38", "bbox")
            try await expectRefused(server, "/v1/places?bbox=126,37,128,38%00", "bbox")
            try await expectRefused(server, "/v1/places?lat=37.5&lon=127&knn=0x5", "knn")
            // The grammar's own forms, with surrounding spaces trimmed as everywhere.
            for good in ["37.5", "%2B37.5", "3.75e1", "3.75E%2B1", "375e-1", "37.", ".5", "%2037.5%20", "%0937.5"] {
                let r = try await server.get("/v1/where?lat=\(good)&lon=127")
                #expect(r.status == 200, "lat=\(good): \(r.text)")
                #expect(try await server.get("/v1/places?lat=\(good)&lon=127&radius=100").status == 200, "lat=\(good)")
            }
        }
    }

    @Test func daysMustExist() async throws {
        try await withServer { server in
            for (name, value) in [
                ("date", "2025-02-30"), ("date", "20250229"), ("date", "19000229"), ("date", "2025-04-31"),
                ("from", "20250431"), ("to", "2025-06-31"), ("during", "20250101,20250230"),
                ("created-since", "20250230"), ("created-until", "2025-02-29"),
                ("modified-since", "20250230120000"), ("modified-until", "20251131000000"),
            ] {
                try await expectRefused(server, "/v1/places?\(name)=\(value)", name)
            }
            for good in ["2024-02-29", "20000229", "20251231", "2025-01-31"] {
                #expect(try await server.get("/v1/places?date=\(good)").status == 200, "\(good)")
            }
            #expect(try await server.get("/v1/places?created-since=20240229235959").status == 200)
            try await expectRefused(
                server, Self.tour + "searchFestival2?eventStartDate=20250230&_type=json", "eventStartDate")
            try await expectRefused(
                server, Self.tour + "searchFestival2?eventStartDate=20250101&eventEndDate=20250230&_type=json",
                "eventEndDate")
        }
    }

    @Test func personalParametersNeedAValidToken() async throws {
        try await withServer { server in
            for target in [
                "/v1/places?bookmarked=true", "/v1/places?min-rating=3", "/v1/places?sort=-rating",
                "/v1/places?keyword=a&keyword-in=memo",
            ] {
                try await expectRefused(server, target, nil, status: 401)
            }
            try await expectRefused(server, "/v1/places?user=me", "user")
            #expect(try await server.get("/v1/places?keyword=a&keyword-in=title").status == 200)
        }
    }

    @Test func anOverflowNamesTheParameterSent() async throws {
        try await withServer { server in
            try await expectRefused(server, "/v1/places?limit=9223372036854775807", "limit")
            try await expectRefused(server, "/v1/places?limit=9223372036854775808", "limit")
            try await expectRefused(
                server, Self.tour + "areaBasedList2?numOfRows=9223372036854775807&_type=json", "numOfRows")
            try await expectRefused(server, "/v1/places?limit=100&page=9223372036854775807", "page")
        }
    }

    @Test func anEmptyTypeIsAsIfNotGiven() async throws {
        try await withServer { server in
            for operation in [
                "areaBasedList2", "searchKeyword2?keyword=%EA%B0%80", "searchFestival2?eventStartDate=20250101",
                "locationBasedList2?mapX=126.95&mapY=37.55&radius=1000", "detailCommon2?contentId=1",
            ] {
                let target = Self.tour + operation + (operation.contains("?") ? "&" : "?") + "_type="
                let r = try await server.get(target)
                #expect(r.status == 200, "\(target): \(r.text.prefix(300))")
                #expect(tourHeader(r)["resultCode"] as? String == "0000", "\(target)")
                #expect(r.headers["content-type"] == "application/xml; charset=utf-8", "\(target): XML, the default")
            }
            try await expectRefused(server, Self.tour + "areaBasedList2?_type=yaml", "_type")
        }
    }

    @Test func placeIdsArePercentDecoded() async throws {
        try await withServer { server in
            let r = try await server.get("/v1/places/%EA%B0%80%20%EB%82%98")
            #expect(r.status == 200, "\(r.text)")
            #expect(r.json["id"] as? String == "가 나")
            #expect(try await server.get("/v1/places/%31").json["id"] as? String == "1")
            #expect(try await server.get("/v1/places/1").json["id"] as? String == "1")
            try await expectRefused(server, "/v1/places/%ZZ", "id")
            try await expectRefused(server, "/v1/places/%EA%B0", "id")
            try await expectRefused(server, "/v1/places/abc%", "id")
            try await expectRefused(server, "/v1/places/%EA%B0%80%20%EB%82%99", "id", status: 404)
            let detail = try await server.get(Self.tour + "detailCommon2?contentId=%EA%B0%80%20%EB%82%98&_type=json")
            #expect(tourHeader(detail)["resultCode"] as? String == "0000")
            #expect(
                ((detail.json["response"] as? [String: Any])?["body"] as? [String: Any])?["totalCount"] as? Int == 1)
        }
    }

    @Test func codesAndListsWithoutHolesOrGarbage() async throws {
        try await withServer { server in
            try await expectRefused(
                server, Self.tour + "areaBasedList2?areaCode=1&sigunguCode=abc&_type=json", "sigunguCode")
            try await expectRefused(server, "/v1/places?sigungucode=abc", "sigungucode")
            for bad in ["ZZZ", "FD", "FD66", "F6D", "6FD", "FD%00"] {
                try await expectRefused(server, "/v1/places?kakao-category=\(bad)", "kakao-category")
            }
            #expect(try await server.get("/v1/places?kakao-category=FD6,ce7").status == 200)
            for (name, value) in [
                ("category", "12,,39"), ("category", "12,"), ("category", ",12"), ("areacode", "1,,2"),
                ("cat", "A01,,A02"), ("accessible", "wheelchair,,restroom"), ("sigungucode", "1,,2"),
                ("kakao-category", "FD6,,CE7"), ("sort", "title,,id"),
            ] {
                try await expectRefused(server, "/v1/places?\(name)=\(value)", name)
            }
            try await expectRefused(server, "/v1/places?fields=id,,id", "fields")
            try await expectRefused(server, "/v1/places?fields=id,", "fields")
            try await expectRefused(server, "/v1/places/1?fields=id,,title", "fields")
            #expect(try await server.get("/v1/places?category=12,39&fields=id,title").status == 200)
        }
    }

    /// Requests the HTTP/1 parser refuses before any route sees them still get a JSON body (TourAPI's
    /// envelope on TourAPI paths), and an over-long URL gets the documented 414 wherever it is caught.
    @Test func protocolRejectsHaveBodies() async throws {
        try await withServer { server in
            let host = "Host: 127.0.0.1\r\nConnection: close\r\n"
            let longHeaders = (0..<40).map { "X-Filler-\($0): " + String(repeating: "a", count: 3_300) + "\r\n" }
                .joined()
            let manyHeaders = (0..<1_001).map { "X-H\($0): 1\r\n" }.joined()
            let longURL = String(repeating: "a", count: 81_920)
            let longerURL = String(repeating: "a", count: 200_000)
            let cases: [(String, String, Int)] = [
                ("lowercase method", "get /healthz HTTP/1.1\r\n\(host)\r\n", 400),
                ("unknown method", "FETCH /healthz HTTP/1.1\r\n\(host)\r\n", 400),
                ("HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400),
                ("headers of 132 KB", "GET /healthz HTTP/1.1\r\n\(host)\(longHeaders)\r\n", 431),
                ("1,001 headers", "GET /healthz HTTP/1.1\r\n\(host)\(manyHeaders)\r\n", 431),
                ("raw UTF-8 in the URL", "GET /v1/places?keyword=가 HTTP/1.1\r\n\(host)\r\n", 400),
                (
                    "Content-Length with Transfer-Encoding",
                    "GET /healthz HTTP/1.1\r\n\(host)Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                    400
                ),
                ("URL of 81,920 bytes", "GET /v1/places?keyword=\(longURL) HTTP/1.1\r\n\(host)\r\n", 414),
                ("URL of 200,000 bytes", "GET /v1/places?keyword=\(longerURL) HTTP/1.1\r\n\(host)\r\n", 414),
            ]
            for (label, request, status) in cases {
                let r = try await server.raw(Array(request.utf8))
                #expect(r.status == status, "\(label): \(r.text.prefix(300))")
                #expect(r.headers["content-type"] == "application/json; charset=utf-8", "\(label)")
                #expect(r.json["status"] as? Int == status, "\(label): \(r.text.prefix(300))")
                #expect(!(r.json["error"] as? String ?? "").isEmpty, "\(label): \(r.text.prefix(300))")
            }
            let tourLong = try await server.raw(
                Array(
                    "GET \(Self.tour)areaBasedList2?keyword=\(String(repeating: "a", count: 90_000)) HTTP/1.1\r\n\(host)\r\n"
                        .utf8))
            #expect(tourLong.status == 414)
            #expect(tourHeader(tourLong)["resultCode"] as? String == "04", "\(tourLong.text.prefix(300))")
            let tourBad = try await server.raw(
                Array("GET \(Self.tour)areaBasedList2?keyword=가 HTTP/1.1\r\n\(host)\r\n".utf8))
            #expect(tourBad.status == 400)
            #expect(
                tourHeader(tourBad)["resultCode"] as? String == "99"
                    || tourHeader(tourBad)["resultCode"] as? String == "10", "\(tourBad.text.prefix(300))")
            #expect(try await server.get("/healthz").status == 200)
        }
    }
}
