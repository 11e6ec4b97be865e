/// JSON string literals written by hand (RFC 8259): the one escaper of the
/// package, for the JSON lines written on hot paths (the queue's events,
/// which `warmer watch --json` follows on a busy queue, and log lines), where
/// `JSONEncoder` or `JSONSerialization` is several times slower.
///
/// Quotes and backslashes are escaped, `\n`, `\r` and `\t` by name, the other
/// control characters as `\u00XX`; everything else is written as it is (UTF-8).
/// (WarmerInput writes its own: the fuzz build compiles it without this module.)
package enum JSONText {
    /// `text` as a JSON string literal, quotes included.
    package static func quoted(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count + 2)
        append(text, to: &result)
        return result
    }

    /// Appends `text` as a JSON string literal, quotes included, to `line`.
    package static func append(_ text: String, to line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }
}
