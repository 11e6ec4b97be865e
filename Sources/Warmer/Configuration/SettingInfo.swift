import ArgumentParser

/// How one setting is named on each source, what it holds, its built-in
/// default and the commands that read it: one row of the settings table.
///
/// The name is kebab-case and is also the setting's key in a config file;
/// the environment variable is `WARMER_` and the name in upper case with
/// underscores (`cache-dir`, `WARMER_CACHE_DIR`); the flag is the name
/// unless the catalogue says otherwise (`--allow-host` for `allow-hosts`).
struct SettingInfo: Sendable, Hashable {
    /// The kebab-case name, also the config file key.
    let name: String
    /// The long flag, without its dashes.
    let flag: String
    /// More long flags meaning the same (kept for compatibility).
    let flagAliases: [String]
    let kind: SettingKind
    /// The placeholder in `--help` (`n`, `seconds`…); `nil` for an on/off flag.
    let valueName: String?
    /// The built-in default as documented ("8", "unlimited", "none").
    let defaultText: String
    /// A value the setting accepts, for the example config file and tests.
    let example: String
    let help: String
    let commands: Set<SettingCommand>
    /// Whether its value is kept out of help, logs and error messages
    /// (swift-configuration's `isSecret`).
    let isSecret: Bool
    /// Whether only a flag or the environment can give it (`--config` itself).
    let isFlagAndEnvironmentOnly: Bool
    /// Whether a flag can give it: not for secrets that must never appear
    /// in a process listing (`serve`'s tokens), which only the environment
    /// or the config file give.
    let hasFlag: Bool
    /// `WARMER_` + the name in upper case, dashes as underscores.
    let environmentName: String
    /// The text of `argumentHelp`.
    ///
    /// (Composed once here: ArgumentParser builds every command's options
    /// many times over while it parses, and in a debug build validates them
    /// too; composing this at each turn was a fifth of what a `worker`
    /// start-up cost.)
    let helpText: String

    init(
        name: String, flag: String, flagAliases: [String], kind: SettingKind, valueName: String?, defaultText: String,
        example: String, help: String, commands: Set<SettingCommand>, isSecret: Bool, isFlagAndEnvironmentOnly: Bool,
        hasFlag: Bool
    ) {
        self.name = name
        self.flag = flag
        self.flagAliases = flagAliases
        self.kind = kind
        self.valueName = valueName
        self.defaultText = defaultText
        self.example = example
        self.help = help
        self.commands = commands
        self.isSecret = isSecret
        self.isFlagAndEnvironmentOnly = isFlagAndEnvironmentOnly
        self.hasFlag = hasFlag
        environmentName = "WARMER_" + String(name.uppercased().map { $0 == "-" ? "_" : $0 })
        var sources = "env \(environmentName)"
        if !isFlagAndEnvironmentOnly { sources += ", config \(name)" }
        helpText = "\(help) (default: \(defaultText); \(sources))"
    }

    /// The key in a config file: the name.
    var configKey: String { name }

    /// `--flag`.
    var flagText: String { "--" + flag }

    /// The flag's names for ArgumentParser.
    var argumentName: NameSpecification {
        NameSpecification(([flag] + flagAliases).map { .customLong($0) })
    }

    /// The flag's help: the catalogue's text, the default and where else the
    /// setting may come from. Never a value from the environment.
    var argumentHelp: ArgumentHelp {
        valueName.map { ArgumentHelp(helpText, valueName: $0) } ?? ArgumentHelp(helpText)
    }

    /// How a value of this setting appears in an error message: quoted, or
    /// for a secret not at all.
    func shown(_ value: String) -> String {
        isSecret ? "the value (secret, not shown)" : "\"\(value)\""
    }
}
