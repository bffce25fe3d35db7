/// One object of a configuration file, read key by key: typed values, clear errors, and an error
/// for any key nobody read (a typo is never ignored).
public struct ConfigSection: Sendable {
    /// The object as written, with renamed keys (``renamed(_:to:)``) under their new names.
    public private(set) var object: JSONObject
    /// Where it is, for error messages: "backend 'fast'".
    public let context: String
    private var seen: Set<String> = []

    public init(_ object: JSONObject, context: String) {
        self.object = object
        self.context = context
    }

    /// An ``LooplError/Code/invalidConfiguration`` error with `reason`.
    public static func error(_ reason: String) -> LooplError {
        LooplError(.invalidConfiguration, "Invalid configuration: \(reason).")
    }

    /// An error about this section: "backend 'x': `reason`".
    public func error(_ reason: String) -> LooplError { Self.error("\(context): \(reason)") }

    /// The keys read so far (or accepted), for checking a kind's documented keys.
    package var readKeys: Set<String> { seen }

    /// Reads the old name `old` of `key` as `key`, with a deprecation warning through ``Warnings``;
    /// both names at once is an error. An old name is accepted for one release.
    public mutating func renamed(_ old: String, to key: String) throws {
        guard let value = object[old] else { return }
        seen.insert(old)
        guard object[key] == nil else { throw error("give '\(key)' only: '\(old)' is its old name") }
        object[key] = value
        Warnings.emit("\(context): '\(old)' is the old name of '\(key)', accepted until the next release; write '\(key)'.")
    }

    /// Marks `key` as read without reading it.
    public mutating func accept(_ key: String) { seen.insert(key) }

    /// The value at `key` as a `T`, nil when it is missing or null; an error when it is something else.
    public mutating func optional<T: ConfigValue>(_ key: String, as type: T.Type = T.self) throws -> T? {
        seen.insert(key)
        guard let json = object[key], json != .null else { return nil }
        guard let value = T(config: json) else { throw error("'\(key)' must be \(T.expectation)") }
        return value
    }

    /// The value at `key` as a `T`; an error when it is missing or something else.
    public mutating func required<T: ConfigValue>(_ key: String, as type: T.Type = T.self) throws -> T {
        guard let value = try optional(key, as: T.self) else { throw error("'\(key)' is missing") }
        return value
    }

    /// Sets `value` from `key` when the section has it; keeps `value` (the default) otherwise.
    public mutating func read<T: ConfigValue>(_ key: String, into value: inout T) throws {
        if let read = try optional(key, as: T.self) { value = read }
    }

    /// Sets `value` from `key` when the section has it; keeps `value` (the default) otherwise.
    public mutating func read<T: ConfigValue>(_ key: String, into value: inout T?) throws {
        if let read = try optional(key, as: T.self) { value = read }
    }

    /// The value at `key` as the case of `T` it names; an error listing the names when it is another.
    public mutating func optionalChoice<T: RawRepresentable & CaseIterable>(_ key: String, as type: T.Type = T.self) throws -> T?
    where T.RawValue == String {
        guard let name = try optionalString(key) else { return nil }
        guard let value = T(rawValue: name) else {
            let names = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
            throw error("'\(key)' must be \(names), not \"\(name)\"")
        }
        return value
    }

    public mutating func optionalString(_ key: String) throws -> String? { try optional(key) }
    public mutating func string(_ key: String) throws -> String { try required(key) }
    public mutating func optionalInt(_ key: String) throws -> Int? { try optional(key) }
    public mutating func optionalBool(_ key: String) throws -> Bool? { try optional(key) }
    /// A positive number of seconds.
    public mutating func optionalDouble(_ key: String) throws -> Double? { try optional(key) }
    public mutating func optionalStrings(_ key: String) throws -> [String]? { try optional(key) }
    public mutating func optionalObject(_ key: String) throws -> JSONObject? { try optional(key) }

    /// Throws for the first key that was never read.
    public func finish() throws {
        if let unknown = object.keys.sorted().first(where: { !seen.contains($0) }) {
            throw Self.error("\(context) has unknown key '\(unknown)'")
        }
    }
}
