import Foundation
import Synchronization

/// One request running in an `ImagePipeline`.
///
/// Observe it through `events` (one consumer), wait for `response`, or
/// `cancel()` it. Work shared with other tasks (one download for identical
/// URLs) stops only when every task that needs it is cancelled.
public final class ImageTask: Sendable, Identifiable {
    /// The task's identity, unique within the process.
    public let id: UInt64
    /// The request the task runs.
    public let request: ImageRequest
    /// The task's lifecycle, as in Nuke 10: `started`, `progress`…, then
    /// `completed` or `cancelled`, after which the stream ends.
    public let events: AsyncStream<Event>

    private let work = Mutex<Task<Result<ImageResponse, ImagePipelineError>, Never>?>(nil)

    /// A lifecycle event.
    public enum Event: Sendable {
        /// The pipeline began work on the task.
        case started
        /// Bytes received so far, and the expected total when known.
        case progress(completed: Int64, total: Int64?)
        /// The task was cancelled; nothing follows.
        case cancelled
        /// The task finished with a response or an error; nothing follows.
        case completed(Result<ImageResponse, ImagePipelineError>)
    }

    init(id: UInt64, request: ImageRequest, events: AsyncStream<Event>) {
        self.id = id
        self.request = request
        self.events = events
    }

    func attach(_ task: Task<Result<ImageResponse, ImagePipelineError>, Never>) {
        work.withLock { $0 = task }
    }

    /// Cancels the task. Shared work continues while other tasks need it.
    public func cancel() {
        work.withLock { $0 }?.cancel()
    }

    /// Waits for the task to finish and returns its outcome.
    public var result: Result<ImageResponse, ImagePipelineError> {
        get async {
            guard let task = work.withLock({ $0 }) else { return .failure(.cancelled) }
            return await task.value
        }
    }

    /// Waits for the task to finish. Throws `ImagePipelineError.cancelled` when cancelled.
    public var response: ImageResponse {
        get async throws(ImagePipelineError) {
            try await result.get()
        }
    }
}
