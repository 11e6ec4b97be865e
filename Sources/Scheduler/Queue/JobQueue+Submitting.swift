import DigestKit
import Foundation
import RedisKit

extension JobQueue {
    /// What `submit` did with a document.
    public struct Submission: Sendable, Hashable {
        /// The batch the URLs went to.
        public var batch: String
        /// Jobs created by the call (URLs that joined live work are not new).
        public var newJobs: Int
        /// Whether the same document had been accepted for this batch
        /// before, so that nothing was enqueued this time.
        public var replayed: Bool
        /// URLs of the document that are to become jobs over the next
        /// claims: a document of more than 50 URLs is staged whole and
        /// becomes jobs a slice per claim, so that no call holds Redis for
        /// long. They count in the batch's total already.
        public var staged: Int
        /// URLs counted as completed at once because their work completed
        /// within the document's `freshFor` (its first slice only: staged
        /// URLs are checked as they become jobs).
        public var recent: Int
    }

    /// Enqueues an intake document (docs/wire-format.md, "Producing") in one
    /// atomic step (staged to become jobs over the next claims when it
    /// holds more than 50 URLs), with the rules and texts of the intake
    /// list: what the list would dead-letter is refused here with
    /// `SchedulerError.invalidDocument` and the same code and message.
    ///
    /// A document of more than 32 KiB is parsed here, off Redis, when the
    /// configuration has an `intakeParser` (as a worker's large intake
    /// documents are): its URLs are pushed in calls of the parser's
    /// `pushSize` (submit-push.lua) and one last call checks its fields,
    /// counts it and stages it. Without a parser, Redis decodes it in the
    /// one call (about 10 ms for 10,000 URLs).
    ///
    /// A document that names its batch is accepted once: sending the very
    /// same bytes again (a client retrying after a lost answer) returns the
    /// batch with `replayed` and enqueues nothing. Parts of a batch sent
    /// with `total` differ, so each is accepted once.
    ///
    /// - Parameter fallbackBatch: the batch id when the document names none.
    public func submit(document: [UInt8], fallbackBatch: String = JobQueue.makeBatchID()) async throws(SchedulerError) -> Submission {
        let digest = MessageDigest.sha256(document).hexString
        var arguments = [String(decoding: document, as: UTF8.self), fallbackBatch, digest]
        // Text that is not UTF-8 is left to Redis, which reads bytes as they are.
        if let parser = configuration.intakeParser, document.count > Self.largeDocumentBytes,
           let text = String(validating: document, as: UTF8.self) {
            switch parser.parse(text) {
            case .invalid(let code, let message, _):
                throw .invalidDocument(code: code, message: message)
            case .valid(let urls, let fields):
                let token = UUID().uuidString.lowercased()
                try await pushSubmitted(urls, as: token, pushSize: parser.pushSize)
                arguments = [fields, fallbackBatch, digest, String(urls.count), token]
            }
        }
        let reply: RedisReply
        do {
            reply = try await run(QueueScripts.submit, arguments)
        } catch .redis(.server(let text)) where text.hasPrefix("MALFORMED_DOCUMENT ") || text.hasPrefix("INVALID_DOCUMENT ") {
            let space = text.firstIndex(of: " ") ?? text.endIndex
            let code = text[..<space].lowercased()
            throw .invalidDocument(code: code, message: String(text[space...].dropFirst()))
        }
        let fields = reply.array
        guard fields.count == 5, let batch = fields[0].string else {
            throw .redis(.unexpectedReply("submit: \(reply)"))
        }
        return Submission(batch: batch, newJobs: fields[1].integer ?? 0, replayed: fields[2].integer == 1,
                          staged: fields[3].integer ?? 0, recent: fields[4].integer ?? 0)
    }

    /// The size above which a client with an `intakeParser` parses a
    /// document itself: parsing.lua's LARGE_DOCUMENT_BYTES, the size
    /// above which a worker's claim leaves an intake document to it.
    static let largeDocumentBytes = 32_768

    /// Pushes the URLs of a document parsed for `submit`, `pushSize` a call,
    /// to the list of submission `token`.
    private func pushSubmitted(_ urls: [String], as token: String, pushSize: Int) async throws(SchedulerError) {
        var offset = 0
        while offset < urls.count {
            let end = min(urls.count, offset + pushSize)
            try await run(QueueScripts.submitPush, [token, String(offset)] + urls[offset..<end])
            offset = end
        }
    }
}
