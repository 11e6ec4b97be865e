import Foundation

/// The repository's own files, as the docs tests read them: its root (found
/// from this source file's path), its folders, and the files git tracks.
public enum RepositoryFiles {
    /// The repository's root folder.
    public static var root: URL { TestEnvironment.repositoryRoot }

    /// Why the repository's files could not be listed.
    public struct ListingError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The text of the file at `path`, relative to the root.
    public static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Every folder below `path` (at any depth), relative to the root, as
    /// `Sources/PipelineEngine/Vips`.
    public static func folders(under path: String) throws -> Set<String> {
        let base = root.appendingPathComponent(path)
        guard let enumerator = FileManager.default.enumerator(
            at: base, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles]
        ) else {
            throw ListingError(description: "cannot list \(base.path)")
        }
        var folders: Set<String> = []
        for case let url as URL in enumerator where try url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory == true {
            folders.insert(path + "/" + relativePath(of: url, below: base))
        }
        return folders
    }

    /// The paths, relative to the root, of the files git tracks (`git ls-files`).
    public static func tracked() throws -> [String] {
        let git = try ChildProcess("/usr/bin/env", ["git", "-C", root.path, "ls-files", "-z"], standardOutput: .pipe)
        let data = git.standardOutput?.readDataToEndOfFile() ?? Data()
        let exit = git.waitUntilExit()
        guard exit.status == 0, exit.exited else { throw ListingError(description: "git ls-files exited \(exit.status)") }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `url`'s path below `base`, without a leading or trailing slash.
    private static func relativePath(of url: URL, below base: URL) -> String {
        let components = url.standardizedFileURL.pathComponents
        let baseComponents = base.standardizedFileURL.pathComponents
        return components.dropFirst(baseComponents.count).joined(separator: "/")
    }
}
