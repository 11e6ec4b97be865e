import Configuration
import Foundation

/// Resolves the settings one command reads, each from the first source that
/// has it: the flags given, then the `WARMER_<NAME>` environment variables,
/// then the config file (`--config` or `WARMER_CONFIG`), then the
/// catalogue's default. One swift-configuration `ConfigReader` asks the
/// providers in that order; a value that does not convert or validate is
/// refused with the setting's name and source.
struct SettingsResolver: Sendable {
    let command: SettingCommand
    /// The flags given, by setting name: their texts, several for a repeated flag.
    let flags: [String: [String]]
    let environment: [String: String]

    /// The providers in order of precedence, each with how it names a setting.
    private struct Source {
        let provider: any ConfigProvider
        let describe: @Sendable (SettingInfo) -> SettingSource
    }

    func resolve() async throws(SettingError) -> ResolvedSettings {
        let settings = Settings.used(by: command)
        var entries: [String: ResolvedSettings.Entry] = [:]

        let file = try await loadConfigFile()
        entries[Settings.config.info.name] = ResolvedSettings.Entry(value: file?.path, source: file?.source ?? .builtInDefault)

        let sources: [Source] = [
            Source(provider: try flagProvider(for: settings), describe: { .flag($0.flagText) }),
            Source(provider: environmentProvider(), describe: { .environment($0.environmentName) }),
        ] + (file.map { file in [Source(provider: file.provider, describe: { .configFile(path: file.path, key: $0.configKey) })] } ?? [])
        let recorder = SettingAccessRecorder()
        let reader = ConfigReader(providers: sources.map(\.provider), accessReporter: recorder)

        for setting in settings where !setting.info.isFlagAndEnvironmentOnly {
            let info = setting.info
            let key = ConfigKey(info.configKey)
            switch info.kind.configType {
            case .int: _ = reader.int(forKey: key, isSecret: info.isSecret)
            case .double: _ = reader.double(forKey: key, isSecret: info.isSecret)
            case .bool: _ = reader.bool(forKey: key, isSecret: info.isSecret)
            case .stringArray: _ = reader.stringArray(forKey: key, isSecret: info.isSecret)
            default: _ = reader.string(forKey: key, isSecret: info.isSecret)
            }
            // The last provider asked is the one that answered (or failed).
            guard let results = recorder.take()?.providerResults, let answer = results.last else {
                throw SettingError("the configuration reader reported nothing for \(info.name)")
            }
            let source = sources[results.count - 1]
            let content: ConfigContent
            switch answer.result {
            case .success(let lookup):
                guard let value = lookup.value else {
                    entries[info.name] = ResolvedSettings.Entry(value: setting.anyDefaultValue, source: .builtInDefault)
                    continue
                }
                content = value.content
            case .failure:
                // Not of the setting's type as the provider reads it (`"8"`
                // in JSON, `abc` for a number): read its text as a flag's.
                let text = Self.text(in: source.provider, key: key)
                guard let text, let parsed = info.kind.content(parsing: [text]) else {
                    throw SettingError(info, from: source.describe(info), value: text ?? "",
                                       problem: setting.problem(readingText: text ?? ""))
                }
                content = parsed
            }
            switch setting.anyValue(from: content) {
            case .success(let value):
                entries[info.name] = ResolvedSettings.Entry(value: value, source: source.describe(info))
            case .failure(let problem):
                // As written, when it was text: `1e300`, not `1e+300`.
                let written = switch source.describe(info) {
                case .flag: flags[info.name]?.last
                case .environment(let name): environment[name]
                default: String?.none
                }
                let value = info.kind == .list ? Self.text(of: content) : written ?? Self.text(of: content)
                throw SettingError(info, from: source.describe(info), value: value, problem: problem)
            }
        }
        return ResolvedSettings(entries: entries)
    }

    /// The config file the flag or the environment names, loaded.
    private func loadConfigFile() async throws(SettingError) -> (path: String, source: SettingSource, provider: any ConfigProvider)? {
        let info = Settings.config.info
        let path: String, source: SettingSource
        if let flag = flags[info.name]?.last {
            (path, source) = (flag, .flag(info.flagText))
        } else if let variable = environment[info.environmentName], !variable.isEmpty {
            (path, source) = (variable, .environment(info.environmentName))
        } else {
            return nil
        }
        guard !path.isEmpty else { throw SettingError(info, from: source, value: path, problem: SettingProblem(reason: "is empty")) }
        let file = try await ConfigFile.load(path: path)
        return (path, source, file.provider)
    }

    /// The flags given, parsed as their settings' kinds.
    private func flagProvider(for settings: [any AnySetting]) throws(SettingError) -> InMemoryProvider {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for setting in settings where !setting.info.isFlagAndEnvironmentOnly {
            let info = setting.info
            guard let texts = flags[info.name], !texts.isEmpty else { continue }
            guard let content = info.kind.content(parsing: texts) else {
                throw SettingError(info, from: .flag(info.flagText), value: texts.last ?? "",
                                   problem: setting.problem(readingText: texts.last ?? ""))
            }
            values[AbsoluteConfigKey(ConfigKey(info.configKey))] = ConfigValue(content, isSecret: info.isSecret)
        }
        return InMemoryProvider(name: "flags", values: values)
    }

    /// `WARMER_<NAME>` for each setting `<name>`; lists hold one item per
    /// line (and hosts and networks may be comma-separated too).
    private func environmentProvider() -> any ConfigProvider {
        let secrets = Set(Settings.all.filter(\.info.isSecret).map(\.info.environmentName))
        return EnvironmentVariablesProvider(
            environmentVariables: environment, secretsSpecifier: .specific(secrets), arraySeparator: "\n"
        ).prefixKeys(with: "warmer")
    }

    /// The value `provider` holds for `key`, as text, whatever its type.
    private static func text(in provider: any ConfigProvider, key: ConfigKey) -> String? {
        for type in [ConfigType.string, .int, .double, .bool, .stringArray] {
            if let content = (try? provider.value(forKey: AbsoluteConfigKey(key), type: type))?.value?.content {
                return text(of: content)
            }
        }
        return nil
    }

    private static func text(of content: ConfigContent) -> String {
        switch content {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case .bool(let value): String(value)
        case .stringArray(let items): items.joined(separator: ", ")
        default: "\(content)"
        }
    }
}
