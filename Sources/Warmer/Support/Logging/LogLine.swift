import Logging
import WarmerSupport

/// One log line, rendered as text or as a JSON object (see docs/operations.md, "Logs").
///
/// Metadata keys come in a fixed order, the ones an operator scans for first
/// (`worker`, `job`, `batch`, `url`, `code`, `attempt`), then the others
/// alphabetically, so lines of one kind always read alike. A rendered line
/// is a single line: line breaks inside a message or a value are escaped.
struct LogLine {
    let timestamp: String
    let level: Logger.Level
    let component: String
    let message: String
    let metadata: Logger.Metadata

    /// The keys listed first, in this order.
    static let leadingKeys = ["worker", "job", "batch", "url", "code", "attempt"]
    /// The fields every JSON line has; a metadata key with one of these
    /// names is written as `metadata.NAME`.
    static let reservedKeys: Set<String> = ["ts", "level", "component", "message"]

    /// The metadata in display order.
    var orderedMetadata: [(key: String, value: Logger.MetadataValue)] {
        let leading = Self.leadingKeys.compactMap { key in metadata[key].map { (key: key, value: $0) } }
        let rest = metadata.filter { !Self.leadingKeys.contains($0.key) }.sorted { $0.key < $1.key }
        return leading + rest.map { (key: $0.key, value: $0.value) }
    }

    // MARK: Text

    /// `TIME LEVEL [component] message key=value…`; a value with a space,
    /// a quote, an `=` or nothing in it is quoted.
    var text: String {
        var line = "\(timestamp) \(level.rawValue) [\(component)] \(Self.singleLine(message))"
        for (key, value) in orderedMetadata {
            line += " \(key)=\(Self.textValue(value))"
        }
        return line
    }

    private static func textValue(_ value: Logger.MetadataValue) -> String {
        let plain: String
        switch value {
        case .string(let string): plain = string
        case .stringConvertible(let convertible): plain = convertible.description
        case .array, .dictionary: plain = value.description
        }
        let needsQuotes = plain.isEmpty || plain.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }
        guard needsQuotes else { return plain }
        let escaped = plain.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"\(singleLine(escaped))\""
    }

    /// `text` with line breaks and other control characters escaped.
    private static func singleLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    // MARK: JSON

    /// `{"ts":…,"level":…,"component":…,"message":…, metadata…}`: the
    /// metadata is flattened into the object, after the four fixed fields.
    var json: String {
        var line = "{\"ts\":"
        JSONText.append(timestamp, to: &line)
        line += ",\"level\":"
        JSONText.append(level.rawValue, to: &line)
        line += ",\"component\":"
        JSONText.append(component, to: &line)
        line += ",\"message\":"
        JSONText.append(message, to: &line)
        for (key, value) in orderedMetadata {
            line += ","
            JSONText.append(Self.reservedKeys.contains(key) ? "metadata.\(key)" : key, to: &line)
            line += ":"
            Self.appendJSON(value, to: &line)
        }
        line += "}"
        return line
    }

    private static func appendJSON(_ value: Logger.MetadataValue, to line: inout String) {
        switch value {
        case .string(let string):
            JSONText.append(string, to: &line)
        case .stringConvertible(let convertible):
            JSONText.append(convertible.description, to: &line)
        case .array(let values):
            line += "["
            for (index, element) in values.enumerated() {
                if index > 0 { line += "," }
                appendJSON(element, to: &line)
            }
            line += "]"
        case .dictionary(let dictionary):
            line += "{"
            for (index, key) in dictionary.keys.sorted().enumerated() {
                if index > 0 { line += "," }
                JSONText.append(key, to: &line)
                line += ":"
                appendJSON(dictionary[key]!, to: &line)
            }
            line += "}"
        }
    }
}
