#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// `Date` header values (RFC 9110 §5.6.7, IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`),
/// formatted at most once a second and shared by every connection.
///
/// Hummingbird adds `Date` to every response it writes from a cache of its own; the
/// event-loop launch path writes its responses itself, so it keeps the same field the same
/// way, without Foundation's date formatting per response.
final class HTTPDateCache: Sendable {
    /// The cache every fast-path connection reads.
    static let shared = HTTPDateCache()

    private let cached = Mutex<(second: Int64, value: String)>((-1, ""))

    /// The field value for the current second.
    var value: String {
        let now = Int64(time(nil))
        return cached.withLock { cached in
            if cached.second != now { cached = (now, Self.format(now)) }
            return cached.value
        }
    }

    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formats Unix seconds as an IMF-fixdate.
    /// - Parameter seconds: Seconds since 1970 (not before it).
    /// - Returns: The date, in GMT.
    static func format(_ seconds: Int64) -> String {
        let days = seconds / 86_400
        let secondOfDay = seconds % 86_400
        // Howard Hinnant's civil_from_days, for days since 1970-01-01.
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[Int(days % 7)]), \(two(day)) \(months[Int(month - 1)]) \(year) "
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }
}
