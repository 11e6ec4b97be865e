/// The value of every setting a command reads, each from the first source
/// that has it (flag, environment, config file, built-in default), checked.
///
/// Read a value with its catalogue entry: `settings[Settings.concurrency]`.
struct ResolvedSettings: Sendable {
    /// A resolved value and where it came from.
    struct Entry: Sendable {
        let value: any Sendable
        let source: SettingSource
    }

    private let entries: [String: Entry]

    init(entries: [String: Entry]) {
        self.entries = entries
    }

    /// The value of `setting`; its default if the command does not read it
    /// (the catalogue's `commands` and the command's flags disagree: a test
    /// checks that they never do).
    subscript<Value>(_ setting: Setting<Value>) -> Value {
        (entries[setting.info.name]?.value as? Value) ?? setting.defaultValue
    }

    /// Where the value of `setting` came from.
    func source<Value>(of setting: Setting<Value>) -> SettingSource {
        entries[setting.info.name]?.source ?? .builtInDefault
    }

    /// The names of the settings resolved, in no order.
    var names: Dictionary<String, Entry>.Keys { entries.keys }

    /// The entry named `name`.
    func entry(named name: String) -> Entry? { entries[name] }
}
