/// One object of a configuration file, read key by key: typed values, clear errors, and an error
/// for any key nobody read (a typo is never ignored).
public struct ConfigSection: Sendable {
    /// The object as written.
    public let object: JSONObject
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

    /// Marks `key` as read without reading it.
    public mutating func accept(_ key: String) { seen.insert(key) }

    public mutating func optionalString(_ key: String) throws -> String? {
        seen.insert(key)
        switch object[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw error("'\(key)' must be a string")
        }
    }

    public mutating func string(_ key: String) throws -> String {
        guard let value = try optionalString(key) else { throw error("'\(key)' is missing") }
        return value
    }

    public mutating func object(_ key: String) throws -> JSONObject {
        seen.insert(key)
        guard let value = object[key]?.objectValue else { throw error("'\(key)' must be an object") }
        return value
    }

    public mutating func optionalObject(_ key: String) throws -> JSONObject? {
        seen.insert(key)
        switch object[key] {
        case nil, .null?: return nil
        case .object(let value)?: return value
        default: throw error("'\(key)' must be an object")
        }
    }

    public mutating func optionalInt(_ key: String) throws -> Int? {
        seen.insert(key)
        switch object[key] {
        case nil, .null?: return nil
        case .integer(let i)? where i >= 0: return i
        default: throw error("'\(key)' must be a whole number, 0 or more")
        }
    }

    public mutating func optionalBool(_ key: String) throws -> Bool? {
        seen.insert(key)
        switch object[key] {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        default: throw error("'\(key)' must be true or false")
        }
    }

    /// A positive number of seconds.
    public mutating func optionalDouble(_ key: String) throws -> Double? {
        seen.insert(key)
        switch object[key] {
        case nil, .null?: return nil
        case .integer(let i)? where i > 0: return Double(i)
        case .double(let d)? where d > 0: return d
        default: throw error("'\(key)' must be a positive number")
        }
    }

    public mutating func optionalStrings(_ key: String) throws -> [String]? {
        seen.insert(key)
        switch object[key] {
        case nil, .null?: return nil
        case .array(let items)?:
            return try items.map {
                guard let s = $0.stringValue else { throw error("'\(key)' must be a list of strings") }
                return s
            }
        default: throw error("'\(key)' must be a list of strings")
        }
    }

    /// Throws for the first key that was never read.
    public func finish() throws {
        if let unknown = object.keys.sorted().first(where: { !seen.contains($0) }) {
            throw Self.error("\(context) has unknown key '\(unknown)'")
        }
    }
}
