/// Warmer's release version: `warmer --version`, the `User-Agent` header of
/// the engine's requests, and the version each worker registers.
package enum WarmerVersion {
    /// The version, e.g. `0.1.0`.
    package static let current = "0.1.0"
}
