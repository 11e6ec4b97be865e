import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import Scheduler

/// Turns every error a route throws into an `application/problem+json`
/// answer (`Problem`): the API's own problems as they are, the Scheduler's
/// errors by their meaning, Hummingbird's (no route, body too large) by
/// their status, a malformed request (a broken chunk size) as a 400, anything else as a 500 that is logged and says nothing
/// of its cause.
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    /// The body limit, for the 413's text.
    let maxBody: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let problem = problem(for: error, path: request.uri.path, logger: context.logger)
            return problem.response(instance: request.uri.path)
        }
    }

    private func problem(for error: any Error, path: String, logger: Logger) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let error as SchedulerError:
            return Self.problem(for: error)
        case is NIOTooManyBytesError:
            return .bodyTooLarge(limit: maxBody)
        case let error as HTTPParserError:
            // The client sent broken HTTP (a malformed chunk size): its fault, not ours.
            logger.debug("malformed request", metadata: ["path": "\(path)", "error": "\(error)"])
            return .badRequest("the request is not valid HTTP/1.1 (\(error))")
        case let error as HTTPError:
            switch error.status {
            case .notFound: return .notFound(path)
            case .contentTooLarge: return .bodyTooLarge(limit: maxBody)
            case .methodNotAllowed:
                return Problem("method_not_allowed", .methodNotAllowed, "The method is not allowed here",
                               detail: error.body, headers: error.headers)
            default:
                return Problem("http_\(error.status.code)", error.status, error.status.reasonPhrase, detail: error.body)
            }
        default:
            logger.error("request failed", metadata: ["path": "\(path)", "error": "\(error)"])
            return Problem("internal_error", .internalServerError, "The server failed to answer",
                           detail: "the error is in the server's log")
        }
    }

    /// What a Scheduler error means to an API caller.
    static func problem(for error: SchedulerError) -> Problem {
        switch error {
        case .batchNotFound(let id):
            return Problem("batch_not_found", .notFound, "No such batch", detail: "batch \(id) does not exist (or its retention ended)")
        case .invalidQueueName, .invalidBatchID, .invalidTimeout, .invalidFreshFor, .emptyBatch, .invalidCursor:
            return Problem("bad_request", .badRequest, "The request is malformed", detail: error.description)
        case .redis:
            return Problem("redis_unavailable", .serviceUnavailable, "Redis did not answer",
                           detail: error.description, headers: [.retryAfter: "1"])
        default:
            return Problem("queue_error", .serviceUnavailable, "The queue could not do it", detail: error.description,
                           headers: [.retryAfter: "1"])
        }
    }
}
