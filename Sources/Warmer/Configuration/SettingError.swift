/// A setting refused at start: a value that does not parse or validate,
/// an unknown key in the config file, a config file that cannot be read.
/// The command prints its description as one line and exits with 64.
struct SettingError: Error, Sendable, Equatable, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }

    /// `invalid setting NAME from SOURCE: VALUE REASON`.
    init(_ info: SettingInfo, from source: SettingSource, value: String, problem: SettingProblem) {
        self.init("invalid setting \(info.name) from \(source): \(info.shown(problem.item ?? value)) \(problem.reason)")
    }
}
