import Foundation

/// The backends a user can pick from, read from a JSON file or built in.
///
/// Shape: `{"default": "llama", "fallback": ["server"], "backends": {"NAME": {"kind": ..., ...}}}`.
/// Unknown keys are errors.
public struct LooplConfig: Sendable, Hashable {
    public var defaultBackend: String
    /// Tried in order when the default backend fails before its first token.
    public var fallback: [String]
    public var backends: [String: BackendConfig]
    /// Where it was read from; nil for the built-in defaults.
    public var source: String?

    /// Parses a config file's text.
    public init(json text: String, source: String? = nil) throws {
        let value: JSONValue
        do { value = try JSONValue(parsing: text) } catch let error as LooplError {
            throw LooplError(.invalidConfiguration, "\(source ?? "The configuration") is not valid JSON: \(error.message)")
        }
        guard let object = value.objectValue else { throw ConfigReader.error("the top level must be an object") }
        var reader = ConfigReader(object, context: "the top level")
        defaultBackend = try reader.optionalString("default") ?? "llama"
        fallback = try reader.optionalStrings("fallback") ?? []
        let entries = try reader.object("backends")
        try reader.finish()
        var backends: [String: BackendConfig] = [:]
        for (name, entry) in entries { backends[name] = try BackendConfig(name: name, json: entry) }
        self.backends = backends
        self.source = source
        for name in [defaultBackend] + fallback where backends[name] == nil {
            throw ConfigReader.error("'\(name)' is named as default or fallback but is not among the backends (\(backends.keys.sorted().joined(separator: ", ")))")
        }
    }

    /// The built-in defaults: `llama`, `server` and `stdio`, all on the model and binaries of scripts/bootstrap.
    public static func builtIn(workerCommand: [String]) -> LooplConfig {
        let model = LooplHome.defaultModel
        return LooplConfig(
            defaultBackend: "llama", fallback: [],
            backends: [
                "llama": .llama(.init(model: model, contextLength: 4096, threads: nil, batchSize: 512, gpuLayers: 0)),
                "server": .server(.init(model: model, url: nil, apiKey: nil, binary: LooplHome.llamaServer,
                                        contextLength: 4096, threads: nil, extraArgs: [])),
                "stdio": .stdio(.init(command: workerCommand + ["worker", "--backend", "llama"],
                                      initializeTimeoutSeconds: 30, idleTimeoutSeconds: 60)),
            ],
            source: nil)
    }

    init(defaultBackend: String, fallback: [String], backends: [String: BackendConfig], source: String?) {
        self.defaultBackend = defaultBackend
        self.fallback = fallback
        self.backends = backends
        self.source = source
    }

    /// Finds the config: `explicit`, else $LOOPL_CONFIG, else ./loopl.json, else
    /// ~/.config/loopl/config.json, else the built-in defaults.
    public static func load(explicit: String?, workerCommand: [String]) throws -> LooplConfig {
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"] ?? NSHomeDirectory()
        let candidates: [(String, Bool)] = [
            (explicit, true), (environment["LOOPL_CONFIG"], true), ("loopl.json", false), (home + "/.config/loopl/config.json", false),
        ].compactMap { path, required in path.map { ($0, required) } }
        for (path, required) in candidates {
            guard FileManager.default.fileExists(atPath: path) else {
                if required { throw LooplError(.invalidConfiguration, "No configuration file at \(path).") }
                continue
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw LooplError(.invalidConfiguration, "Cannot read the configuration file \(path).")
            }
            return try LooplConfig(json: String(decoding: data, as: UTF8.self), source: path)
        }
        return builtIn(workerCommand: workerCommand)
    }

    /// The backend named `name`, or a clear error listing what exists.
    public func backend(_ name: String) throws -> BackendConfig {
        guard let backend = backends[name] else {
            throw LooplError(.invalidConfiguration, "No backend named '\(name)'. Configured: \(backends.keys.sorted().joined(separator: ", ")).")
        }
        return backend
    }
}
