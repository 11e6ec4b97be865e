import NIOCore
import Scheduler

/// The `text/event-stream` framing of the API's streams (WHATWG HTML,
/// "Server-sent events"): one event per wire-format event, its stream id as
/// `id:` (what a reconnecting client sends back as `Last-Event-ID`), its
/// type as `event:`, its fields as one line of JSON in `data:`.
enum ServerSentEvent {
    /// One job event: `id`, `event`, `data` (JobEvent.jsonLine) and the blank line.
    static func encode(_ event: JobEvent, into buffer: inout ByteBuffer) {
        if let id = event.streamID { buffer.writeString("id: \(id)\n") }
        buffer.writeString("event: \(event.kind.rawValue)\ndata: \(event.jsonLine)\n\n")
    }

    /// An event of the server's own (`summary`) with one line of JSON.
    static func encode(name: String, json: String, into buffer: inout ByteBuffer) {
        buffer.writeString("event: \(name)\ndata: \(json)\n\n")
    }

    /// A comment line, which clients ignore: keeps idle connections (and
    /// the proxies between) open, and finds clients that went away.
    static let keepAlive = ByteBuffer(string: ": keep-alive\n\n")

    /// The first bytes of every stream: the reconnection delay for the
    /// client (`retry:`, in ms) and a comment, so that headers and a first
    /// chunk reach the client at once.
    static let opening = ByteBuffer(string: "retry: 2000\n: warmer event stream\n\n")
}
