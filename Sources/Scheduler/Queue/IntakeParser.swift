/// Parses large intake documents for a worker's claims, so that Redis never
/// decodes one in a single long call (docs/wire-format.md, "Large
/// documents"; `Queue/Lua/parsing.lua`). The Scheduler knows no document
/// rules of its own: the worker gives it a parser with the expansion's rules
/// (`IntakeDocument` in WarmerInput).
///
/// A queue whose configuration has a parser tells Redis so (the queue
/// context); its claims then lease it large documents, which it parses and
/// stages before the claim returns. Without one, Redis decodes every
/// document itself.
public struct IntakeParser: Sendable {
    /// A step of the parsing of one document, for `checkpoint`.
    public enum Step: Sendable, Equatable {
        /// The claim leased the document to this worker; nothing read yet.
        case leased
        /// A call pushed URLs: `pushed` of `count` are in Redis now.
        case pushed(Int, of: Int)
        /// Every URL is pushed (or the document is invalid); the last call comes next.
        case parsed
    }

    /// Parses a document as sent. Called off Redis, on the claiming task.
    public var parse: @Sendable (String) -> ParsedIntakeDocument
    /// URLs per push call (at most 1,000: a call stays well under a millisecond).
    public var pushSize: Int
    /// Called after each step (fault injection in tests: a worker that stops
    /// here forever is killed by its test at that step). Default: nothing.
    public var checkpoint: @Sendable (Step) async -> Void

    /// A parser that parses with `parse`.
    public init(pushSize: Int = 1000, parse: @escaping @Sendable (String) -> ParsedIntakeDocument) {
        self.parse = parse
        self.pushSize = min(1000, max(1, pushSize))
        self.checkpoint = { _ in }
    }
}
