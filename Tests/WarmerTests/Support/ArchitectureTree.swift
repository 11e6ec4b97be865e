/// The folder tree of docs/architecture.md ("Modules"): a fenced block whose
/// first line is `Sources/`. Each line names one or more folders (words
/// ending in `/`, before the two spaces that start the description), and its
/// indentation says which folder above it contains them; lines that only
/// continue a description name no folder.
enum ArchitectureTree {
    /// The folders the tree lists below `Sources/`, as
    /// `Sources/PipelineEngine/Vips`; empty when the document has no tree.
    static func sourceFolders(in document: String) -> Set<String> {
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let fence = lines.indices.first(where: { lines[$0] == "```" && $0 + 1 < lines.count && lines[$0 + 1] == "Sources/" })
        else { return [] }
        var folders: Set<String> = []
        var parents: [(indentation: Int, path: String)] = []
        for line in lines[(fence + 1)...] {
            if line.hasPrefix("```") { break }
            let indentation = line.prefix { $0 == " " }.count
            if indentation == 0 && line != "Sources/" { break }
            let names = namedFolders(line)
            guard !names.isEmpty else { continue }
            while let last = parents.last, last.indentation >= indentation { parents.removeLast() }
            let parent = parents.last.map { $0.path + "/" } ?? ""
            for name in names where indentation > 0 {
                folders.insert(parent + name)
            }
            parents.append((indentation, parent + names[names.count - 1]))
        }
        return folders
    }

    /// The folders a line names (without their slashes), or none when the
    /// line only continues a description.
    private static func namedFolders(_ line: String) -> [String] {
        let trimmed = line.drop { $0 == " " }
        let column = trimmed.range(of: "  ").map { trimmed[..<$0.lowerBound] } ?? trimmed
        let words = column.split(separator: " ")
        guard !words.isEmpty, words.allSatisfy({ $0.count > 1 && $0.hasSuffix("/") }) else { return [] }
        return words.map { String($0.dropLast()) }
    }
}
