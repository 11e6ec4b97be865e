/// One `.lua` file compiled into the binary (`EmbeddedText`, from the
/// `Lua/` folders, by Plugins/EmbedTextPlugin), with the directives of its header.
///
/// A header line `-- @include NAME…` names the libraries of
/// `Queue/Lua/includes/` whose names the file uses (each library names its
/// own); `-- @keys NAME…` names the queue's fixed keys (`QueueKeys.Fixed`)
/// the script receives in `KEYS`, in that order. Everything else in the
/// header is documentation.
struct LuaFile: Sendable {
    /// The file's name without `.lua`.
    let name: String
    /// The file's text.
    let text: String
    /// The libraries named by `@include`.
    let includes: [String]
    /// The keys named by `@keys`.
    let keys: [String]

    init(_ name: String, _ text: String) {
        self.name = name
        self.text = text
        var includes: [String] = []
        var keys: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("--") else { break }
            let words = line.dropFirst(2).split(separator: " ").map(String.init)
            switch words.first {
            case "@include": includes += words.dropFirst()
            case "@keys": keys += words.dropFirst()
            default: continue
            }
        }
        self.includes = includes
        self.keys = keys
    }
}
