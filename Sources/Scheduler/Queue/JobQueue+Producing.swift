import Foundation

extension JobQueue {
    /// Adds `urls` as jobs of a batch and returns the batch id.
    ///
    /// A URL whose work (same URL, destination and processing) is already
    /// queued or running for another batch is not queued again: the running
    /// job counts in this batch too, at the higher of the two priorities.
    /// Large batches go in chunks of `enqueueChunkSize`; the batch's total
    /// grows by the whole count with the first, so it cannot finish early.
    ///
    /// - Parameter batchID: a batch to create or append to; a new random id when `nil`.
    public func enqueue(
        urls: [String], priority: JobPriority = .normal, destination: JobDestination = .disk,
        processing: String = "", batchID: String? = nil
    ) async throws(SchedulerError) -> String {
        guard !urls.isEmpty else { throw .emptyBatch }
        let batch = batchID ?? Self.makeBatchID()
        guard Self.isValidBatchID(batch) else { throw .invalidBatchID(batch) }
        var start = 0
        while start < urls.count {
            let end = min(start + configuration.enqueueChunkSize, urls.count)
            let total = start == 0 ? urls.count : 0
            try await run(enqueueScript, [batch, priority.rawValue, destination.rawValue, processing, String(total)] + urls[start..<end])
            start = end
        }
        return batch
    }

    /// A new batch id: 16 lowercase hex characters.
    public static func makeBatchID() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))
    }

    /// Whether `id` can name a batch: 1–128 characters from letters, digits, `.`, `_`, `-`.
    public static func isValidBatchID(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }
}
