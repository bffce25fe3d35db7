import Foundation

/// The instant that `strftime_now` formats, as local calendar fields.
public struct TemplateTime: Sendable, Hashable {
    public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
    }

    /// Reads `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM[:SS]` (a space may replace the T); nil for other text.
    public init?(iso text: String) {
        let digits = text.split(whereSeparator: { "-T :".contains($0) }).map { Int($0) }
        guard digits.count == 3 || digits.count == 5 || digits.count == 6, digits.allSatisfy({ $0 != nil }) else { return nil }
        let v = digits.map { $0 ?? 0 }
        guard (1...9999).contains(v[0]), (1...12).contains(v[1]), (1...31).contains(v[2]) else { return nil }
        self.init(year: v[0], month: v[1], day: v[2], hour: v.count > 3 ? v[3] : 0, minute: v.count > 4 ? v[4] : 0,
                  second: v.count > 5 ? v[5] : 0)
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
    }

    /// The instant in `LOOPL_TEMPLATE_NOW` when it holds one, else the local time now.
    public static func current() -> TemplateTime {
        if let text = ProcessInfo.processInfo.environment["LOOPL_TEMPLATE_NOW"], let time = TemplateTime(iso: text) {
            return time
        }
        let c = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date())
        return TemplateTime(year: c.year ?? 1970, month: c.month ?? 1, day: c.day ?? 1, hour: c.hour ?? 0,
                            minute: c.minute ?? 0, second: c.second ?? 0)
    }

    private static let months = ["January", "February", "March", "April", "May", "June", "July", "August",
                                 "September", "October", "November", "December"]
    private static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// Monday is 0, as Python's `weekday()`.
    var weekday: Int {
        let t = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4]
        let y = month < 3 ? year - 1 : year
        let sunday0 = (y + y / 4 - y / 100 + y / 400 + t[month - 1] + day) % 7
        return (sunday0 + 6) % 7
    }

    var dayOfYear: Int {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return lengths.prefix(month - 1).reduce(0, +) + day
    }

    /// Python's `strftime` for the C-locale directives, with glibc's `%-d` style flags.
    public func format(_ pattern: String) -> String {
        guard (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else { return pattern }
        func pad(_ n: Int, _ width: Int, _ noPad: Bool) -> String {
            let s = String(n)
            return noPad || s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        var out = ""
        var scalars = pattern.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "%", let next = scalars.first else { out.unicodeScalars.append(scalar); continue }
            scalars.removeFirst()
            var code = next, noPad = false
            if code == "-", let flagged = scalars.first { noPad = true; code = flagged; scalars.removeFirst() }
            let hour12 = hour % 12 == 0 ? 12 : hour % 12
            switch code {
            case "Y": out += String(year)
            case "y": out += pad(year % 100, 2, noPad)
            case "m": out += pad(month, 2, noPad)
            case "d": out += pad(day, 2, noPad)
            case "e": out += noPad ? String(day) : (day < 10 ? " " : "") + String(day)
            case "H": out += pad(hour, 2, noPad)
            case "I": out += pad(hour12, 2, noPad)
            case "M": out += pad(minute, 2, noPad)
            case "S": out += pad(second, 2, noPad)
            case "p": out += hour < 12 ? "AM" : "PM"
            case "B": out += Self.months[month - 1]
            case "b", "h": out += String(Self.months[month - 1].prefix(3))
            case "A": out += Self.weekdays[weekday]
            case "a": out += String(Self.weekdays[weekday].prefix(3))
            case "j": out += pad(dayOfYear, 3, noPad)
            case "w": out += String((weekday + 1) % 7)
            case "u": out += String(weekday + 1)
            case "F": out += "\(year)-\(pad(month, 2, false))-\(pad(day, 2, false))"
            case "T": out += "\(pad(hour, 2, false)):\(pad(minute, 2, false)):\(pad(second, 2, false))"
            case "D": out += "\(pad(month, 2, false))/\(pad(day, 2, false))/\(pad(year % 100, 2, false))"
            case "%": out += "%"
            default: out += "%" + (noPad ? "-" : "") + String(code)
            }
        }
        return out
    }
}
