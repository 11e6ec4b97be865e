import Logging
import RedisKit
import Scheduler

/// The catalogue: every setting of every `warmer` command, declared once.
///
/// Each command's flags take their help from here, the resolver
/// (`SettingsResolver`) reads each setting from a flag, the environment
/// (`WARMER_<NAME>`) or the config file, in that order, and
/// `warmer settings --markdown` prints docs/configuration.md's table from it.
/// Per-invocation flags (batch ids, processing steps…) are not settings:
/// `perInvocationFlags` lists them.
enum Settings {
    /// Every setting, in the order of the table.
    static let all: [any AnySetting] = [
        config, redisURL, queue, redisWait, cacheDir, cacheSizeLimit, cacheSweepInterval, concurrency, gracePeriod,
        logFormat, logLevel, httpPort, httpHost,
    ] + pipeline + network + queuePolicy + serve

    /// The setting named `name`.
    static func named(_ name: String) -> (any AnySetting)? {
        all.first { $0.info.name == name }
    }

    /// The settings `command` reads.
    static func used(by command: SettingCommand) -> [any AnySetting] {
        all.filter { $0.info.commands.contains(command) }
    }

    // MARK: Every command

    static let config = Setting<String?>(
        "config", kind: .text, default: nil, defaultText: "none", example: "/etc/warmer/warmer.yaml", valueName: "file",
        commands: Set(SettingCommand.allCases), isFlagAndEnvironmentOnly: true,
        help: "A YAML (.yaml, .yml) or JSON (.json) file of settings, below flags and the environment.",
        convert: SettingConversion.optional(SettingConversion.text()))

    static let logFormat = Setting<String>(
        "log-format", kind: .text, default: "text", example: "json", valueName: "format", commands: Set(SettingCommand.allCases),
        help: "Log lines on standard error: text, or json (one object per line).",
        convert: SettingConversion.text { ["text", "json"].contains($0) ? nil : "is not one of text, json" })

    static let logLevel = Setting<Logger.Level>(
        "log-level", kind: .text, default: .info, example: "debug", valueName: "level", commands: Set(SettingCommand.allCases),
        help: "The least severe level logged: trace, debug, info, notice, warning, error or critical.",
        convert: SettingConversion.choice(Logger.Level.self))

    // MARK: Redis

    static let redisURL = Setting<String>(
        "redis-url", kind: .text, default: "redis://127.0.0.1:6379", example: "redis://:password@10.0.0.5:6379/0",
        valueName: "url", flagAliases: ["redis"], commands: SettingCommand.redisClients, isSecret: true,
        help: "Redis server URL, redis://[[user]:password@]host[:port][/db]; for a Redis Cluster any node, or seed nodes separated by commas (host:port,host:port). Secret: never shown.",
        convert: SettingConversion.text { text in
            (try? RedisURL(parsing: text)) == nil ? "is not a Redis URL (redis://[[user]:password@]host[:port][,host[:port]…][/db])" : nil
        })

    static let queue = Setting<String>(
        "queue", kind: .text, default: "default", example: "images", valueName: "name", commands: SettingCommand.redisClients,
        help: "Queue name.",
        convert: SettingConversion.text { $0.isEmpty ? "is empty" : nil })

    static let redisWait = Setting<Double>(
        "redis-wait", kind: .number, default: 60, example: "60", valueName: "seconds",
        commands: SettingCommand.redisClients,
        help: "Seconds to wait for a Redis that is unreachable, loading or busy before giving up (0: give up at once; worker: at start, then it waits as long as it runs).",
        convert: SettingConversion.number(0...Double.greatestFiniteMagnitude))

    // MARK: Disk cache

    static let cacheDir = Setting<String?>(
        "cache-dir", kind: .text, default: nil, defaultText: "$XDG_CACHE_HOME/warmer or ~/.cache/warmer",
        example: "/var/cache/warmer", valueName: "dir", commands: SettingCommand.cacheUsers,
        help: "Disk cache folder.",
        convert: { content in SettingConversion.text()(content).map { $0.isEmpty ? nil : $0 } })

    static let cacheSizeLimit = Setting<Int>(
        "cache-size-limit", kind: .wholeNumber, default: 10_240, example: "10240", valueName: "mib",
        commands: SettingCommand.cacheUsers,
        help: "Disk cache size limit in MiB, kept by a periodic LRU sweep.",
        convert: SettingConversion.wholeNumber(1...Int.max >> 20))

    static let cacheSweepInterval = Setting<Double>(
        "cache-sweep-interval", kind: .number, default: 30, example: "30", valueName: "seconds", commands: [.worker],
        help: "Seconds between two sweeps of the disk cache; one worker per cache folder, elected in Redis, sweeps it.",
        convert: SettingConversion.number(0.05...86_400))

    // MARK: Worker

    static let concurrency = Setting<Int>(
        "concurrency", kind: .wholeNumber, default: 8, example: "32", valueName: "n", commands: [.worker, .warm],
        help: "Jobs a worker runs at once; URLs warm loads at once.",
        convert: SettingConversion.wholeNumber(1...100_000))

    static let gracePeriod = Setting<Int>(
        "grace-period", kind: .wholeNumber, default: 30, example: "30", valueName: "seconds", commands: [.worker],
        help: "Seconds running jobs get to finish after a stop signal.",
        convert: SettingConversion.wholeNumber(0...JobQueue.timeoutRange.upperBound))

    static let httpPort = Setting<Int?>(
        "http-port", kind: .wholeNumber, default: nil, defaultText: "worker: off; serve: 8080", example: "9090", valueName: "port",
        commands: [.worker, .serve],
        help: "Port of the HTTP server: the worker's /metrics, /healthz, /readyz, /v1/queue; serve's API and dashboard.",
        convert: SettingConversion.optional(SettingConversion.wholeNumber(1...65_535)))

    static let httpHost = Setting<String>(
        "http-host", kind: .text, default: "127.0.0.1", example: "0.0.0.0", valueName: "address", commands: [.worker, .serve],
        help: "Address the HTTP server listens on. serve refuses an address other than loopback unless tokens are configured.",
        convert: SettingConversion.text { $0.isEmpty ? "is empty" : nil })
}
