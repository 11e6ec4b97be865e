import Foundation

/// HTTP-date (RFC 9110 §5.6.7), parsed and formatted by hand: the one
/// HTTP-date of the package (the engine's cache validation and retry
/// delays, the server's `Last-Modified` and `If-Range`).
///
/// `DateFormatter` is slow and locale-sensitive on Linux, so this works on the
/// text directly with a month table and days-from-civil arithmetic (proleptic
/// Gregorian calendar, always GMT).
///
/// Parsing accepts the three formats a recipient must accept:
/// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
/// - obsolete RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`
/// - asctime: `Sun Nov  6 08:49:37 1994`
///
/// It is lenient where leniency can only recover what the sender meant: runs
/// of spaces count as one, day and month names and `GMT` match in any case,
/// the day may have one or two digits, and the day name is checked to be a day
/// name but not checked against the date (common practice: a wrong weekday
/// does not make a date ambiguous). Anything else — an impossible date such as
/// 31 Feb, a time zone other than GMT, a missing field — is invalid (`nil`).
package enum HTTPDate {
    /// Parses an HTTP-date in any of the three formats; `nil` when invalid.
    ///
    /// A two-digit RFC 850 year is resolved against the current date; use
    /// `parse(_:relativeTo:)` to resolve it against a fixed date.
    package static func parse(_ text: String) -> Date? {
        parse(text, relativeTo: Date())
    }

    /// Parses an HTTP-date, resolving a two-digit RFC 850 year against `now`:
    /// the year with those last two digits that is at most 50 years after
    /// `now`'s year and less than 50 years before it (RFC 9110 §5.6.7: a year
    /// that appears more than 50 years in the future is the most recent past
    /// year with the same last two digits). The rule is applied by year.
    package static func parse(_ text: String, relativeTo now: Date) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        switch parts.count {
        case 6:  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            guard parts[0].hasSuffix(","), shortDayNames.contains(parts[0].dropLast().lowercased()),
                  parts[5].lowercased() == "gmt", parts[3].utf8.count == 4
            else { return nil }
            return date(year: number(parts[3]), month: month(parts[2]), day: day(parts[1]), time: parts[4])

        case 4:  // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            guard parts[0].hasSuffix(","), longDayNames.contains(parts[0].dropLast().lowercased()),
                  parts[3].lowercased() == "gmt"
            else { return nil }
            let date2 = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            guard date2.count == 3 else { return nil }
            let year: Int?
            switch date2[2].utf8.count {
            case 2: year = number(date2[2]).map { resolveTwoDigitYear($0, now: now) }
            case 4: year = number(date2[2])  // a common deviation; unambiguous
            default: year = nil
            }
            return date(year: year, month: month(date2[1]), day: day(date2[0]), time: parts[2])

        case 5:  // asctime: Sun Nov  6 08:49:37 1994
            guard shortDayNames.contains(parts[0].lowercased()), parts[4].utf8.count == 4 else { return nil }
            return date(year: number(parts[4]), month: month(parts[1]), day: day(parts[2]), time: parts[3])

        default:
            return nil
        }
    }

    /// Formats `date` as IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    ///
    /// Fractions of a second are dropped; dates outside the years 0–9999
    /// (which have no four-digit year) are clamped to that range.
    package static func format(_ date: Date) -> String {
        let seconds = wholeSeconds(date)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        let weekday = ((days % 7) + 11) % 7  // 1970-01-01 was a Thursday (4)

        return "\(shortDayNamesCapitalized[weekday]), \(padded(day, 2)) \(monthNamesCapitalized[month - 1]) "
            + "\(padded(year, 4)) \(padded(secondOfDay / 3600, 2)):\(padded(secondOfDay / 60 % 60, 2)):"
            + "\(padded(secondOfDay % 60, 2)) GMT"
    }

    // MARK: Fields

    /// Day names, Sunday first, as IMF-fixdate and asctime write them.
    private static let shortDayNamesCapitalized = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    /// Month names, January first.
    private static let monthNamesCapitalized =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    /// Short day names, lowercased, for case-insensitive matching.
    private static let shortDayNames = Set(shortDayNamesCapitalized.map { $0.lowercased() })
    /// RFC 850 day names, lowercased.
    private static let longDayNames: Set<String> =
        ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
    /// Month names, lowercased, January first.
    private static let monthNames = monthNamesCapitalized.map { $0.lowercased() }

    /// A non-negative decimal number made of ASCII digits only.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text)
    }

    /// A day of the month: one or two digits.
    private static func day(_ text: Substring) -> Int? {
        text.utf8.count <= 2 ? number(text) : nil
    }

    /// A month name's number, 1–12.
    private static func month(_ text: Substring) -> Int? {
        monthNames.firstIndex(of: text.lowercased()).map { $0 + 1 }
    }

    /// The full year meant by a two-digit RFC 850 year, seen from `now`.
    package static func resolveTwoDigitYear(_ twoDigits: Int, now: Date) -> Int {
        let nowSeconds = wholeSeconds(now)
        let nowDays = nowSeconds >= 0 ? nowSeconds / 86_400 : (nowSeconds - 86_399) / 86_400
        let currentYear = civilFromDays(nowDays).year
        var year = currentYear - currentYear % 100 + twoDigits
        if year > currentYear + 50 { year -= 100 } else if year <= currentYear - 50 { year += 100 }
        return year
    }

    /// Whole seconds since 1970 of `date`, rounded down and clamped to the
    /// years 0–9999 (so no conversion to `Int` can trap).
    private static func wholeSeconds(_ date: Date) -> Int {
        let lowest = Double(daysFromCivil(year: 0, month: 1, day: 1) * 86_400)
        let highest = Double(daysFromCivil(year: 9999, month: 12, day: 31) * 86_400 + 86_399)
        let interval = date.timeIntervalSince1970
        return Int(interval.isNaN ? 0 : min(max(interval, lowest), highest).rounded(.down))
    }

    /// The date of the given fields and an `HH:MM:SS` time, or `nil` if any is
    /// missing or out of range. Second 60 (a leap second) is accepted and
    /// rolls over into the next minute.
    private static func date(year: Int?, month: Int?, day: Int?, time: Substring) -> Date? {
        guard let year, let month, let day, (1...daysInMonth(month, year: year)).contains(day) else { return nil }
        let fields = time.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, fields.allSatisfy({ $0.utf8.count == 2 }),
              let hour = number(fields[0]), let minute = number(fields[1]), let second = number(fields[2]),
              hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    /// The number of days in `month` (1–12) of `year`.
    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `value` in decimal, zero-padded on the left to `width` digits.
    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    // MARK: Calendar arithmetic

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
    /// `days_from_civil`).
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`).
    package static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (month <= 2 ? yearOfEra + era * 400 + 1 : yearOfEra + era * 400, month, day)
    }
}
