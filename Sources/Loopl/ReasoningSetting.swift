/// Whether a model thinks before it answers, and how hard.
///
/// Its JSON form is one word: `auto`, `off`, `on`, `low`, `medium` or `high`, as in `--think`.
public enum ReasoningSetting: Sendable, Hashable, Codable {
    /// How hard to think, for templates and servers that take an effort.
    public enum Effort: String, Sendable, Hashable, CaseIterable {
        case low, medium, high
    }

    /// What the chat template does by default.
    case auto
    /// No thinking: templates that can switch it off do; one that always opens thinking gets it
    /// closed at once.
    case off
    /// Thinking on, at the template's default effort.
    case on
    /// Thinking on, at this effort.
    case effort(Effort)

    /// "auto", "off", "on", "low", "medium" or "high".
    public var name: String {
        switch self {
        case .auto: "auto"
        case .off: "off"
        case .on: "on"
        case .effort(let effort): effort.rawValue
        }
    }

    /// Reads ``name``; nil for any other word.
    public init?(name: String) {
        switch name {
        case "auto": self = .auto
        case "off": self = .off
        case "on": self = .on
        default:
            guard let effort = Effort(rawValue: name) else { return nil }
            self = .effort(effort)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let word = try container.decode(String.self)
        guard let setting = ReasoningSetting(name: word) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription:
                "Unknown reasoning setting '\(word)': use auto, off, on, low, medium or high.")
        }
        self = setting
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
