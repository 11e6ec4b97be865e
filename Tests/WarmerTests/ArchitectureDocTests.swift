import Foundation
import Testing
import TestSupport

/// docs/architecture.md's folder tree is the tree: every folder under
/// Sources/ is listed, and every folder listed exists. Folders, not files,
/// so the document names what each folder holds without listing every file.
@Suite("Architecture doc")
struct ArchitectureDocTests {
    @Test func theTreeListsEveryFolderUnderSourcesAndNoOther() throws {
        // Given the folders the document lists and the folders on disk
        let listed = ArchitectureTree.sourceFolders(in: try RepositoryFiles.text("docs/architecture.md"))
        let actual = try RepositoryFiles.folders(under: "Sources")
        #expect(actual.contains("Sources/CurlKit"))
        // Then they are the same
        #expect(actual.subtracting(listed).sorted() == [], "folders under Sources/ that docs/architecture.md does not list")
        #expect(listed.subtracting(actual).sorted() == [], "folders docs/architecture.md lists that do not exist")
    }

    @Test func theTreeIsReadByIndentationAndSeveralFoldersMayShareALine() {
        // Given a tree with a shared line, nesting two deep, and a description
        // that continues on its own line
        let document = """
            # Title

            ```
            Sources/
              A/ B/                 two targets
              Engine/               the engine
                Curl/               libcurl
                  Shims/            nested
                                    a continued description/ with a slash
                Vips/               libvips
              Tool/                 the tool
            Tests/
              Ignored/              not under Sources/
            ```
            """
        // Then every folder below Sources/ is read, with its parents
        #expect(ArchitectureTree.sourceFolders(in: document) == [
            "Sources/A", "Sources/B", "Sources/Engine", "Sources/Engine/Curl", "Sources/Engine/Curl/Shims",
            "Sources/Engine/Vips", "Sources/Tool",
        ])
    }
}
