import Foundation
import Hummingbird
import Logging

/// Every request's end: refuses over-long URLs (414), answers CORS preflights and marks CORS
/// responses (only with `--cors-origin`), turns errors into JSON (TourAPI's envelope on its paths,
/// XML unless the query asks `_type=json`) — 404 unknown path, 405 wrong method on a known one; any
/// other error by its kind, `APIError(_: any Error)`: 400/409 bad input, 503 past the deadline, 500
/// with no details — counts the request in the metrics and writes one access-log
/// line with method, path, status and microseconds.
struct ServerMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxURLLength: Int
    /// The path template a path matches (so a 404 from the router there means a wrong method).
    let route: @Sendable (Substring) -> String?
    /// Error bodies for paths with their own envelope (TourAPI, whose format the request's query picks).
    let errorResponse: @Sendable (Request, APIError) -> Response
    let cors: CORSPolicy
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        let path = Substring(request.uri.path)
        let route = self.route(path)
        let origin = request.headers[.origin]
        var timedOut = false
        var response: Response
        if request.uri.string.utf8.count > maxURLLength {
            response = errorResponse(request, APIError(.uriTooLong, "the URL is longer than \(maxURLLength) bytes"))
        } else if request.method == .options, route != nil, let origin,
            request.headers[.accessControlRequestMethod] != nil
        {
            response = cors.preflight(origin: origin, request.headers, methods: NearbyHTTPServer.methods(route!))
        } else {
            do {
                response = try await next(request, context)
            } catch let error as HTTPError where error.status == .notFound {
                if let route {
                    let methods = NearbyHTTPServer.methods(route).map(\.rawValue)
                    let allowed = methods.joined(separator: ", ")
                    var e = APIError(.methodNotAllowed, "\(request.method) is not allowed here; use \(allowed)")
                    e.headers[.allow] = allowed + (cors.isEnabled ? ", OPTIONS" : "")
                    response = errorResponse(request, e)
                } else {
                    response = errorResponse(request, APIError(.notFound, "no such path: \(path.prefix(200))"))
                }
            } catch let error as HTTPError {
                response = errorResponse(request, APIError(error.status, error.body ?? error.status.reasonPhrase))
            } catch {
                timedOut = error is DeadlineExceeded || error is LargeAnswers.Busy
                if APIError.withholdsReason(error) {
                    context.logger.error(
                        "request failed", metadata: ["path": "\(path.prefix(200))", "error": "\(error)"])
                }
                response = errorResponse(request, APIError(error))
            }
        }
        if let origin { cors.mark(&response.headers, origin: origin) }
        let elapsed = (ContinuousClock.now - start).components
        let ns = elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000
        metrics.request(route: route ?? "other", status: response.status.code, nanoseconds: ns, timedOut: timedOut)
        context.logger.info(
            "request",
            metadata: [
                "method": "\(request.method)", "path": "\(path.prefix(200))",
                "status": "\(response.status.code)", "us": "\(ns / 1000)",
            ])
        return response
    }
}

/// Which web pages may call the server from a browser (`--cors-origin`, repeatable; `*` for any).
/// With none given, no response carries CORS headers and OPTIONS gets 405, so browsers refuse.
struct CORSPolicy: Sendable {
    let origins: [String]

    var isEnabled: Bool { !origins.isEmpty }

    /// The `Access-Control-Allow-Origin` value for a request from `origin`, or nil when it is not allowed.
    func allowed(_ origin: String) -> String? {
        if origins.contains("*") { return "*" }
        return origins.contains(origin) ? origin : nil
    }

    /// Adds the CORS headers to an actual response (any status, so a page can read the error).
    func mark(_ headers: inout HTTPFields, origin: String) {
        guard isEnabled else { return }
        headers[.vary] = "Origin"
        guard let allow = allowed(origin) else { return }
        headers[.accessControlAllowOrigin] = allow
        headers[.accessControlExposeHeaders] =
            "X-Total-Count, X-Next-Cursor, X-Cache-Generation, Retry-After, ETag, Nearby-Partial"
    }

    /// The answer to a preflight `OPTIONS` on a known path: 204 with what may be sent, 403 for an
    /// origin not allowed, 405 when CORS is off.
    func preflight(origin: String, _ request: HTTPFields, methods: [HTTPRequest.Method] = [.get]) -> Response {
        let methodList = methods.map(\.rawValue).joined(separator: ", ")
        guard isEnabled else {
            var e = APIError(.methodNotAllowed, "OPTIONS is not allowed here (no --cors-origin); use GET")
            e.headers[.allow] = "GET"
            return e.response()
        }
        guard allowed(origin) != nil else {
            return APIError(
                .forbidden, parameter: "Origin", "\(origin.prefix(200)) may not call this server (--cors-origin)"
            ).response()
        }
        guard let asked = request[.accessControlRequestMethod], methods.map(\.rawValue).contains(asked) else {
            var e = APIError(
                .methodNotAllowed, parameter: "Access-Control-Request-Method", "only \(methodList) is served here")
            e.headers[.allow] = methodList + ", OPTIONS"
            return e.response()
        }
        var headers: HTTPFields = [:]
        headers[.accessControlAllowMethods] = methodList + ", OPTIONS"
        if let asked = request[.accessControlRequestHeaders] { headers[.accessControlAllowHeaders] = asked }
        headers[.accessControlMaxAge] = "600"
        headers[.contentLength] = "0"
        return Response(status: .noContent, headers: headers)
    }
}
