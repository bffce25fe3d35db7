/// A type that a value in a configuration file can be read as, with what it must be.
public protocol ConfigValue: Sendable {
    /// The value that `json` holds, or nil when it is not one of these.
    init?(config json: JSONValue)
    /// What a value must be, for error messages: "a string".
    static var expectation: String { get }
}

extension String: ConfigValue {
    public init?(config json: JSONValue) {
        guard case .string(let value) = json else { return nil }
        self = value
    }
    public static var expectation: String { "a string" }
}

extension Int: ConfigValue {
    public init?(config json: JSONValue) {
        guard case .integer(let value) = json, value >= 0 else { return nil }
        self = value
    }
    public static var expectation: String { "a whole number, 0 or more" }
}

/// Seconds and other amounts: positive.
extension Double: ConfigValue {
    public init?(config json: JSONValue) {
        switch json {
        case .integer(let value) where value > 0: self = Double(value)
        case .double(let value) where value > 0: self = value
        default: return nil
        }
    }
    public static var expectation: String { "a positive number" }
}

extension Bool: ConfigValue {
    public init?(config json: JSONValue) {
        guard case .bool(let value) = json else { return nil }
        self = value
    }
    public static var expectation: String { "true or false" }
}

extension Array: ConfigValue where Element == String {
    public init?(config json: JSONValue) {
        guard case .array(let items) = json else { return nil }
        let strings = items.compactMap(\.stringValue)
        guard strings.count == items.count else { return nil }
        self = strings
    }
    public static var expectation: String { "a list of strings" }
}

extension JSONObject: ConfigValue {
    public init?(config json: JSONValue) {
        guard case .object(let object) = json else { return nil }
        self = object
    }
    public static var expectation: String { "an object" }
}
