import Foundation

/// Tells the current date and time, in the machine's time zone and in UTC.
package struct DateTimeTool: Tool {
    package static let name = "current_time"
    package var name: String { Self.name }
    package let description = "Get the current date and time."
    package let parameters: JSONValue = ["type": "object", "properties": [:]]
    private let now: @Sendable () -> Date

    package init(now: @escaping @Sendable () -> Date = { Date() }) { self.now = now }

    package func call(_ arguments: JSONObject) async throws -> String {
        let date = now()
        let local = ISO8601DateFormatter()
        local.timeZone = TimeZone.current
        local.formatOptions = [.withInternetDateTime]
        let weekday = DateFormatter()
        weekday.locale = Locale(identifier: "en_US_POSIX")
        weekday.timeZone = TimeZone.current
        weekday.dateFormat = "EEEE"
        let utc = ISO8601DateFormatter()
        return "\(weekday.string(from: date)) \(local.string(from: date)) (UTC \(utc.string(from: date)))"
    }
}
