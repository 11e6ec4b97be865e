import Configuration

/// One setting of the catalogue (`Settings`) with the type of its value:
/// how it is described (`info`), its built-in default, and how a value
/// read from a flag, the environment or a config file becomes a `Value`
/// (or is refused).
struct Setting<Value: Sendable>: Sendable {
    let info: SettingInfo
    let defaultValue: Value
    /// The value `content` (of `info.kind`) describes, or why it is not acceptable.
    let convert: @Sendable (ConfigContent) -> Result<Value, SettingProblem>

    init(
        _ name: String, kind: SettingKind, default defaultValue: Value, defaultText: String? = nil,
        example: String, valueName: String?, flag: String? = nil, flagAliases: [String] = [],
        commands: Set<SettingCommand>, isSecret: Bool = false, isFlagAndEnvironmentOnly: Bool = false, hasFlag: Bool = true,
        help: String, convert: @escaping @Sendable (ConfigContent) -> Result<Value, SettingProblem>
    ) {
        info = SettingInfo(
            name: name, flag: flag ?? name, flagAliases: flagAliases, kind: kind, valueName: valueName,
            defaultText: defaultText ?? Self.text(of: defaultValue), example: example, help: help, commands: commands,
            isSecret: isSecret, isFlagAndEnvironmentOnly: isFlagAndEnvironmentOnly, hasFlag: hasFlag)
        self.defaultValue = defaultValue
        self.convert = convert
    }

    /// `60` for a whole `Double`, the value's description otherwise.
    private static func text(of value: Value) -> String {
        if let number = value as? Double, number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
        return "\(value)"
    }
}
