/// One page of a queue's batches, newest first (`JobQueue.batches(limit:before:)`).
public struct BatchPage: Sendable, Hashable, Encodable {
    /// The batches, newest first (by creation time).
    public let batches: [BatchStatus]
    /// The cursor of the next page (older batches), nil when there is none.
    /// Opaque: pass it back as `before`.
    public let next: String?

    /// A page.
    public init(batches: [BatchStatus], next: String?) {
        self.batches = batches
        self.next = next
    }

    private enum CodingKeys: String, CodingKey {
        case batches, next
    }

    /// Encodes `next` as `null` on the last page, rather than leaving it out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(batches, forKey: .batches)
        try container.encode(next, forKey: .next)
    }

    /// The most batches one page holds.
    public static let maximumLimit = 1_000

    /// The position after the index entry `id` scored `score`: `SCORE:ID`.
    static func cursor(score: String, id: String) -> String { score + ":" + id }

    /// The score and id of `cursor`; nil when it is not one.
    static func position(of cursor: String) -> (score: Int64, id: String)? {
        guard let colon = cursor.firstIndex(of: ":"), let score = Int64(cursor[..<colon]) else { return nil }
        let id = String(cursor[cursor.index(after: colon)...])
        return id.isEmpty ? nil : (score, id)
    }
}
