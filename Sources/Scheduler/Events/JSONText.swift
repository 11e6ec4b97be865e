/// Minimal JSON string encoding for event lines.
///
/// Events are flat maps of short strings; encoding them by hand is several
/// times faster than `JSONSerialization`, which matters to `warmer watch
/// --json` following a busy queue.
enum JSONText {
    /// `text` as a JSON string literal, quotes included.
    static func quoted(_ text: String) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
