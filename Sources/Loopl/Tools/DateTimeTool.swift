import Foundation

/// Tells the current date and time, in the machine's time zone and in UTC.
public struct DateTimeTool: Tool {
    public let name = "current_time"
    public let description = "Get the current date and time."
    public let parameters: JSONValue = ["type": "object", "properties": [:]]
    private let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date = { Date() }) { self.now = now }

    public func call(_ arguments: JSONObject) async throws -> String {
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
