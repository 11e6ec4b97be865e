/// Why a value is not acceptable for a setting, as the end of a sentence
/// that starts with the value: "is not a whole number", "must be at least 1".
struct SettingProblem: Error, Sendable {
    let reason: String
    /// The part of the value at fault (one item of a list), when not all of it.
    var item: String?
}
