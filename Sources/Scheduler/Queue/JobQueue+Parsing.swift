import Logging
import RedisKit

extension JobQueue {
    /// Parses, then stages or dead-letters, each large intake document a
    /// claim or finish leased to this client (`Queue/Lua/parsing.lua`;
    /// docs/wire-format.md, "Large documents"). A failure is logged, not
    /// thrown: the claim itself succeeded, and the document stays leased
    /// until its lease expires and another claim takes it over.
    func parseLeasedDocuments(_ housekeeping: QueueHousekeeping) async {
        guard let parser = configuration.intakeParser else { return }
        for token in housekeeping.parsingLeases {
            do {
                try await parseLargeDocument(leasedAs: token, with: parser)
            } catch {
                logger.warning("could not finish parsing a large intake document; a claim takes it over once its lease expires",
                               metadata: ["error": "\(error)"])
            }
        }
    }

    /// Parses the document leased as `token`, pushes its URLs in calls of
    /// `parser.pushSize` (parse-push.lua) and ends it (parse-end.lua). Every
    /// call checks the lease, so a worker that lost it changes nothing.
    private func parseLargeDocument(leasedAs token: String, with parser: IntakeParser) async throws(SchedulerError) {
        await parser.checkpoint(.leased)
        let document = try await send(["GET", keys.parsingDocument]).string ?? ""
        // RedisKit reads replies as UTF-8, bytes that are not UTF-8 as
        // U+FFFD: a document holding U+FFFD may not be the bytes sent, so
        // Redis expands it itself (one call, as when it parsed everything).
        guard !document.unicodeScalars.contains("\u{FFFD}") else {
            await parser.checkpoint(.parsed)
            return try await endParsing(leasedAs: token, ["expand"])
        }
        switch parser.parse(document) {
        case .invalid(let code, let message, let batch):
            await parser.checkpoint(.parsed)
            try await endParsing(leasedAs: token, ["refuse", code, message, batch ?? ""])
        case .valid(let urls, let fields):
            var offset = 0
            while offset < urls.count {
                let end = min(urls.count, offset + parser.pushSize)
                try await run(QueueScripts.parsePush, [token, String(offset)] + urls[offset..<end])
                offset = end
                await parser.checkpoint(.pushed(offset, of: urls.count))
            }
            await parser.checkpoint(.parsed)
            try await endParsing(leasedAs: token, ["accept", fields, String(urls.count)])
        }
        logger.debug("large intake document parsed", metadata: ["bytes": .stringConvertible(document.utf8.count)])
    }

    private func endParsing(leasedAs token: String, _ verdict: [String]) async throws(SchedulerError) {
        let reply = try await run(QueueScripts.parseEnd, [token] + verdict).array
        QueueHousekeeping(reply.first).log(to: logger)
    }
}
