import Foundation
import Synchronization
@testable import Scheduler

/// A stand-in for the worker's intake document parser in the Scheduler's
/// own tests: Foundation's JSON, `urls` taken and every other field passed
/// through; text that is not JSON is `malformed_document` with the message
/// "not JSON: stand-in" (which Redis never words so). The rules themselves
/// are `IntakeDocument`'s, compared with Redis's by
/// IntakeDocumentDifferentialTests. It records what it saw: the documents
/// it parsed and the steps of the parsing it reached.
final class StandInIntakeParser: Sendable {
    /// How many documents it parsed.
    let parsed = Mutex(0)
    /// The steps the parsing reached, in order.
    let steps = Mutex<[IntakeParser.Step]>([])

    /// The parser, pushing `pushSize` URLs a call.
    func parser(pushSize: Int = 300) -> IntakeParser {
        var parser = IntakeParser(pushSize: pushSize) { [self] text in
            parsed.withLock { $0 += 1 }
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                  let urls = object["urls"] as? [String] else {
                return .invalid(code: "malformed_document", message: "not JSON: stand-in", batch: nil)
            }
            var fields = object
            fields["urls"] = nil
            let json = try? JSONSerialization.data(withJSONObject: fields)
            return .valid(urls: urls, fields: String(decoding: json ?? Data("{}".utf8), as: UTF8.self))
        }
        parser.checkpoint = { [self] step in steps.withLock { $0.append(step) } }
        return parser
    }
}
