import PipelineEngine
import WarmerInput

/// What `ProcessingSpec(parsing:)` must do with any text: never crash; and
/// for a text it accepts, give a spec within the processing limits whose
/// `description` (the canonical form) parses again to an equal spec with
/// the same description.
public enum ProcessingSpecProperty {
    /// The violation for `input` (read as UTF-8), or nil.
    public static func violation(for input: [UInt8]) -> String? {
        let text = String(decoding: input, as: UTF8.self)
        let spec: ProcessingSpec
        do {
            spec = try ProcessingSpec(parsing: text)
        } catch {
            return error.description.hasPrefix("Invalid processing spec: ") ? nil : "unexpected error text: \(error)"
        }
        if let problem = ProcessingLimits.default.problem(with: spec.processors) {
            return "'\(text)' parses to a spec beyond the limits: \(problem)"
        }
        let canonical = spec.description
        do {
            let again = try ProcessingSpec(parsing: canonical)
            guard again == spec else { return "'\(text)' and its description '\(canonical)' parse to different specs" }
            guard again.description == canonical else {
                return "the description of '\(canonical)' is '\(again.description)'"
            }
        } catch {
            return "'\(text)' parses, but its description '\(canonical)' does not: \(error)"
        }
        return nil
    }
}
