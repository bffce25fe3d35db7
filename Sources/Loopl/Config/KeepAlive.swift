/// How long a served model stays loaded after its last request, in Ollama's forms: a number of
/// seconds, or a duration such as `"5m"`, `"1h30m"`, `"0"` (unload after each answer) or `"-1"`
/// (any negative: never unload).
package struct KeepAlive: Sendable, Hashable, ConfigValue {
    /// The seconds; nil: forever.
    package let seconds: Double?

    /// Never unloaded.
    package static let forever = KeepAlive(seconds: -1)
    /// Five minutes, Ollama's default.
    package static let fiveMinutes = KeepAlive(seconds: 300)

    /// `seconds` (negative: forever), at most a billion.
    package init(seconds: Double) {
        self.seconds = seconds < 0 ? nil : min(seconds, 1e9)
    }

    /// A number of seconds or a duration string; nil for anything else.
    package init?(config json: JSONValue) {
        guard let seconds = json.doubleValue ?? json.stringValue.flatMap(Self.seconds(in:)), seconds.isFinite else { return nil }
        self.init(seconds: seconds)
    }

    package static var expectation: String {
        "a number of seconds or a duration such as \"5m\" or \"1h30m\" (0: unload after each answer; -1: never)"
    }

    /// The seconds of `text`: a number, or Go's duration form (`"1h30m"`, `"90s"`, `"-1m"`, units
    /// `h`, `m`, `s`, `ms`, `us`, `ns`); nil when it is neither.
    package static func seconds(in text: String) -> Double? {
        if let seconds = Double(text) { return seconds }
        let units: [(String, Double)] = [("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("h", 3600), ("m", 60), ("s", 1)]
        var rest = Substring(text)
        let sign: Double = rest.first == "-" ? -1 : 1
        if rest.first == "-" || rest.first == "+" { rest.removeFirst() }
        guard !rest.isEmpty else { return nil }
        var total = 0.0
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isNumber || $0 == "." }
            rest.removeFirst(digits.count)
            guard let value = Double(digits), let unit = units.first(where: { rest.hasPrefix($0.0) }) else { return nil }
            rest.removeFirst(unit.0.count)
            total += value * unit.1
        }
        return sign * total
    }
}
