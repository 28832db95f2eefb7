import Hummingbird
import NearbyKit

/// A request the server refuses: the status, the parameter at fault (when one is) and why.
/// Written as `{"status":400,"parameter":"radius","error":"…"}` (Nearby's API) or as TourAPI's error
/// envelope (`TourAPIError`), never as a stack trace.
struct APIError: Error {
    var status: HTTPResponse.Status
    var parameter: String?
    var reason: String
    /// Extra response headers (`Retry-After` on a 503).
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, parameter: String? = nil, _ reason: String) {
        self.status = status; self.parameter = parameter; self.reason = reason
    }

    /// 409 for a cursor from an older generation, else 400.
    init(_ error: RequestError) {
        self.init(error.isStale ? .conflict : .badRequest, parameter: error.parameter, error.reason)
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
