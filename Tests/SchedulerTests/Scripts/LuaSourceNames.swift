import Foundation

/// The names a Lua source defines at its top level and the names its code
/// uses, read the simple way the queue's `.lua` files allow: comments and
/// string literals are dropped (the files use no long brackets), a top-level
/// definition is a line starting with `local` (`local function f`,
/// `local A, B = …`), and a use is any name not reached through `.` or `:`.
struct LuaSourceNames {
    /// The names defined at the top level.
    let defined: Set<String>
    /// The names used anywhere in the code, its own included.
    let used: Set<String>

    init(_ source: String) {
        let code = Self.code(of: source)
        var defined: Set<String> = []
        for line in code.split(separator: "\n") where line.hasPrefix("local ") {
            let rest = line.dropFirst("local ".count)
            if rest.hasPrefix("function ") {
                defined.insert(String(rest.dropFirst("function ".count).prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
            } else if let equals = rest.firstIndex(of: "=") {
                for name in rest[..<equals].split(separator: ",") {
                    defined.insert(name.trimmingCharacters(in: .whitespaces))
                }
            }
        }
        self.defined = defined
        used = Self.names(in: code)
    }

    /// `source` without its comments and with every string literal replaced by a space.
    private static func code(of source: String) -> String {
        var code = ""
        var characters = Array(source)[...]
        while let character = characters.first {
            if character == "-", characters.dropFirst().first == "-" {
                characters = characters.drop { $0 != "\n" }
            } else if character == "'" || character == "\"" {
                characters.removeFirst()
                while let next = characters.popFirst(), next != character {
                    if next == "\\" { _ = characters.popFirst() }
                }
                code.append(" ")
            } else {
                code.append(characters.removeFirst())
            }
        }
        return code
    }

    /// The names in `code` not reached through `.` (a field; `..` is a
    /// concatenation) or `:` (a method), numbers left out.
    private static func names(in code: String) -> Set<String> {
        let characters = Array(code)
        func isWord(_ character: Character) -> Bool { character.isLetter || character.isNumber || character == "_" }
        var names: Set<String> = []
        var index = 0
        while index < characters.count {
            guard isWord(characters[index]) else {
                index += 1
                continue
            }
            let start = index
            while index < characters.count, isWord(characters[index]) { index += 1 }
            if characters[start].isNumber { continue }
            let previous = start > 0 ? characters[start - 1] : " "
            let field = previous == ":" || (previous == "." && !(start > 1 && characters[start - 2] == "."))
            if !field { names.insert(String(characters[start..<index])) }
        }
        return names
    }
}
