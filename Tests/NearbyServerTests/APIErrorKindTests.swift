import Foundation
import HTTPTypes
import NearbyKit
import Testing

@testable import NearbyServer

/// Errors thrown while answering reach the client through their kind (`APIError(_: any Error)`).
@Suite struct APIErrorKindTests {
    struct Kinded: NearbyError {
        var kind: ErrorKind
        var description: String { "an error of kind \(kind)" }
    }

    @Test func everyKindGetsItsStatus() {
        for kind in ErrorKind.allCases {
            let e = APIError(Kinded(kind: kind))
            #expect(Int(e.status.code) == kind.httpStatus, "\(kind)")
            // A 4xx says why; a 5xx that is not the server's own says no more than its status.
            #expect(
                e.reason
                    == (kind.httpStatus < 500
                        ? "an error of kind \(kind)"
                        : kind.httpStatus == 500 ? "internal error" : e.status.reasonPhrase),
                "\(kind)")
        }
    }

    @Test func requestErrorsNameTheirParameter() {
        let bad = APIError(RequestError(parameter: "radius", reason: "not a number"))
        #expect(bad.status == .badRequest && bad.parameter == "radius" && bad.reason == "not a number")
        #expect(
            String(decoding: bad.json, as: UTF8.self)
                == "{\"status\":400,\"parameter\":\"radius\",\"error\":\"radius: not a number\"}\n")
        let stale = APIError(RequestError.staleCursor)
        #expect(stale.status == .conflict && stale.parameter == "cursor")
    }

    @Test func deadlinesSayWhichLimitPassed() {
        let slow = APIError(DeadlineExceeded(started: true, limit: .milliseconds(250)))
        #expect(slow.status == .serviceUnavailable && slow.headers[.retryAfter] == "1")
        #expect(slow.reason.hasPrefix("the request ran longer than this server's 250 ms limit"))
        let busy = APIError(DeadlineExceeded(started: false, limit: .milliseconds(250)))
        #expect(busy.reason.hasPrefix("the server is busy"))
        #expect(!APIError.withholdsReason(DeadlineExceeded(started: true, limit: .seconds(1))))
    }

    @Test func filesAndLibrariesStayInTheLog() {
        struct Foreign: Error {}
        for error: any Error in [
            PlaceCacheError.damaged(path: "/srv/cache.sqlite", row: "a", field: "lat", reason: "x"),
            PlaceCacheError.busy(path: "/srv/cache.sqlite"), Foreign(),
        ] {
            let e = APIError(error)
            #expect(APIError.withholdsReason(error))
            #expect(!String(decoding: e.json, as: UTF8.self).contains("/srv"), "\(error)")
        }
        #expect(APIError(Foreign()).status == .internalServerError && APIError(Foreign()).reason == "internal error")
        #expect(APIError(PlaceCacheError.busy(path: "/srv/cache.sqlite")).status == .serviceUnavailable)
    }

    @Test func routeAnswersPassThrough() {
        let e = APIError(APIError(.notFound, parameter: "id", "no place has the id \"x\""))
        #expect(
            e.status == .notFound && e.parameter == "id"
                && !APIError.withholdsReason(APIError(.internalServerError, "x")))
    }
}
