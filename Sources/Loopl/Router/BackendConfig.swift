/// One configured backend: which kind, and its settings.
public enum BackendConfig: Sendable, Hashable {
    /// llama.cpp in-process.
    case llama(Llama)
    /// A llama-server child (with a model), or an OpenAI-compatible server by URL.
    case server(Server)
    /// A worker process speaking Loopl's JSON-RPC protocol.
    case stdio(Stdio)

    public struct Llama: Sendable, Hashable {
        public var model: String
        public var contextLength: Int?
        public var threads: Int?
        public var batchSize: Int?
        public var gpuLayers: Int?
    }

    public struct Server: Sendable, Hashable {
        /// A model path starts a child llama-server; a URL attaches to a running server.
        public var model: String?
        public var url: String?
        public var apiKey: String?
        public var binary: String?
        public var contextLength: Int?
        public var threads: Int?
        public var extraArgs: [String]
    }

    public struct Stdio: Sendable, Hashable {
        public var command: [String]
        public var initializeTimeoutSeconds: Double?
        public var idleTimeoutSeconds: Double?
    }

    /// "llama", "server" or "stdio".
    public var kind: String {
        switch self {
        case .llama: "llama"
        case .server: "server"
        case .stdio: "stdio"
        }
    }

    /// Reads one entry of the config's `backends`; `name` is used in error messages.
    init(name: String, json: JSONValue) throws {
        guard let object = json.objectValue else { throw ConfigReader.error("backend '\(name)' must be an object") }
        var reader = ConfigReader(object, context: "backend '\(name)'")
        let kind = try reader.string("kind")
        switch kind {
        case "llama":
            self = .llama(Llama(model: try reader.string("model"), contextLength: try reader.optionalInt("contextLength"),
                                threads: try reader.optionalInt("threads"), batchSize: try reader.optionalInt("batchSize"),
                                gpuLayers: try reader.optionalInt("gpuLayers")))
        case "server":
            let server = Server(model: try reader.optionalString("model"), url: try reader.optionalString("url"),
                                apiKey: try reader.optionalString("apiKey"), binary: try reader.optionalString("binary"),
                                contextLength: try reader.optionalInt("contextLength"), threads: try reader.optionalInt("threads"),
                                extraArgs: try reader.optionalStrings("extraArgs") ?? [])
            guard (server.model == nil) != (server.url == nil) else {
                throw ConfigReader.error("backend '\(name)' needs either 'model' (to start llama-server) or 'url' (to attach), not both")
            }
            self = .server(server)
        case "stdio":
            let command = try reader.optionalStrings("command") ?? []
            guard !command.isEmpty else { throw ConfigReader.error("backend '\(name)' needs a non-empty 'command'") }
            self = .stdio(Stdio(command: command, initializeTimeoutSeconds: try reader.optionalDouble("initializeTimeoutSeconds"),
                                idleTimeoutSeconds: try reader.optionalDouble("idleTimeoutSeconds")))
        default:
            throw ConfigReader.error("backend '\(name)' has unknown kind '\(kind)': use llama, server or stdio")
        }
        try reader.finish()
    }
}

/// Reads typed keys out of a JSON object and rejects the keys nobody read.
struct ConfigReader {
    private let object: JSONObject
    private let context: String
    private var seen: Set<String> = []

    init(_ object: JSONObject, context: String) {
        self.object = object
        self.context = context
    }

    static func error(_ reason: String) -> LooplError {
        LooplError(.invalidConfiguration, "Invalid configuration: \(reason).")
    }

    mutating func optionalString(_ key: String) throws -> String? {
        seen.insert(key)
        switch object[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw Self.error("\(context): '\(key)' must be a string")
        }
    }

    mutating func string(_ key: String) throws -> String {
        guard let value = try optionalString(key) else { throw Self.error("\(context): '\(key)' is missing") }
        return value
    }

    mutating func object(_ key: String) throws -> JSONObject {
        seen.insert(key)
        guard let value = object[key]?.objectValue else { throw Self.error("\(context): '\(key)' must be an object") }
        return value
    }

    mutating func optionalInt(_ key: String) throws -> Int? {
        seen.insert(key)
        switch object[key] {
        case nil, .null?: return nil
        case .integer(let i)? where i >= 0: return i
        default: throw Self.error("\(context): '\(key)' must be a whole number, 0 or more")
        }
    }

    mutating func optionalDouble(_ key: String) throws -> Double? {
        seen.insert(key)
        switch object[key] {
        case nil, .null?: return nil
        case .integer(let i)? where i > 0: return Double(i)
        case .double(let d)? where d > 0: return d
        default: throw Self.error("\(context): '\(key)' must be a positive number")
        }
    }

    mutating func optionalStrings(_ key: String) throws -> [String]? {
        seen.insert(key)
        switch object[key] {
        case nil, .null?: return nil
        case .array(let items)?:
            return try items.map {
                guard let s = $0.stringValue else { throw Self.error("\(context): '\(key)' must be a list of strings") }
                return s
            }
        default: throw Self.error("\(context): '\(key)' must be a list of strings")
        }
    }

    func finish() throws {
        if let unknown = object.keys.first(where: { !seen.contains($0) }) {
            throw Self.error("\(context) has unknown key '\(unknown)'")
        }
    }
}
