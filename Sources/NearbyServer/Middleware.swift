import Foundation
import Hummingbird
import Logging

/// Every request's end: refuses over-long URLs (414), turns errors into JSON (404 unknown path, 405
/// wrong method on a known one, 400/409 bad input, 500 with no details), and writes one access-log
/// line with method, path, status and microseconds.
struct ServerMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxURLLength: Int
    /// Whether a path is one of the server's (so a 404 from the router means a wrong method).
    let isKnownPath: @Sendable (Substring) -> Bool
    /// Error bodies for paths with their own envelope (TourAPI).
    let errorResponse: @Sendable (Substring, APIError) -> Response

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let path = Substring(request.uri.path)
        var response: Response
        if request.uri.string.utf8.count > maxURLLength {
            response = errorResponse(path, APIError(.uriTooLong, "the URL is longer than \(maxURLLength) bytes"))
        } else {
            do {
                response = try await next(request, context)
            } catch let error as APIError {
                response = errorResponse(path, error)
            } catch let error as HTTPError where error.status == .notFound {
                if isKnownPath(path) {
                    response = errorResponse(path, APIError(.methodNotAllowed, "\(request.method) is not allowed here; use GET"))
                    response.headers[.allow] = "GET"
                } else {
                    response = errorResponse(path, APIError(.notFound, "no such path: \(path.prefix(200))"))
                }
            } catch let error as HTTPError {
                response = errorResponse(path, APIError(error.status, error.body ?? error.status.reasonPhrase))
            } catch {
                context.logger.error("request failed", metadata: ["path": "\(path.prefix(200))", "error": "\(error)"])
                response = errorResponse(path, APIError(.internalServerError, "internal error"))
            }
        }
        let micros = (ContinuousClock.now - start).components
        let us = micros.seconds * 1_000_000 + micros.attoseconds / 1_000_000_000_000
        context.logger.info("request", metadata: [
            "method": "\(request.method)", "path": "\(path.prefix(200))",
            "status": "\(response.status.code)", "us": "\(us)",
        ])
        return response
    }
}
