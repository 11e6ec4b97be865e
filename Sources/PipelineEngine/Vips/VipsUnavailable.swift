/// libvips could not be loaded or initialised.
struct VipsUnavailable: Error, Sendable {
    /// Why, for people.
    let reason: String
}
