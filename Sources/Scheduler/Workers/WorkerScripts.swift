import RedisKit

/// The Lua scripts of the worker registry (docs/worker-registry.md),
/// one `.lua` file each in `Workers/Lua/`, whose header documents its KEYS,
/// ARGV and reply. They take their keys in `KEYS`, not the queue context.
enum WorkerScripts {
    /// Writes or refreshes a worker's record and prunes lapsed ids (heartbeat.lua).
    static let heartbeat = RedisScript(LuaFile("heartbeat", PackageResources.heartbeat_lua).text)
    /// Lists live workers (list-workers.lua).
    static let list = RedisScript(LuaFile("list-workers", PackageResources.list_workers_lua).text)
    /// Counts live workers without writing anything (count-workers.lua).
    static let count = RedisScript(LuaFile("count-workers", PackageResources.count_workers_lua).text)
}
