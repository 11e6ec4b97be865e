import ArgumentParser

/// An option group declaring settings' flags. Each flag is optional with no
/// default (a default would hide the environment and the config file) and
/// takes its name and help from the catalogue (`SettingInfo.argumentName`,
/// `argumentHelp`).
protocol SettingFlags: ParsableArguments {
    /// The flags given.
    var givenFlags: GivenFlags { get }
}
