import ArgumentParser
import Foundation

/// `warmer settings --markdown [--update FILE]`: docs/configuration.md's
/// settings table, generated from the catalogue (hidden: for maintainers).
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Print the settings table of docs/configuration.md, generated from the catalogue.",
        shouldDisplay: false
    )

    @Flag(help: "Print the table as Markdown (the only format).")
    var markdown = false

    @Option(help: ArgumentHelp("Replace the table in this file (between its markers) instead of printing it.", valueName: "file"))
    var update: String?

    func run() throws {
        let table = SettingsTable.markdown()
        guard let update else { return Console.write(table) }
        let url = URL(fileURLWithPath: update)
        let document = try String(contentsOf: url, encoding: .utf8)
        guard let begin = document.range(of: SettingsTable.beginMarker),
              let end = document.range(of: SettingsTable.endMarker + "\n", range: begin.upperBound..<document.endIndex)
        else { throw ValidationError("\(update) has no settings table markers (see docs/configuration.md)") }
        try (document[..<begin.lowerBound] + table + document[end.upperBound...]).write(to: url, atomically: true, encoding: .utf8)
    }
}
