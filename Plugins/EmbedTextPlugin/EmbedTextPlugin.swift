import PackagePlugin

/// Compiles a target's text files (`.lua`, `.yaml`, `.html`, `.css`, `.js`)
/// into it as `EmbeddedText.<name>_<extension>` strings, so the `warmer`
/// binary alone carries its Lua scripts, its OpenAPI contract and its
/// dashboard (see Plugins/EmbedText/main.swift for why not `.embedInCode`).
@main
struct EmbedTextPlugin: BuildToolPlugin {
    /// The extensions of the files it embeds.
    static let extensions: Set = ["lua", "yaml", "html", "css", "js"]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let files = target.sourceFiles
            .map(\.url)
            .filter { Self.extensions.contains($0.pathExtension) }
            .sorted { $0.path < $1.path }
        guard !files.isEmpty else { return [] }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedText.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) text files in \(target.name)",
                executable: try context.tool(named: "EmbedText").url,
                arguments: [output.path, "EmbeddedText"] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}
