/// A Redis Cluster redirect: the reply of a node that does not serve a
/// command's hash slot. The command was not run.
///
/// - `MOVED SLOT HOST:PORT`: the slot belongs to that node now; send this
///   command, and the slot's later ones, there.
/// - `ASK SLOT HOST:PORT`: the slot is being migrated and this command's
///   keys are already on that node; send it there once, preceded by
///   `ASKING`, and keep sending the slot's other commands where they went.
struct RedisRedirect: Sendable, Hashable {
    /// Which of the two redirects.
    enum Kind: String, Sendable {
        case moved
        case ask
    }

    let kind: Kind
    /// The command's hash slot, 0-16383.
    let slot: Int
    /// The node to send it to.
    let target: RedisEndpoint

    /// Parses an error reply; nil for any other reply. `node` is the node
    /// that answered (a redirect may leave its own host out: `MOVED 3999 :6381`).
    init?(_ reply: RedisReply, from node: RedisEndpoint) {
        guard case .error(let message) = reply else { return nil }
        self.init(message: message, from: node)
    }

    /// Parses the text of an error reply (`MOVED 5718 127.0.0.1:7002`).
    init?(message: String, from node: RedisEndpoint) {
        let kind: Kind
        if message.hasPrefix("MOVED ") {
            kind = .moved
        } else if message.hasPrefix("ASK ") {
            kind = .ask
        } else {
            return nil
        }
        let words = message.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count == 3, let slot = Int(words[1]), (0..<16_384).contains(slot),
              let target = RedisEndpoint(redirectAddress: words[2], relativeTo: node) else { return nil }
        self.kind = kind
        self.slot = slot
        self.target = target
    }
}
