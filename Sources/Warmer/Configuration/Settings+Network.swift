import Foundation
import PipelineEngine
import Scheduler

/// How downloads behave on the network, read by `worker` and `warm`.
extension Settings {
    static let network: [any AnySetting] = [
        allowHosts, allowNetworks, allowPrivateNetworks, maxAttempts, jobTimeout, lowSpeedLimit, lowSpeedTime,
        rateLimit, hostRateLimit, hostRateLimitOverrides, connectionsPerHost, headers,
    ]

    static let allowHosts = Setting<[String]>(
        "allow-hosts", kind: .list, default: [], defaultText: "none", example: "images.internal", valueName: "host",
        flag: "allow-host", commands: SettingCommand.downloaders,
        help: "Hosts (as written in URLs) downloads may reach wherever they resolve, e.g. a private origin; the flag is repeatable, the variable comma-separated.",
        convert: SettingConversion.list(splittingCommas: true) { _ in nil })

    static let allowNetworks = Setting<[String]>(
        "allow-networks", kind: .list, default: [], defaultText: "none", example: "10.20.0.0/16", valueName: "cidr",
        flag: "allow-network", commands: SettingCommand.downloaders,
        help: "Networks (CIDR) downloads may reach, e.g. 10.20.0.0/16; the flag is repeatable, the variable comma-separated.",
        convert: SettingConversion.list(splittingCommas: true) { IPNetwork($0) == nil ? "is not a network in CIDR notation" : nil })

    static let allowPrivateNetworks = Setting<Bool>(
        "allow-private-networks", kind: .switch, default: false, defaultText: "off", example: "false", valueName: nil,
        commands: SettingCommand.downloaders,
        help: "Allow every private, loopback and link-local address.",
        convert: SettingConversion.onOff)

    static let maxAttempts = Setting<Int>(
        "max-attempts", kind: .wholeNumber, default: 4, example: "4", valueName: "n", commands: SettingCommand.downloaders,
        help: "Download attempts per job, the first included; transient failures (connection errors, timeouts, 408, 429, 5xx) are retried with backoff and jitter, honouring Retry-After.",
        convert: SettingConversion.wholeNumber(1...1000))

    static let jobTimeout = Setting<Int>(
        "job-timeout", kind: .wholeNumber, default: 120, example: "120", valueName: "seconds",
        commands: SettingCommand.downloaders,
        help: "Seconds a worker may spend on a job (warm: on a URL), all its download attempts and the waits between them included; then the job fails for good with deadline_exceeded and frees its slot. An intake document's \"timeout\" overrides it for its jobs.",
        convert: SettingConversion.wholeNumber(JobQueue.timeoutRange))

    static let lowSpeedLimit = Setting<Int>(
        "low-speed-limit", kind: .wholeNumber, default: 1024, example: "1024", valueName: "bytes",
        commands: SettingCommand.downloaders,
        help: "Bytes per second below which a download is too slow: one that stays below it for low-speed-time fails with timed_out (and is retried). 0 turns the check off.",
        convert: SettingConversion.wholeNumber(0...Int.max))

    static let lowSpeedTime = Setting<Int>(
        "low-speed-time", kind: .wholeNumber, default: 30, example: "30", valueName: "seconds",
        commands: SettingCommand.downloaders,
        help: "Seconds a download may stay below low-speed-limit, waiting for the response included.",
        convert: SettingConversion.wholeNumber(1...JobQueue.timeoutRange.upperBound))

    /// The highest `rate-limit` and `host-rate-limit`, per second.
    static let highestRate: Double = 1_000_000

    static let rateLimit = Setting<Double?>(
        "rate-limit", kind: .number, default: nil, defaultText: "unlimited", example: "200", valueName: "per-second",
        commands: SettingCommand.downloaders,
        help: "Downloads started per second in total: by every worker of the queue together (held in Redis), and by each process (token bucket, burst of one second's worth).",
        convert: SettingConversion.optional(SettingConversion.number(0...highestRate, excludingLowerBound: true)))

    static let hostRateLimit = Setting<Double?>(
        "host-rate-limit", kind: .number, default: nil, defaultText: "unlimited", example: "20", valueName: "per-second",
        commands: SettingCommand.downloaders,
        help: "Downloads started per second to one host: by every worker of the queue together (held in Redis), and by each process. A host answering 429 or 503 is slowed down either way.",
        convert: SettingConversion.optional(SettingConversion.number(0...highestRate, excludingLowerBound: true)))

    static let hostRateLimitOverrides = Setting<[String]>(
        "host-rate-limit-overrides", kind: .list, default: [], defaultText: "none", example: "images.example.com=100",
        valueName: "host=per-second", flag: "host-rate-limit-override", commands: SettingCommand.downloaders,
        help: "The limit of one host instead of host-rate-limit, HOST=N downloads per second (an origin that allows more, or less); the flag is repeatable, the variable comma-separated.",
        convert: SettingConversion.list(splittingCommas: true) {
            hostRateOverride($0) == nil ? "is not HOST=N with N a number above 0, up to 1000000" : nil
        })

    /// `HOST=N` as a lowercased host and its rate; nil when it is not one.
    static func hostRateOverride(_ text: String) -> (host: String, rate: Double)? {
        guard let equals = text.lastIndex(of: "=") else { return nil }
        let host = text[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
        guard !host.isEmpty, !host.contains(" "), !host.contains("/"),
              let rate = Double(text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces)),
              rate.isFinite, rate > 0, rate <= highestRate else { return nil }
        return (host, rate)
    }

    static let connectionsPerHost = Setting<Int?>(
        "connections-per-host", kind: .wholeNumber, default: nil, defaultText: "16, or the worker's concurrency when higher",
        example: "16", valueName: "n", commands: SettingCommand.downloaders,
        help: "Concurrent connections to one host.",
        convert: SettingConversion.optional(SettingConversion.wholeNumber(1...100_000)))

    static let headers = Setting<[String]>(
        "headers", kind: .list, default: [], defaultText: "none", example: "Authorization: Bearer token", valueName: "header",
        flag: "header", commands: SettingCommand.downloaders, isSecret: true,
        help: "Extra request headers, 'Name: value' (e.g. Authorization); the flag is repeatable, the variable one header per line. Secret: never shown.",
        convert: SettingConversion.list(splittingCommas: false) { headerField($0) == nil ? "is not a header ('Name: value')" : nil })

    /// `Name: value` split in two; `nil` without a colon or a name.
    static func headerField(_ text: String) -> (name: String, value: String)? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains(" ") else { return nil }
        return (name, text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
}
