import NIOCore
import Scheduler

/// Events of one read, framed as Server-Sent Events once for every
/// subscriber of a `StreamTail`: each subscriber writes a slice of the same
/// bytes (no copy, no JSON per watcher), so a batch followed by hundreds of
/// clients costs one encoding per event.
struct EncodedEvents: Sendable {
    /// The events' stream ids, in order.
    private let ids: [StreamID]
    /// Where each event's bytes end in `bytes`.
    private let ends: [Int]
    /// The index of the first `batchCompleted`, if any.
    private let completion: Int?
    private let bytes: ByteBuffer

    init(_ events: [JobEvent]) {
        var bytes = ByteBuffer()
        var ids: [StreamID] = []
        var ends: [Int] = []
        var completion: Int?
        for event in events {
            guard let id = event.streamID.flatMap({ StreamID($0) }) else { continue }
            ServerSentEvent.encode(event, into: &bytes)
            if completion == nil, event.kind == .batchCompleted { completion = ids.count }
            ids.append(id)
            ends.append(bytes.writerIndex)
        }
        self.ids = ids
        self.ends = ends
        self.completion = completion
        self.bytes = bytes
    }

    /// The last event's id.
    var lastID: StreamID? { ids.last }

    /// The bytes of the events after `last` — up to and including the first
    /// `batchCompleted` when `endingAtCompletion` — with the id of the last
    /// of them and whether it is that `batchCompleted`; `nil` when none is after `last`.
    func slice(after last: StreamID, endingAtCompletion: Bool) -> (bytes: ByteBuffer, lastID: StreamID, completes: Bool)? {
        guard let first = ids.firstIndex(where: { $0 > last }) else { return nil }
        var end = ids.count - 1
        var completes = false
        if endingAtCompletion, let completion, completion >= first {
            end = completion
            completes = true
        }
        let start = first == 0 ? 0 : ends[first - 1]
        guard let slice = bytes.getSlice(at: bytes.readerIndex + start, length: ends[end] - start) else { return nil }
        return (slice, ids[end], completes)
    }
}
