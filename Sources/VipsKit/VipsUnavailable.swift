/// libvips could not be loaded or initialised.
package struct VipsUnavailable: Error, Sendable {
    /// Why, for people.
    package let reason: String
}
