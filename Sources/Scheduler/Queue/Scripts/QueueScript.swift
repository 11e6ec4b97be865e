import RedisKit

/// A script of the queue: one entry `.lua` file of `Queue/Lua/` (a queue
/// transition) or `Workers/Lua/` (the worker registry), assembled with the
/// libraries of `Queue/Lua/includes/` it includes, run with EVALSHA.
///
/// The assembled source is, in order: the `K` table of the fixed keys the
/// file declares with `@keys` (`local K = { queue = KEYS[1], … }`), each
/// library it includes — directly or through another library — once, after
/// the ones it includes, and the file itself. `JobQueue` sends those keys
/// (`keys(of:)`) as `KEYS`, then the queue context and the script's own
/// arguments as `ARGV` (includes/context.lua). Redis compiles a script once;
/// EVALSHA then sends only its hash, so the libraries cost nothing per call.
struct QueueScript: Sendable {
    /// The `.lua` file's name.
    let name: String
    /// The fixed keys the script gets in `KEYS`, in order.
    let keys: [QueueKeys.Fixed]
    /// The assembled script.
    let script: RedisScript

    /// Assembles `file`. A mistake in a `.lua` header compiled into the
    /// binary (a `@keys` or `@include` name that does not exist) cannot be
    /// caused by anything a job, document or Redis sends, but it does not
    /// stop the process either: the script then only answers
    /// `BROKEN_SCRIPT <what is wrong>`, and QueueScriptFileTests (which
    /// assembles and runs every file) fails on it.
    init(_ file: LuaFile) {
        name = file.name
        var problems: [String] = []
        keys = file.keys.compactMap { name in
            guard let key = QueueKeys.Fixed(rawValue: name) else {
                problems.append("unknown key \(name) in @keys")
                return nil
            }
            return key
        }
        var parts = ["-- \(file.name).lua, assembled by QueueScript", Self.keyTable(keys)]
        var included: Set<String> = []
        func include(_ library: String) {
            guard included.insert(library).inserted else { return }
            guard let source = Self.libraries[library] else {
                problems.append("unknown library \(library)")
                return
            }
            source.includes.forEach(include)
            parts.append(source.text)
        }
        file.includes.forEach(include)
        parts.append(file.text)
        if problems.isEmpty {
            script = RedisScript(parts.joined(separator: "\n"))
        } else {
            let reason = "\(file.name).lua: " + problems.joined(separator: "; ")
            script = RedisScript("return redis.error_reply('BROKEN_SCRIPT ' .. \(Self.luaString(reason)))")
        }
    }

    /// `text` as a Lua string literal.
    private static func luaString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    /// The script's `KEYS` for `queue`.
    func keys(of queue: QueueKeys) -> [String] {
        keys.map { queue[$0] }
    }

    /// `local K = { queue = KEYS[1], … }`.
    private static func keyTable(_ keys: [QueueKeys.Fixed]) -> String {
        let fields = keys.enumerated().map { "\($1.rawValue) = KEYS[\($0 + 1)]" }
        return "local K = { " + fields.joined(separator: ", ") + " }"
    }

    /// The libraries a script may include, by name: the files of
    /// `Queue/Lua/includes/` (EmbedTextPlugin names a file by its name
    /// alone, whatever its folder: `EmbeddedText.context_lua`).
    static let libraries: [String: LuaFile] = Dictionary(uniqueKeysWithValues: [
        LuaFile("context", EmbeddedText.context_lua),
        LuaFile("masking", EmbeddedText.masking_lua),
        LuaFile("priorities", EmbeddedText.priorities_lua),
        LuaFile("records", EmbeddedText.records_lua),
        LuaFile("events", EmbeddedText.events_lua),
        LuaFile("batches", EmbeddedText.batches_lua),
        LuaFile("dead-letters", EmbeddedText.dead_letters_lua),
        LuaFile("throughput", EmbeddedText.throughput_lua),
        LuaFile("recent", EmbeddedText.recent_lua),
        LuaFile("fairness", EmbeddedText.fairness_lua),
        LuaFile("ends", EmbeddedText.ends_lua),
        LuaFile("wake", EmbeddedText.wake_lua),
        LuaFile("jobs", EmbeddedText.jobs_lua),
        LuaFile("staging", EmbeddedText.staging_lua),
        LuaFile("slices", EmbeddedText.slices_lua),
        LuaFile("parsing", EmbeddedText.parsing_lua),
        LuaFile("documents", EmbeddedText.documents_lua),
        LuaFile("housekeeping", EmbeddedText.housekeeping_lua),
        LuaFile("intake", EmbeddedText.intake_lua),
        LuaFile("work", EmbeddedText.work_lua),
        LuaFile("control", EmbeddedText.control_lua),
    ].map { ($0.name, $0) })
}
