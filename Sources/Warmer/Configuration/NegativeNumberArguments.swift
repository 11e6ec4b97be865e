/// Reads `--flag -5` as `--flag=-5`, before ArgumentParser sees the command
/// line.
///
/// ArgumentParser takes a word that starts with a dash for an option, so it
/// answers `--grace-period -5` with "Missing value for '--grace-period'"
/// (and `-5` as an unknown option) instead of the flag's own refusal, which
/// names the accepted range. No `warmer` option is spelled like a negative
/// number, so a negative number right after a long option is that option's
/// value: joined to it with `=`, it reaches the option (every numeric flag,
/// setting or not, then refuses it with its range; a flag that takes no
/// value says so). Nothing after `--` changes.
enum NegativeNumberArguments {
    /// `arguments` with each `--name NUMBER` (NUMBER negative) as `--name=NUMBER`.
    static func joined(_ arguments: [String]) -> [String] {
        var result: [String] = []
        result.reserveCapacity(arguments.count)
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" {
                result += arguments[index...]
                break
            }
            let next = arguments.index(after: index)
            if isLongOptionWithoutValue(argument), next < arguments.endIndex, isNegativeNumber(arguments[next]) {
                result.append(argument + "=" + arguments[next])
                index = arguments.index(after: next)
            } else {
                result.append(argument)
                index = next
            }
        }
        return result
    }

    /// `--name`, with no `=value` attached.
    static func isLongOptionWithoutValue(_ argument: String) -> Bool {
        argument.hasPrefix("--") && argument.count > 2 && !argument.contains("=")
    }

    /// `-5`, `-0.5`, `-.5`, `-1e3`: a minus sign and a number, as a user
    /// would type one.
    static func isNegativeNumber(_ argument: String) -> Bool {
        guard argument.hasPrefix("-"), argument.count > 1 else { return false }
        let magnitude = argument.dropFirst()
        guard let first = magnitude.first, first.isASCII, first.isNumber || first == "." else { return false }
        return Double(magnitude) != nil
    }
}
