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

extension AnySetting {
    /// Why `text`, which does not read as the setting's kind, is refused:
    /// for a number (`abc`), the setting's own reason, which names its
    /// range; else "is not true or false (yes/no, 1/0)" and the like.
    func problem(readingText text: String) -> SettingProblem {
        if info.kind == .wholeNumber || info.kind == .number, case .failure(let problem) = anyValue(from: .string(text)) {
            return problem
        }
        return SettingProblem(reason: "is not \(info.kind.expectation)")
    }
}
