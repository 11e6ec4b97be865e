import Foundation
import Testing
import TestSupport

/// The repository stands alone: no tracked file points at notes outside it
/// (the project's shared design notes); what the code and docs rely on from
/// them is in docs/, such as docs/nuke-behaviour.md.
@Suite("Self-contained repository")
struct SelfContainedRepositoryTests {
    /// What a citation of the outside notes contains. Written in pieces so
    /// that this file does not cite them itself.
    static let outsidePaths = [".." + "/shared", "/work" + "/shared", "NUKE-" + "BEHAVIOUR.md", "DESIGN" + ".md"]

    @Test func noTrackedFileCitesTheNotesOutsideTheRepository() throws {
        // Given every tracked file
        let files = try RepositoryFiles.tracked()
        #expect(files.contains("README.md") && files.contains("Package.swift"))
        // Then none mentions an outside path
        var citing: [String] = []
        for path in files {
            guard let data = FileManager.default.contents(atPath: RepositoryFiles.root.appendingPathComponent(path).path)
            else { continue }
            let text = String(decoding: data, as: UTF8.self)
            for outside in Self.outsidePaths where text.contains(outside) {
                citing.append("\(path): \(outside)")
            }
        }
        #expect(citing == [])
    }

    @Test func theNukeBehaviourPageNamesTestsThatExist() throws {
        // Given the tests docs/nuke-behaviour.md names as `Suite.test`
        let page = try RepositoryFiles.text("docs/nuke-behaviour.md")
        let citations = page.matches(of: #/`([A-Z][A-Za-z]+Tests)\.([a-z][A-Za-z0-9]+)`/#).map { (String($0.1), String($0.2)) }
        #expect(citations.count > 10)
        // Then each is a test function of that suite
        for (suite, test) in citations {
            let file = try RepositoryFiles.text("Tests/PipelineEngineTests/\(suite).swift")
            #expect(file.contains("func \(test)("), "docs/nuke-behaviour.md cites \(suite).\(test), which does not exist")
        }
    }
}
