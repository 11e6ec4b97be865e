/// Warmer's release version: `warmer --version` and the `User-Agent` header.
public enum WarmerVersion {
    /// The version, e.g. `0.1.0`.
    public static let current = "0.1.0"
}
