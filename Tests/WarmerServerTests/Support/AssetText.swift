/// The dashboard's asset files as text without their comments, for the
/// check that they reference no external URL: a `//` left after the
/// comments are gone (in code or in a string) is a URL of some kind.
enum AssetText {
    /// `text` without its comments: `<!-- … -->` for HTML, `/* … */` for CSS,
    /// and `/* … */` and `// …` outside string literals for JavaScript.
    static func withoutComments(_ text: String, fileExtension: String) -> String {
        switch fileExtension {
        case "html": return removing(text, from: "<!--", to: "-->")
        case "css": return removing(text, from: "/*", to: "*/")
        default: return withoutScriptComments(text)
        }
    }

    private static func removing(_ text: String, from open: String, to close: String) -> String {
        var rest = Substring(text)
        var kept = ""
        while let start = rest.range(of: open) {
            kept += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].range(of: close) else { return kept }
            rest = rest[end.upperBound...]
        }
        return kept + rest
    }

    /// JavaScript: quotes (`'`, `"`, `` ` ``) open strings, whose escapes are
    /// skipped; `//` and `/*` outside them open comments.
    private static func withoutScriptComments(_ text: String) -> String {
        let characters = Array(text)
        var kept: [Character] = []
        var index = 0
        var quote: Character?
        while index < characters.count {
            let character = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if let open = quote {
                kept.append(character)
                if character == "\\", let next {
                    kept.append(next)
                    index += 2
                    continue
                }
                if character == open { quote = nil }
                index += 1
            } else if character == "/" && next == "/" {
                while index < characters.count && characters[index] != "\n" { index += 1 }
            } else if character == "/" && next == "*" {
                index += 2
                while index + 1 < characters.count && !(characters[index] == "*" && characters[index + 1] == "/") { index += 1 }
                index += 2
            } else {
                if character == "\"" || character == "'" || character == "`" { quote = character }
                kept.append(character)
                index += 1
            }
        }
        return String(kept)
    }
}
