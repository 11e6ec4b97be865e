import WarmerInput

/// What URL validation must do with any bytes: never crash; wherever
/// `URLList.quickVerdict` gives a verdict, it is `URLComponents`' verdict
/// (`URLList.fullVerdict`); and `URLList(bytes:)` sorts every line it keeps
/// by `isValid`, numbering lines from 1 in order.
public enum URLListProperty {
    /// The violation for `input`, or nil.
    public static func violation(for input: [UInt8]) -> String? {
        let text = String(decoding: input, as: UTF8.self)
        if let problem = verdictProblem(text) { return problem }
        let list = URLList(bytes: input)
        let lineCount = input.split(separator: 0x0A, omittingEmptySubsequences: false).count
        for url in list.urls {
            guard URLList.isValid(url) else { return "a kept URL is not valid: \(url.debugDescription)" }
            if let problem = verdictProblem(url) { return problem }
        }
        var previous = 0
        for line in list.invalidLines {
            guard !URLList.isValid(line.text) else { return "a refused line is valid: \(line.text.debugDescription)" }
            guard line.number > previous, line.number <= lineCount else {
                return "line number \(line.number) after \(previous), of \(lineCount) lines"
            }
            previous = line.number
            if let problem = verdictProblem(line.text) { return problem }
        }
        return nil
    }

    private static func verdictProblem(_ text: String) -> String? {
        guard let quick = URLList.quickVerdict(text) else { return nil }
        let full = URLList.fullVerdict(text)
        return quick == full ? nil : "quickVerdict says \(quick), URLComponents \(full): \(text.debugDescription)"
    }
}
