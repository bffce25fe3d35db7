/// One object of a configuration file, read key by key: typed values, clear errors, and an error
/// for any key nobody read (a typo is never ignored). The type that reads a section declares its
/// path keys by reading them as paths (``optionalPath(_:)``, ``optionalProgram(_:)``,
/// ``optionalCommand(_:)``): relative to the configuration file's folder, `~` expanded.
public struct ConfigSection: Sendable {
    /// The object as written, with renamed keys (``renamed(_:to:)``) under their new names.
    public private(set) var object: JSONObject
    /// Where it is, for error messages: "backend 'fast'".
    public let context: String
    /// The folder of the file it comes from, which its relative paths are relative to; nil for a
    /// section given in code or on the command line, whose paths are taken as they are.
    public let folder: String?
    private var seen: Set<String> = []
    /// The keys read as paths, with their kind (nested sections' as `outer.inner`).
    package private(set) var pathKeys: [String: ConfigPath.Kind] = [:]
    /// The paths read, as resolved, by key.
    package private(set) var resolvedPaths: [String: String] = [:]

    public init(_ object: JSONObject, context: String, folder: String? = nil) {
        self.object = object
        self.context = context
        self.folder = folder
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

    /// The value at `key` as a file or folder: relative to ``folder``, `~` expanded.
    public mutating func optionalPath(_ key: String) throws -> String? {
        let text = try optionalString(key)
        return resolve(key, .path, text)
    }

    /// The value at `key` as a program: a path (it has a `/`) as ``optionalPath(_:)``; a bare name stays, to find on PATH.
    public mutating func optionalProgram(_ key: String) throws -> String? {
        let text = try optionalString(key)
        return resolve(key, .program, text)
    }

    /// The value at `key` as a command line whose first item is a program (``optionalProgram(_:)``).
    public mutating func optionalCommand(_ key: String) throws -> [String]? {
        let command = try optionalStrings(key)
        let program = resolve(key, .command, command?.first)
        guard let command, let program else { return command }
        return [program] + command.dropFirst()
    }

    /// Records `key` as a path key of `kind`, and `text` resolved.
    private mutating func resolve(_ key: String, _ kind: ConfigPath.Kind, _ text: String?) -> String? {
        pathKeys[key] = kind
        guard let text else { return nil }
        let resolved = ConfigPath.resolve(text, kind: kind, folder: folder)
        resolvedPaths[key] = resolved
        return resolved
    }

    /// Reads the object at `key` with `read`, as a section of its own with this one's folder
    /// (every key of it read, or an error); nil when there is none.
    public mutating func nested<T>(_ key: String, _ read: (inout ConfigSection) throws -> T) throws -> T? {
        guard let object = try optionalObject(key) else { return nil }
        var inner = ConfigSection(object, context: "\(context) \(key)", folder: folder)
        let value = try read(&inner)
        try inner.finish()
        for (name, kind) in inner.pathKeys { pathKeys[key + "." + name] = kind }
        for (name, path) in inner.resolvedPaths { resolvedPaths[key + "." + name] = path }
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
