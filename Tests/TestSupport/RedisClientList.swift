/// Reads what `CLIENT LIST` says of the connections a test named with
/// `CLIENT SETNAME`: how a test learns that a blocking command is under way
/// in Redis, instead of sleeping and hoping it is.
public enum RedisClientList {
    /// Whether the connection named `name` is blocked in a command (its
    /// `flags` hold `b`), according to `list`, `CLIENT LIST`'s reply.
    public static func isBlocked(_ name: String, in list: String) -> Bool {
        guard let line = list.split(separator: "\n").first(where: { $0.contains(" name=\(name) ") }) else { return false }
        let flags = line.split(separator: " ").first { $0.hasPrefix("flags=") }?.dropFirst("flags=".count) ?? ""
        return flags.contains("b")
    }
}
