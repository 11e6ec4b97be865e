import WarmerSupport

extension KeyedEncodingContainer {
    /// Encodes `milliseconds` since the epoch under `key` and the same
    /// instant in ISO 8601 UTC (`UTCTime.text(milliseconds:)`) under `twin`,
    /// the `…UTC` field of docs/wire-format.md; neither when `milliseconds`
    /// is nil, and no twin before the epoch.
    mutating func encodeTime(_ milliseconds: Int64?, forKey key: Key, twin: Key) throws {
        try encodeIfPresent(milliseconds, forKey: key)
        try encodeIfPresent(milliseconds.flatMap(UTCTime.text(milliseconds:)), forKey: twin)
    }
}
