import Foundation
import TestSupport

/// One entry of a Redis event stream: its id and `type` field, as `XRANGE`
/// returns it or as a Server-Sent Event client received it.
struct StreamEntry: Equatable, CustomStringConvertible {
    let id: String
    let type: String
    var description: String { "\(id) \(type)" }
}

extension StreamEntry {
    /// The entry an event of `warmer serve`'s stream stands for.
    init(_ event: EventStreamClient.Event) {
        self.init(id: event.id ?? "-", type: event.type)
    }
}

/// What the event-stream tests read from Redis directly: a stream's
/// entries, and which of a process's connections wait in `XREAD`.
extension QueueProbe {
    /// `XRANGE key - +`: every entry's id and `type` field.
    func streamEntries(_ key: String) async throws -> [StreamEntry] {
        try await send(["XRANGE", key, "-", "+"]).array.map { entry in
            let parts = entry.array
            let fields = parts.count > 1 ? parts[1].array.compactMap(\.string) : []
            let type = stride(from: 0, to: fields.count - 1, by: 2).first { fields[$0] == "type" }.map { fields[$0 + 1] } ?? "?"
            return StreamEntry(id: parts.first?.string ?? "?", type: type)
        }
    }

    /// The `CLIENT LIST` lines of connections from `ports` (a process's own
    /// socket ports, `ServeProcess.connectionPorts`) whose command is XREAD.
    func xreadClients(of ports: Set<Int>) async throws -> [String] {
        try await clients(of: ports).filter { $0["cmd"] == "xread" }.map { $0["line"] ?? "" }
    }

    /// The `CLIENT LIST` entries of connections from `ports`, each as its
    /// `name=value` fields, with the whole line under `line`.
    func clients(of ports: Set<Int>) async throws -> [[String: String]] {
        let list = try await send(["CLIENT", "LIST"]).string ?? ""
        return list.split(separator: "\n").map { line -> [String: String] in
            var fields = Dictionary(line.split(separator: " ").compactMap { field -> (String, String)? in
                guard let equals = field.firstIndex(of: "=") else { return nil }
                return (String(field[..<equals]), String(field[field.index(after: equals)...]))
            }, uniquingKeysWith: { first, _ in first })
            fields["line"] = String(line)
            return fields
        }.filter { fields in
            fields["addr"].flatMap { $0.split(separator: ":").last }.flatMap { Int($0) }.map(ports.contains) ?? false
        }
    }
}
