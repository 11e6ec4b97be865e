import Foundation
import Testing
import TestSupport

@testable import WarmerServer

/// The dashboard's files as the binary carries them (`DashboardAsset`,
/// Plugins/EmbedTextPlugin): every file of the assets folder, with the content
/// type of its extension, and nothing that loads from elsewhere. How the
/// server serves them is WarmerServerTests' `DashboardRouteTests`.
@Suite
struct DashboardAssetTests {
    static let folder = "Sources/WarmerServer/Dashboard/Assets"
    static let contentTypes = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
    ]

    /// The assets folder's files by name.
    static func files() throws -> [String: Data] {
        let folder = RepositoryFiles.root.appendingPathComponent(Self.folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
        return try Dictionary(uniqueKeysWithValues: names.map { ($0, try Data(contentsOf: folder.appendingPathComponent($0))) })
    }

    @Test func everyFileOfTheAssetsFolderIsCompiledInWithTheContentTypeOfItsExtension() throws {
        // Given the files of the folder
        let files = try Self.files()
        #expect(files.keys.contains("index.html") && files.keys.contains("dashboard.js") && files.keys.contains("dashboard.css"))

        // Then each is an asset with its bytes and its content type, and there is no other
        #expect(Set(DashboardAsset.all.keys) == Set(files.keys))
        for (name, bytes) in files {
            let asset = try #require(DashboardAsset.named(name), "\(name) is not an asset")
            let fileExtension = String(name.split(separator: ".").last ?? "")
            #expect(asset.contentType == Self.contentTypes[fileExtension], "\(name): \(asset.contentType)")
            #expect(asset.bytes == Array(bytes), "\(name)'s compiled bytes differ from the file")
        }
        // The page under its two names; nothing for a name that is not a file
        #expect(DashboardAsset.named("")?.bytes == Array(files["index.html"] ?? Data()))
        #expect(DashboardAsset.named("")?.contentType == "text/html; charset=utf-8")
        for unknown in ["nope.js", "../Package.swift", "index.htm", "/index.html"] {
            #expect(DashboardAsset.named(unknown) == nil, "\(unknown)")
        }
    }

    @Test func thePageLoadsEveryScriptAndTheStyleSheetFromUI() throws {
        // Given the page's src and href attributes
        let files = try Self.files()
        let page = AssetText.withoutComments(String(decoding: files["index.html"] ?? Data(), as: UTF8.self), fileExtension: "html")
        let references = page.matches(of: /(?:src|href)="([^"]*)"/).map { String($0.output.1) }
        let local = references.filter { !$0.hasPrefix("#") }

        // Then each names an asset under /ui/, and every script and style sheet is loaded
        for reference in local {
            #expect(reference.hasPrefix("/ui/") && files[String(reference.dropFirst(4))] != nil, "\(reference)")
        }
        let loaded = Set(local.map { String($0.dropFirst(4)) })
        #expect(loaded == Set(files.keys.filter { $0.hasSuffix(".js") || $0.hasSuffix(".css") }))
    }

    @Test func noAssetReferencesAnExternalURL() throws {
        // Given every asset without its comments
        for (name, bytes) in try Self.files() {
            let fileExtension = String(name.split(separator: ".").last ?? "")
            let text = AssetText.withoutComments(String(decoding: bytes, as: UTF8.self), fileExtension: fileExtension)
            // Then no http://, https:// or protocol-relative // is left, nor a CSS url() or @import
            #expect(!text.contains("//"), "\(name) references a URL: \(text.matches(of: /.{0,40}\/\/.{0,40}/).map(\.output))")
            #expect(!text.contains("url(") && !text.contains("@import"), "\(name) loads a resource from its CSS")
        }
    }

    @Test func commentsAreRemovedButStringsAndURLsInThemAreKept() {
        // Given script with comments, and a string that holds a URL
        let script = """
            // https://example.com in a comment
            const a = "http://cdn.example.com/x.js"; /* //block */ const b = '\\'//'; const c = `//${a}`;
            """
        // Then only the comments go
        let kept = AssetText.withoutComments(script, fileExtension: "js")
        #expect(!kept.contains("example.com in a comment") && !kept.contains("block"))
        #expect(kept.contains("\"http://cdn.example.com/x.js\"") && kept.contains("'\\'//'") && kept.contains("`//${a}`"))
        #expect(AssetText.withoutComments("a <!-- //x --> b", fileExtension: "html") == "a  b")
        #expect(AssetText.withoutComments("a { } /* //x */ b", fileExtension: "css") == "a { }  b")
    }
}
