extension IntakeDocument {
    /// The document without its URLs, as a JSON object: what a worker that
    /// parsed a large document sends Redis with its URLs (docs/wire-format.md,
    /// "Large documents"), e.g. `{"v":1,"batch":"b","total":20000}`. Redis
    /// checks these fields again with the expansion's rules, so a field
    /// added to the document is added here too.
    public var fieldsJSON: String {
        var fields = [#""v":1"#]
        func add(_ name: String, _ value: String?) {
            if let value { fields.append("\"\(name)\":" + Self.jsonString(value)) }
        }
        add("batch", batch)
        add("priority", priority)
        add("group", group)
        add("destination", destination)
        add("processing", processing)
        if let total { fields.append("\"total\":\(total)") }
        if let timeout { fields.append("\"timeout\":\(timeout)") }
        if let freshFor { fields.append("\"freshFor\":\(freshFor)") }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// The batch an intake document names when the id is usable (1–128
    /// characters from letters, digits, `.`, `_`, `-`), valid or not: the
    /// expansion also publishes the `deadLettered` event of a refused
    /// document in that batch. `nil` for text that is not a JSON object.
    public static func namedBatch(in document: [UInt8]) -> String? {
        guard let value = try? CJSONDecoder.decode(document), case .string(let id)? = value.field("batch"),
              !id.isEmpty, id.count <= maxBatchLength, id.allSatisfy(isBatchIDByte) else { return nil }
        return String(decoding: id, as: UTF8.self)
    }

    /// `text` as a JSON string: quotes, backslashes and control characters
    /// escaped, everything else as is (UTF-8).
    private static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\u{00}"..."\u{1F}": result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
