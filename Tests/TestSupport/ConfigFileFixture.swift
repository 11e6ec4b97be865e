import Foundation

/// A config file in a fresh temporary folder.
public struct ConfigFileFixture {
    /// The folder that holds only the file.
    public let folder: URL
    /// The file.
    public let path: String

    /// Writes `contents` to `warmer.EXTENSION` in a new folder.
    public init(_ contents: String, extension: String = "yaml") throws {
        folder = try TestEnvironment.temporaryDirectory("config")
        path = folder.appendingPathComponent("warmer.\(`extension`)").path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Removes the folder.
    public func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
