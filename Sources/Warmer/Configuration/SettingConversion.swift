import Configuration
import Foundation

/// The conversions the catalogue's settings use: from what a provider
/// returned (of the setting's kind) to a checked value.
enum SettingConversion {
    typealias Conversion<Value> = @Sendable (ConfigContent) -> Result<Value, SettingProblem>

    /// An integer within `range`.
    static func wholeNumber(_ range: ClosedRange<Int>) -> Conversion<Int> {
        { content in
            guard case .int(let value) = content else { return .failure(SettingProblem(reason: "is not a whole number")) }
            return bounded(value, range)
        }
    }

    /// A finite number within `range`; above its lower bound only, when `excludingLowerBound`.
    static func number(_ range: ClosedRange<Double>, excludingLowerBound: Bool = false) -> Conversion<Double> {
        { content in
            let value: Double
            switch content {
            case .double(let double): value = double
            case .int(let int): value = Double(int)
            default: return .failure(SettingProblem(reason: "is not a number"))
            }
            guard value.isFinite else { return .failure(SettingProblem(reason: "is not a finite number")) }
            if excludingLowerBound, value <= range.lowerBound {
                return .failure(SettingProblem(reason: "must be more than \(text(range.lowerBound))"))
            }
            return bounded(value, range)
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

    private static func bounded<Number: Comparable & CustomStringConvertible>(
        _ value: Number, _ range: ClosedRange<Number>
    ) -> Result<Number, SettingProblem> {
        if value < range.lowerBound { return .failure(SettingProblem(reason: "must be at least \(text(range.lowerBound))")) }
        if value > range.upperBound { return .failure(SettingProblem(reason: "must be at most \(text(range.upperBound))")) }
        return .success(value)
    }

    /// `60` rather than `60.0`.
    private static func text<Number: CustomStringConvertible>(_ number: Number) -> String {
        if let double = number as? Double, double == double.rounded(), abs(double) < 1e15 { return String(Int(double)) }
        return number.description
    }
}
