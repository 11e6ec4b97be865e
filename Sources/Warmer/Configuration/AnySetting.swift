import Configuration

/// A setting whatever its value type, as the resolver and the settings table see it.
protocol AnySetting: Sendable {
    var info: SettingInfo { get }
    /// The built-in default.
    var anyDefaultValue: any Sendable { get }
    /// The value `content` describes, or why it is not acceptable.
    func anyValue(from content: ConfigContent) -> Result<any Sendable, SettingProblem>
}

extension Setting: AnySetting {
    var anyDefaultValue: any Sendable { defaultValue }

    func anyValue(from content: ConfigContent) -> Result<any Sendable, SettingProblem> {
        convert(content).map { $0 }
    }
}
