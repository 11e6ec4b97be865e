@testable import PipelineEngine

extension ImageTask {
    /// Waits for the task's first progress event; `nil` if it ended without one.
    func firstProgress() async -> Int64? {
        for await event in events {
            if case .progress(let completed, _) = event, completed > 0 { return completed }
        }
        return nil
    }
}
