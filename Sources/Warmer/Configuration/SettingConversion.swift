import Configuration
import Foundation

/// The conversions the catalogue's settings use: from what a provider
/// returned (of the setting's kind) to a checked value.
enum SettingConversion {
    typealias Conversion<Value> = @Sendable (ConfigContent) -> Result<Value, SettingProblem>

    /// An integer within `range`. Any other value is refused with the
    /// range: "must be a whole number from 0 to 86400".
    static func wholeNumber(_ range: ClosedRange<Int>) -> Conversion<Int> {
        let problem = SettingProblem(reason: "must be " + wholeNumberRange(range))
        return { content in
            guard case .int(let value) = content, range.contains(value) else { return .failure(problem) }
            return .success(value)
        }
    }

    /// A finite number within `range`; above its lower bound only, when
    /// `excludingLowerBound`. Any other value is refused with the range:
    /// "must be a number from 0 to 3600".
    static func number(_ range: ClosedRange<Double>, excludingLowerBound: Bool = false) -> Conversion<Double> {
        let problem = SettingProblem(reason: "must be " + numberRange(range, excludingLowerBound: excludingLowerBound))
        return { content in
            let value: Double
            switch content {
            case .double(let double): value = double
            case .int(let int): value = Double(int)
            default: return .failure(problem)
            }
            guard value.isFinite, range.contains(value), !excludingLowerBound || value > range.lowerBound else {
                return .failure(problem)
            }
            return .success(value)
        }
    }

    /// Text that `check` accepts (it returns the reason it does not).
    static func text(_ check: @escaping @Sendable (String) -> String? = { _ in nil }) -> Conversion<String> {
        { content in
            guard case .string(let value) = content else { return .failure(SettingProblem(reason: "is not text")) }
            return check(value).map { .failure(SettingProblem(reason: $0)) } ?? .success(value)
        }
    }

    /// One of `Choice`'s raw values.
    static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(_: Choice.Type) -> Conversion<Choice>
    where Choice.RawValue == String {
        { content in
            guard case .string(let value) = content, let choice = Choice(rawValue: value) else {
                let names = Choice.allCases.map(\.rawValue).joined(separator: ", ")
                return .failure(SettingProblem(reason: "is not one of \(names)"))
            }
            return .success(choice)
        }
    }

    /// On or off.
    static let onOff: Conversion<Bool> = { content in
        guard case .bool(let value) = content else { return .failure(SettingProblem(reason: "is not true or false")) }
        return .success(value)
    }

    /// A list whose every item `check` accepts; with `splittingCommas`, an
    /// item holding commas is several items (`a,b` as in `WARMER_ALLOW_HOSTS=a,b`).
    static func list(splittingCommas: Bool, _ check: @escaping @Sendable (String) -> String?) -> Conversion<[String]> {
        { content in
            guard case .stringArray(let given) = content else { return .failure(SettingProblem(reason: "is not a list")) }
            let items = (splittingCommas ? given.flatMap { $0.split(separator: ",").map(String.init) } : given)
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            for item in items {
                if let reason = check(item) { return .failure(SettingProblem(reason: reason, item: item)) }
            }
            return .success(items)
        }
    }

    /// `conversion`, for a setting whose default is no value at all.
    static func optional<Value>(_ conversion: @escaping Conversion<Value>) -> Conversion<Value?> {
        { content in conversion(content).map { $0 } }
    }

    /// Upper bounds from here on are "no limit" in practice, and not spelled out.
    private static let unboundedWholeNumber = 1 << 40

    /// "a whole number from 1 to 100000", or "a whole number, 1 or more".
    static func wholeNumberRange(_ range: ClosedRange<Int>) -> String {
        range.upperBound >= unboundedWholeNumber
            ? "a whole number, \(range.lowerBound) or more"
            : "a whole number from \(range.lowerBound) to \(range.upperBound)"
    }

    /// "a number from 0 to 3600", "a number above 0, up to 1000000", or
    /// "a number, 0 or more".
    static func numberRange(_ range: ClosedRange<Double>, excludingLowerBound: Bool = false) -> String {
        let lower = text(range.lowerBound)
        guard range.upperBound < 1e15 else { return excludingLowerBound ? "a number above \(lower)" : "a number, \(lower) or more" }
        let upper = text(range.upperBound)
        return excludingLowerBound ? "a number above \(lower), up to \(upper)" : "a number from \(lower) to \(upper)"
    }

    /// `60` rather than `60.0`.
    private static func text(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
        return number.description
    }
}
