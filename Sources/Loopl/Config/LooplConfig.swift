import Foundation

/// The backends a user can pick from, read from a JSON file or built in.
///
/// Shape: `{"default": "llama", "fallback": ["server"], "backends": {"NAME": {"kind": ..., ...}},
/// "mcpServers": {"NAME": {...}}, "serve": {...}, "tools": {...}}`. Each backend is read by the
/// ``BackendKind`` it names; unknown keys are errors. Without `backends`, the built-in backends are
/// used. `mcpServers`, `serve` and `tools` are kept as written, for the MCP client (LooplMCP),
/// `loopl serve` and the command line's built-in tools to read.
public struct LooplConfig: Sendable {
    public var defaultBackend: String
    /// Tried in order when the default backend fails before its first token.
    public var fallback: [String]
    package var backends: [String: BackendConfig]
    /// The `mcpServers` object as written (empty when there is none); LooplMCP reads its entries.
    public var mcpServers: JSONObject = [:]
    /// The `serve` object as written (empty when there is none): `loopl serve`'s settings.
    package var serve: JSONObject = [:]
    /// The `tools` object as written (empty when there is none): settings of the built-in tools.
    package var tools: JSONObject = [:]
    /// The kinds its backends may name.
    package var kinds: [BackendKind] = []
    /// Where it was read from; nil for the built-in defaults.
    public var source: String?
    /// The folder of the file it was read from, which the paths in every section are relative to
    /// (``ConfigPath``); nil for the built-in defaults and text given without one.
    public var folder: String?
    /// Which of the places ``load(explicit:kinds:environment:folder:)`` looks in it came from.
    package var origin: Origin = .builtIn

    /// Parses a config file's text; `kinds` are the backend kinds that entries may name. Relative
    /// paths in it are taken as relative to `folder`, the file's folder, when given (``ConfigPath``).
    public init(json text: String, source: String? = nil, folder: String? = nil, kinds: [BackendKind]) throws {
        let value: JSONValue
        do { value = try JSONValue(parsing: text) } catch {
            throw LooplError(.invalidConfiguration, "\(source ?? "The configuration") is not valid JSON: \(error.message)")
        }
        guard let object = value.objectValue else { throw ConfigSection.error("the top level must be an object") }
        var reader = ConfigSection(object, context: "the top level")
        let named = try reader.optionalString("default")
        let fallback = try reader.optionalStrings("fallback") ?? []
        let entries = try reader.optionalObject("backends")
        let servers = try reader.optionalObject("mcpServers") ?? [:]
        let serve = try reader.optionalObject("serve") ?? [:]
        let tools = try reader.optionalObject("tools") ?? [:]
        try reader.finish()
        if let entries {
            var backends: [String: BackendConfig] = [:]
            for (name, entry) in entries { backends[name] = try BackendConfig(name: name, json: entry, kinds: kinds, folder: folder) }
            self.init(defaultBackend: named ?? kinds.first?.name ?? "", fallback: fallback, backends: backends, source: source)
        } else {
            self = try Self.builtIn(kinds: kinds)
            self.defaultBackend = named ?? defaultBackend
            self.fallback = fallback
            self.source = source
        }
        mcpServers = servers
        self.kinds = kinds
        self.folder = folder
        self.serve = serve
        self.tools = tools
        for name in [defaultBackend] + self.fallback where backends[name] == nil {
            throw ConfigSection.error("'\(name)' is named as default or fallback but is not among the backends (\(backends.keys.sorted().joined(separator: ", ")))")
        }
    }

    /// The built-in defaults: one backend per kind that has a built-in section, named after the
    /// kind (and after each of its ``BackendKind/alsoBuiltInAs``); the first such kind is the default.
    public static func builtIn(kinds: [BackendKind]) throws -> LooplConfig {
        var backends: [String: BackendConfig] = [:]
        for kind in kinds {
            guard var section = kind.builtIn else { continue }
            section["kind"] = .string(kind.name)
            for name in [kind.name] + kind.alsoBuiltInAs {
                backends[name] = try BackendConfig(name: name, json: .object(section), kinds: [kind])
            }
        }
        let first = kinds.first { $0.builtIn != nil }?.name ?? ""
        var config = LooplConfig(defaultBackend: first, fallback: [], backends: backends, source: nil)
        config.kinds = kinds
        return config
    }

    init(defaultBackend: String, fallback: [String], backends: [String: BackendConfig], source: String?) {
        self.defaultBackend = defaultBackend
        self.fallback = fallback
        self.backends = backends
        self.source = source
    }

    /// Where a loaded config came from.
    package enum Origin: Sendable, Equatable {
        /// No file: the built-in defaults.
        case builtIn
        /// `--config FILE`.
        case explicit
        /// `$LOOPL_CONFIG`.
        case environment
        /// `./loopl.json` in the working folder, honoured only once trusted (``ConfigTrust``).
        case folder
        /// The user's own `~/.config/loopl/config.json` (or under `$XDG_CONFIG_HOME`).
        case user
    }

    /// Finds the config: `explicit`, else $LOOPL_CONFIG, else `folder`/loopl.json if the user
    /// trusted it (`loopl trust`), else the user's own config.json, else the built-in defaults.
    /// Every file must be the user's own and writable by no one else (``ConfigFile``).
    public static func load(explicit: String?, kinds: [BackendKind],
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            folder: String = FileManager.default.currentDirectoryPath) throws -> LooplConfig {
        let named: [(String?, Origin)] = [(explicit, .explicit), (environment["LOOPL_CONFIG"], .environment)]
        for case let (path?, origin) in named {
            guard FileManager.default.fileExists(atPath: path) else {
                throw LooplError(.invalidConfiguration, "No configuration file at \(path).")
            }
            return try parse(try ConfigFile.read(path), path: path, origin: origin, kinds: kinds)
        }
        let local = folder + "/loopl.json"
        if FileManager.default.fileExists(atPath: local) {
            let file = try ConfigFile.read(local)
            guard try ConfigTrust.isTrusted(file, environment: environment) else {
                throw LooplError(.invalidConfiguration, """
                    The folder's configuration file \(file.realPath) is not trusted, or has changed since it was: \
                    it can name commands to run. Read it, then run 'loopl trust ./loopl.json' to use it, \
                    or pass --config FILE.
                    """)
            }
            return try parse(file, path: file.realPath, origin: .folder, kinds: kinds)
        }
        let own = (environment["HOME"] ?? NSHomeDirectory()) + "/.config/loopl/config.json"
        if FileManager.default.fileExists(atPath: own) {
            return try parse(try ConfigFile.read(own), path: own, origin: .user, kinds: kinds)
        }
        return try builtIn(kinds: kinds)
    }

    private static func parse(_ file: ConfigFile, path: String, origin: Origin, kinds: [BackendKind]) throws -> LooplConfig {
        let folder = String(file.realPath[..<(file.realPath.lastIndex(of: "/") ?? file.realPath.startIndex)])
        var config = try LooplConfig(json: String(decoding: file.data, as: UTF8.self), source: path,
                                     folder: folder.isEmpty ? "/" : folder, kinds: kinds)
        config.origin = origin
        return config
    }

    /// Writes `overrides` over every backend (the command line's `-m`, `-t`, `-c`, `-ngl`).
    package mutating func apply(_ overrides: BackendOverrides) throws {
        guard !overrides.isEmpty else { return }
        backends = try backends.mapValues { try $0.overridden(by: overrides) }
    }

    /// The names of the configured backends, sorted.
    package var backendNames: [String] { backends.keys.sorted() }

    /// The backend named `name`, or a clear error listing what exists.
    package func backend(_ name: String) throws -> BackendConfig {
        guard let backend = backends[name] else {
            throw LooplError(.invalidConfiguration, "No backend named '\(name)'. Configured: \(backends.keys.sorted().joined(separator: ", ")).")
        }
        return backend
    }

    /// A backend named `name` for the model file at `path`, with the keys of `defaults` (any
    /// backend keys but `model`; `kind` is `llama` unless they say).
    package func backend(named name: String, file path: String, defaults: JSONObject) throws -> BackendConfig {
        guard defaults["model"] == nil else { throw ConfigSection.error("serve.modelDefaults: 'model' is each file's own; remove it") }
        var section = defaults
        if section["kind"] == nil { section["kind"] = "llama" }
        section["model"] = .string(path)
        return try BackendConfig(name: name, json: .object(section), kinds: kinds, folder: folder)
    }
}
