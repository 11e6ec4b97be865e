/// A `warmer` command, as the settings catalogue names the commands that
/// read each setting.
enum SettingCommand: String, Sendable, Hashable, CaseIterable, Comparable {
    case worker, enqueue, watch, status, batches, workers, cancel, priority, group, pause, resume
    case deadList = "dead list", deadRetry = "dead retry", deadPurge = "dead purge"
    case warm, serve
    case cachePath = "cache path", cacheGet = "cache get"

    /// Every command that talks to Redis.
    static let redisClients: Set<SettingCommand> = Set(allCases).subtracting([.warm, .cachePath, .cacheGet])

    /// The commands that use the disk cache.
    static let cacheUsers: Set<SettingCommand> = [.worker, .warm, .serve, .cachePath, .cacheGet]

    /// The commands that download images (`serve` for `GET /v1/cache?warm=1`).
    static let downloaders: Set<SettingCommand> = [.worker, .warm, .serve]

    static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// `commands` in words for the settings table: "all", "all but warm, cache", or a list.
    static func describe(_ commands: Set<SettingCommand>) -> String {
        if commands == Set(allCases) { return "all" }
        if commands == redisClients { return "all but warm, cache" }
        var names: [String] = []
        var remaining = commands
        for (group, members) in [("dead", [deadList, deadRetry, deadPurge]), ("cache", [cachePath, cacheGet])]
        where Set(members).isSubset(of: remaining) {
            remaining.subtract(members)
            names.append(group)
        }
        names += remaining.map(\.rawValue)
        return names.sorted { order($0) < order($1) }.joined(separator: ", ")
    }

    private static func order(_ name: String) -> Int {
        allCases.firstIndex { $0.rawValue == name || $0.rawValue.hasPrefix(name + " ") } ?? allCases.count
    }
}
