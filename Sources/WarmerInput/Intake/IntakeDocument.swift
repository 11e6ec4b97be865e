/// An intake document (docs/wire-format.md, "Producing"), parsed and
/// validated with the rules and the error texts of the Lua that expands it
/// in Redis (`documentProblem` in the Scheduler's work library): a document
/// this type refuses is the one Redis dead-letters, with the same `error`
/// and `message`; one it accepts, Redis expands. (Except for Redis refusing
/// a valid document's expansion because of what its keys hold, e.g. a batch
/// key overwritten with a string: the document is then dead-lettered with
/// Redis's error. And the text `wake` is the idle workers' wake-up marker,
/// never taken for a document.)
///
/// ```json
/// {"v":1,"batch":"catalog-2026-11-22","urls":["https://img.example.com/a.jpg"],"priority":"high"}
/// ```
///
/// The JSON is decoded as Redis's Lua decodes it (`CJSONDecoder`), so the
/// field values are those the expansion sees.
public struct IntakeDocument: Sendable, Hashable {
    /// The URLs, 1 to `maxURLCount`, each 1 to `maxURLLength` bytes (invalid
    /// UTF-8 is read as U+FFFD here; the expansion keeps the bytes).
    public var urls: [String]
    /// The batch id (1–128 characters from letters, digits, `.`, `_`, `-`);
    /// `nil`: the expansion names the batch `intake-N`.
    public var batch: String?
    /// `veryLow`, `low`, `normal`, `high` or `veryHigh`; `nil` for `normal`.
    public var priority: String?
    /// The group the batch's new jobs are queued in (a tenant, a service:
    /// groups of one priority are served round-robin), with the rule of
    /// `batch`; `nil`: the batch is a group of its own.
    public var group: String?
    /// `disk` or `processed`; `nil` for `disk`.
    public var destination: String?
    /// The processing spec, at most 1,024 bytes (parsed by the worker, not here).
    public var processing: String?
    /// The URLs of the whole batch over all its documents: from `urls.count`
    /// to `maxTotal`.
    public var total: Int?
    /// Each job's time limit in seconds, 1 to `maxTimeout`.
    public var timeout: Int?
    /// Seconds, 0 to `maxFreshFor`: a URL whose work any worker completed
    /// this recently counts as completed at once, without a job.
    public var freshFor: Int?

    /// The most URLs in one document.
    public static let maxURLCount = 10_000
    /// The longest URL, in bytes.
    public static let maxURLLength = 8192
    /// The longest batch id, in bytes.
    public static let maxBatchLength = 128
    /// The longest processing spec, in bytes.
    public static let maxProcessingLength = 1024
    /// The largest `total`: 2^53 − 1, the largest integer every JSON reader holds exactly.
    public static let maxTotal = 9_007_199_254_740_991
    /// The longest `timeout`: a day, in seconds.
    public static let maxTimeout = 86_400
    /// The longest `freshFor`: 30 days, in seconds.
    public static let maxFreshFor = 2_592_000
    /// The priorities a document may name.
    public static let priorities: Set<String> = ["veryLow", "low", "normal", "high", "veryHigh"]

    /// Parses and validates a document as the intake expansion does.
    /// - Throws: `IntakeDocumentError` with the dead letter's code and message.
    public init(parsing document: [UInt8]) throws(IntakeDocumentError) {
        let value: CJSONValue
        do {
            value = try CJSONDecoder.decode(document)
        } catch {
            throw .malformed(error.message)
        }
        self = try Self.validated(value)
    }

    /// Parses and validates the UTF-8 of `document`.
    public init(parsing document: String) throws(IntakeDocumentError) {
        try self.init(parsing: Array(document.utf8))
    }

    /// The document `value` describes, or the first rule it breaks, checked
    /// in the Lua's order with the Lua's words.
    private static func validated(_ value: CJSONValue) throws(IntakeDocumentError) -> IntakeDocument {
        guard value.isTable else { throw .invalid("the document is not a JSON object") }
        guard value.field("v") == .number(1) else {
            throw .invalid(#"unsupported or missing version "v" (expected the number 1)"#)
        }
        // `#d.urls` is 0 for an object: its keys are strings.
        guard case .array(let elements)? = value.field("urls"), !elements.isEmpty else {
            throw .invalid(#""urls" must be a non-empty array of strings"#)
        }
        guard elements.count <= maxURLCount else { throw .invalid("more than \(maxURLCount) URLs; split the batch") }
        var urls: [String] = []
        urls.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .string(let url) = element, !url.isEmpty, url.count <= maxURLLength else {
                throw .invalid("urls[\(index)] is not a URL string")
            }
            urls.append(String(decoding: url, as: UTF8.self))
        }
        var document = IntakeDocument(urls: urls)
        if let batch = value.field("batch") {
            guard case .string(let id) = batch, !id.isEmpty, id.count <= maxBatchLength, id.allSatisfy(isBatchIDByte) else {
                throw .invalid(#""batch" must be 1-128 characters from letters, digits, . _ -"#)
            }
            document.batch = String(decoding: id, as: UTF8.self)
        }
        if let priority = value.field("priority") {
            guard case .string(let name) = priority, priorities.contains(String(decoding: name, as: UTF8.self)) else {
                throw .invalid(#"unknown "priority""#)
            }
            document.priority = String(decoding: name, as: UTF8.self)
        }
        if let group = value.field("group") {
            guard case .string(let name) = group, !name.isEmpty, name.count <= maxBatchLength, name.allSatisfy(isBatchIDByte) else {
                throw .invalid(#""group" must be 1-128 characters from letters, digits, . _ -"#)
            }
            document.group = String(decoding: name, as: UTF8.self)
        }
        if let destination = value.field("destination") {
            guard case .string(let name) = destination, name == Array("disk".utf8) || name == Array("processed".utf8) else {
                throw .invalid(#""destination" must be "disk" or "processed""#)
            }
            document.destination = String(decoding: name, as: UTF8.self)
        }
        if let processing = value.field("processing") {
            guard case .string(let spec) = processing, spec.count <= maxProcessingLength else {
                throw .invalid(#""processing" must be a string"#)
            }
            document.processing = String(decoding: spec, as: UTF8.self)
            guard document.destination == "processed" else {
                throw .invalid(#""processing" is only for "destination": "processed" (a disk job is never decoded)"#)
            }
        }
        if let total = value.field("total") {
            guard let count = integer(total, from: urls.count, to: maxTotal) else {
                throw .invalid(#""total" must be an integer from the number of URLs to "# + String(maxTotal))
            }
            document.total = count
        }
        if let timeout = value.field("timeout") {
            guard let seconds = integer(timeout, from: 1, to: maxTimeout) else {
                throw .invalid(#""timeout" must be an integer number of seconds from 1 to "# + String(maxTimeout))
            }
            document.timeout = seconds
        }
        if let freshFor = value.field("freshFor") {
            guard let seconds = integer(freshFor, from: 0, to: maxFreshFor) else {
                throw .invalid(#""freshFor" must be an integer number of seconds from 0 to "# + String(maxFreshFor))
            }
            document.freshFor = seconds
        }
        return document
    }

    private init(urls: [String]) {
        self.urls = urls
    }

    /// The integer a JSON number holds, when it is one from `low` to `high`
    /// (`3`, `3.0` and `3e0` are 3; NaN and infinities are not integers).
    private static func integer(_ value: CJSONValue, from low: Int, to high: Int) -> Int? {
        guard case .number(let number) = value, number >= Double(low), number <= Double(high),
              number == number.rounded(.down) else { return nil }
        return Int(exactly: number)
    }

    /// Lua's `[%w%._%-]` in the C locale: ASCII letters and digits, `.`, `_`, `-`.
    static func isBatchIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"): true
        default: false
        }
    }
}
