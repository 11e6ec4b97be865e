/// The setting flags given on one command line, by setting name, as the
/// resolver takes them: an unset flag is absent, so the setting comes from
/// the environment, the config file or its default.
struct GivenFlags: Sendable {
    private(set) var texts: [String: [String]] = [:]

    /// With `setting`'s flag, when given.
    func with<Value>(_ setting: Setting<Value>, _ text: String?) -> GivenFlags {
        with(setting, text.map { [$0] } ?? [])
    }

    /// With `setting`'s repeated flag, when given at least once.
    func with<Value>(_ setting: Setting<Value>, _ texts: [String]) -> GivenFlags {
        guard !texts.isEmpty else { return self }
        var copy = self
        copy.texts[setting.info.name] = texts
        return copy
    }

    /// With `setting`'s on/off flag (`--name` or `--no-name`), when given.
    func with(_ setting: Setting<Bool>, _ isOn: Bool?) -> GivenFlags {
        with(setting, isOn.map { String($0) })
    }

    /// These flags and `other`'s.
    func merging(_ other: GivenFlags) -> GivenFlags {
        var copy = self
        copy.texts.merge(other.texts) { _, new in new }
        return copy
    }
}
