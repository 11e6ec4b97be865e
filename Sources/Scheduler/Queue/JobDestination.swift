/// What a job warms.
public enum JobDestination: String, Sendable, Hashable, CaseIterable, Codable {
    /// The original data in the disk cache; never decoded.
    case disk
    /// The decoded, processed and re-encoded image.
    case processed
}
