import Hummingbird
import NearbyKit

/// A request the server refuses: the status, the parameter at fault (when one is) and why.
/// Written as `{"status":400,"parameter":"radius","error":"…"}` (Nearby's API) or as TourAPI's error
/// envelope (`TourAPIError`), never as a stack trace. Route handlers build one for answers of their
/// own (an unknown parameter, a place not found); any other error becomes one through its kind
/// (`init(_: any Error)`). It is an answer already, so it has no `ErrorKind`.
struct APIError: Error {
    var status: HTTPResponse.Status
    var parameter: String?
    var reason: String
    /// Extra response headers (`Retry-After` on a 503).
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, parameter: String? = nil, _ reason: String) {
        self.status = status
        self.parameter = parameter
        self.reason = reason
    }

    /// Any error thrown while answering, through its kind (`ErrorKind.httpStatus`, the one mapping):
    /// a `RequestError` names its parameter and says why (400, or 409 for a stale cursor); the
    /// server's own `DeadlineExceeded` (or `LargeAnswers.Busy`) says which limit passed (503,
    /// `Retry-After`); another 4xx
    /// says its description; another 5xx no more than "internal error" (or its status's phrase),
    /// since its message names files and databases, the operator's business (`withholdsReason`).
    init(_ error: any Error) {
        if let e = error as? APIError {
            self = e
            return
        }
        if let e = error as? DeadlineExceeded {
            self = e.apiError
            return
        }
        if let e = error as? LargeAnswers.Busy {
            self = e.apiError
            return
        }
        let status = HTTPResponse.Status(code: ErrorKind(of: error).httpStatus)
        if let e = error as? RequestError {
            self.init(status, parameter: e.parameter, e.reason)
        } else if !Self.withholdsReason(error) {
            self.init(status, "\(error)")
        } else {
            self.init(status, status == .internalServerError ? "internal error" : status.reasonPhrase)
        }
    }

    /// Whether `APIError(error)` leaves the error's message out of the answer: a 5xx that is not the
    /// server's own. The middleware logs those.
    static func withholdsReason(_ error: any Error) -> Bool {
        !(error is APIError || error is DeadlineExceeded || error is LargeAnswers.Busy || error is RequestError)
            && ErrorKind(of: error).httpStatus >= 500
    }

    var json: [UInt8] {
        var out: [UInt8] = Array("{\"status\":\(status.code),\"parameter\":".utf8)
        (parameter.map(JSONScalar.string) ?? .null).append(to: &out)
        out.append(contentsOf: ",\"error\":".utf8)
        JSONWriter.appendString(parameter.map { "\($0): \(reason)" } ?? reason, to: &out)
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    func response(headers extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        headers.append(contentsOf: self.headers)
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: json)))
    }
}
