/// The Lua scripts of the worker registry (docs/worker-registry.md), one
/// `.lua` file each in `Workers/Lua/`, whose header documents its KEYS,
/// ARGV and reply. They follow the queue scripts' convention (`QueueScript`):
/// their keys come from `@keys` as the `K` table, their arguments after the
/// queue context, and a worker's record key is built from the queue's prefix.
enum WorkerScripts {
    /// Writes or refreshes a worker's record and prunes lapsed ids (heartbeat.lua).
    static let heartbeat = QueueScript(LuaFile("heartbeat", EmbeddedText.heartbeat_lua))
    /// Lists live workers (list-workers.lua).
    static let list = QueueScript(LuaFile("list-workers", EmbeddedText.list_workers_lua))
    /// Counts live workers without writing anything (count-workers.lua).
    static let count = QueueScript(LuaFile("count-workers", EmbeddedText.count_workers_lua))

    /// Every script of the registry.
    static var all: [QueueScript] { [heartbeat, list, count] }
}
