import Foundation
import Scheduler
import WarmerInput

extension IntakeParser {
    /// The worker's parser of large intake documents: `IntakeDocument`, the
    /// expansion's rules and texts in Swift (docs/wire-format.md, "Large
    /// documents").
    ///
    /// `WARMER_TEST_HALT_PARSING` (tests only) stops the parsing for good at
    /// one step — `leased`, `pushed-N` (after N URLs) or `parsed` — so that a
    /// test can kill the worker there; the claim that leased the document
    /// never returns.
    package static func intakeDocuments(environment: [String: String] = ProcessInfo.processInfo.environment) -> IntakeParser {
        var parser = IntakeParser { text in
            let bytes = Array(text.utf8)
            do throws(IntakeDocumentError) {
                let document = try IntakeDocument(parsing: bytes)
                return .valid(urls: document.urls, fields: document.fieldsJSON)
            } catch {
                return .invalid(code: error.code, message: error.message, batch: IntakeDocument.namedBatch(in: bytes))
            }
        }
        if let halt = environment["WARMER_TEST_HALT_PARSING"], !halt.isEmpty {
            parser.checkpoint = { (step: IntakeParser.Step) in
                guard step.testName == halt else { return }
                FileHandle.standardError.write(Data("halted for a test: parsing, \(halt)\n".utf8))
                while true { try? await Task.sleep(for: .seconds(3600)) }
            }
        }
        return parser
    }
}

extension IntakeParser.Step {
    /// The step's name in `WARMER_TEST_HALT_PARSING`.
    var testName: String {
        switch self {
        case .leased: "leased"
        case .pushed(let pushed, _): "pushed-\(pushed)"
        case .parsed: "parsed"
        }
    }
}
