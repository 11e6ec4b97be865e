import Foundation
import TestSupport

/// A real Redis Cluster for one test: three masters and three replicas on
/// free loopback ports, started by `scripts/redis-cluster.sh` and stopped by
/// `stop()` (or, should the test process die first, by the script's watcher).
final class RedisCluster: Sendable {
    /// One node as `CLUSTER NODES` describes it.
    struct Node: Sendable, CustomStringConvertible {
        let id: String
        let port: Int
        let isMaster: Bool
        /// Whether the cluster considers it failed.
        let hasFailed: Bool
        /// The slots it serves (masters), without the ones being migrated.
        let slots: [ClosedRange<Int>]

        /// `redis://127.0.0.1:PORT`.
        var url: String { "redis://127.0.0.1:\(port)" }

        func serves(_ slot: Int) -> Bool { slots.contains { $0.contains(slot) } }

        var description: String { "\(isMaster ? "master" : "replica") 127.0.0.1:\(port) \(id.prefix(8)) \(slots)" }
    }

    let directory: URL
    /// Every node's port.
    let ports: [Int]

    private init(directory: URL, ports: [Int]) {
        self.directory = directory
        self.ports = ports
    }

    private static var script: String {
        TestEnvironment.repositoryRoot.appendingPathComponent("scripts/redis-cluster.sh").path
    }

    /// Starts a cluster and waits until every node is ready.
    static func start() async throws -> RedisCluster {
        let directory = try TestEnvironment.temporaryDirectory("redis-cluster")
        let result = try await runProcess(script, ["start", directory.path, String(getpid())])
        let ports = result.output.split(separator: "\n").compactMap { Int($0) }
        guard result.status == 0, ports.count == 6 else {
            _ = try? await runProcess(script, ["stop", directory.path])
            throw HarnessError("redis-cluster.sh start failed (\(result.status)):\n\(result.output)\n\(result.error)")
        }
        return RedisCluster(directory: directory, ports: ports)
    }

    /// Stops every node and removes the cluster's files.
    func stop() async {
        _ = try? await runProcess(Self.script, ["stop", directory.path])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `redis-cli` against one node (without following redirects).
    func cli(_ port: Int, _ command: [String]) async throws -> RedisCLIResult {
        try await redisCLI(url: "redis://127.0.0.1:\(port)", command)
    }

    /// The nodes as the first live node in `ports` sees them.
    func nodes() async throws -> [Node] {
        for port in ports {
            guard let result = try? await cli(port, ["CLUSTER", "NODES"]), result.status == 0,
                  result.standardOutput.contains("myself") else { continue }
            return result.outputLines.compactMap(Self.node)
        }
        throw HarnessError("no cluster node answers CLUSTER NODES")
    }

    private static func node(_ line: String) -> Node? {
        let fields = line.split(separator: " ").map(String.init)
        guard fields.count >= 8, let address = fields[1].split(separator: "@").first,
              let port = address.split(separator: ":").last.flatMap({ Int($0) }) else { return nil }
        let flags = fields[2].split(separator: ",")
        let slots: [ClosedRange<Int>] = fields.dropFirst(8).compactMap { entry in
            guard !entry.hasPrefix("[") else { return nil }
            let bounds = entry.split(separator: "-").compactMap { Int($0) }
            guard let first = bounds.first, let last = bounds.last else { return nil }
            return first...last
        }
        return Node(id: fields[0], port: port, isMaster: flags.contains("master"),
                    hasFailed: flags.contains("fail") || flags.contains("fail?"), slots: slots)
    }

    /// The hash slot of queue `name` (the slot of its `{name}` hash tag).
    func slot(ofQueue name: String) async throws -> Int {
        let result = try await cli(ports[0], ["CLUSTER", "KEYSLOT", "warmer:{\(name)}:queue"])
        guard let slot = result.outputLines.first.flatMap({ Int($0) }) else { throw HarnessError("\(result)") }
        return slot
    }

    /// The live master serving `slot`.
    func owner(ofSlot slot: Int) async throws -> Node {
        guard let owner = try await nodes().first(where: { $0.isMaster && !$0.hasFailed && $0.serves(slot) }) else {
            throw HarnessError("no master serves slot \(slot): \(try await nodes())")
        }
        return owner
    }

    /// The live masters.
    func masters() async throws -> [Node] {
        try await nodes().filter { $0.isMaster && !$0.hasFailed }
    }

    /// Kills the node on `port` with SIGKILL, as a crash would.
    func kill(port: Int) throws {
        let file = directory.appendingPathComponent("node-\(port).pid")
        guard let text = try? String(contentsOf: file, encoding: .utf8),
              let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HarnessError("no pid file for node \(port)")
        }
        Glibc.kill(pid, SIGKILL)
    }

    /// Moves `slot` from master `source` to master `target` by hand, as
    /// `redis-cli --cluster reshard` does: IMPORTING on the target,
    /// MIGRATING on the source, every key of the slot with MIGRATE, then
    /// `SETSLOT NODE` on every master. `whileAsking` runs once the keys are
    /// on the target and before the slot is handed over, while the source
    /// answers every command for the slot with `ASK`.
    func moveSlot(_ slot: Int, from source: Node, to target: Node, whileAsking: () async throws -> Void) async throws {
        let slotText = String(slot)
        try await expectOK(cli(target.port, ["CLUSTER", "SETSLOT", slotText, "IMPORTING", source.id]))
        try await expectOK(cli(source.port, ["CLUSTER", "SETSLOT", slotText, "MIGRATING", target.id]))
        while true {
            let listed = try await cli(source.port, ["CLUSTER", "GETKEYSINSLOT", slotText, "1000"])
            let keys = listed.outputLines.filter { !$0.isEmpty }
            guard !keys.isEmpty else { break }
            try await expectOK(cli(source.port, ["MIGRATE", "127.0.0.1", String(target.port), "", "0", "10000", "KEYS"] + keys))
        }
        try await whileAsking()
        let others = try await masters().filter { $0.id != source.id && $0.id != target.id }
        for node in [target, source] + others {
            try await expectOK(cli(node.port, ["CLUSTER", "SETSLOT", slotText, "NODE", target.id]))
        }
    }

    private func expectOK(_ result: RedisCLIResult) throws {
        guard result.status == 0, result.outputLines.first == "OK" else { throw HarnessError("\(result)") }
    }
}
