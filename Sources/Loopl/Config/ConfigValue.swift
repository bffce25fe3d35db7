/// A type that a value in a configuration file can be read as, with what it must be.
public protocol ConfigValue: Sendable {
    /// The value that `json` holds, or nil when it is not one of these.
    init?(config json: JSONValue)
    /// What a value must be, for error messages: "a string".
    static var expectation: String { get }
}

extension ConfigValue {
    /// `value`, or nil for the failable initialisers below.
    fileprivate init?(_ value: Self?) {
        guard let value else { return nil }
        self = value
    }
}

extension String: ConfigValue {
    public init?(config json: JSONValue) { self.init(json.stringValue) }
    public static var expectation: String { "a string" }
}

/// Counts and sizes: 0 to 2147483647, so that no product of two of them overflows.
extension Int: ConfigValue {
    public init?(config json: JSONValue) { self.init(json.intValue.flatMap { (0...Int(Int32.max)).contains($0) ? $0 : nil }) }
    public static var expectation: String { "a whole number, 0 or more (at most 2147483647)" }
}

/// Seconds and other amounts: positive and at most a billion, so that a `Duration` made of one cannot overflow.
extension Double: ConfigValue {
    public init?(config json: JSONValue) { self.init(json.doubleValue.flatMap { $0 > 0 && $0 <= 1e9 ? $0 : nil }) }
    public static var expectation: String { "a positive number (at most 1e9)" }
}

extension Bool: ConfigValue {
    public init?(config json: JSONValue) { self.init(json.boolValue) }
    public static var expectation: String { "true or false" }
}

extension Array: ConfigValue where Element == String {
    public init?(config json: JSONValue) {
        let items = json.arrayValue ?? []
        let strings = items.compactMap(\.stringValue)
        self.init(json.arrayValue != nil && strings.count == items.count ? strings : nil)
    }
    public static var expectation: String { "a list of strings" }
}

extension JSONObject: ConfigValue {
    public init?(config json: JSONValue) { self.init(json.objectValue) }
    public static var expectation: String { "an object" }
}
