/// One configured backend: its name, its kind, its section as written, and the model it starts.
package struct BackendConfig: Sendable {
    /// The backend's name in the config's `backends`.
    package let name: String
    /// The kind's name (`llama`, `server`, `stdio`, or one a program adds).
    package let kind: String
    /// The section as written, `kind` included.
    package let section: JSONObject
    /// Other model names that `loopl serve` answers with this backend (`aliases`; `"*"` takes
    /// every name that no backend or alias claims).
    package let aliases: [String]
    /// The most requests `loopl serve` runs on it at once (`maxConcurrent`, at most its
    /// `parallel`); nil: its `parallel`.
    package let maxConcurrent: Int?
    /// How long `loopl serve` keeps its model loaded after its last request (`keepAlive`); nil:
    /// the server's default for it (never, for a backend of the config).
    package let keepAlive: KeepAlive?
    /// The keys every kind takes, which ``BackendConfig`` reads itself.
    package static let commonKeys = ["kind", "aliases", "maxConcurrent", "keepAlive"]
    /// The folder of the config file, which the section's paths are relative to.
    let folder: String?
    private let reader: BackendKind
    private let prepared: BackendKind.Prepared

    /// Reads the entry `json` named `name` with the kind it names among `kinds`; its paths are relative to `folder`.
    init(name: String, json: JSONValue, kinds: [BackendKind], folder: String? = nil) throws {
        guard let object = json.objectValue else { throw ConfigSection.error("backend '\(name)' must be an object") }
        var section = ConfigSection(object, context: "backend '\(name)'", folder: folder)
        let kind = try section.string("kind")
        guard let reader = kinds.first(where: { $0.name == kind }) else {
            throw ConfigSection.error("backend '\(name)' has unknown kind '\(kind)': use \(kinds.map(\.name).joined(separator: ", "))")
        }
        aliases = try section.optionalStrings("aliases") ?? []
        let maxConcurrent = try section.optionalInt("maxConcurrent")
        keepAlive = try section.optional("keepAlive")
        prepared = try reader.prepare(&section)
        try section.finish()
        if let maxConcurrent {
            let parallel = prepared.capacity?.parallel ?? Int(Int32.max)
            guard (1...parallel).contains(maxConcurrent) else {
                throw section.error("'maxConcurrent' must be from 1 to \(parallel) (its 'parallel'), the requests served at once through the server")
            }
        }
        self.maxConcurrent = maxConcurrent
        self.name = name
        self.kind = kind
        self.section = object
        self.folder = folder
        self.reader = reader
    }

    /// The same backend with `overrides` written over its section.
    package func overridden(by overrides: BackendOverrides) throws -> BackendConfig {
        var object = section
        reader.override(&object, overrides)
        return try BackendConfig(name: name, json: .object(object), kinds: [reader], folder: folder)
    }

    /// Starts the backend's model (it may load or spawn, and fail).
    package func start() async throws -> any Model { try await prepared.start() }

    /// How many requests `loopl serve` runs on it at once and lets wait: `maxConcurrent` (else
    /// `parallel`) and `maxQueue`; nil for a kind without them and no `maxConcurrent`.
    package var servedCapacity: BackendCapacity? {
        let capacity = prepared.capacity
        guard let parallel = maxConcurrent ?? capacity?.parallel else { return nil }
        return BackendCapacity(parallel: parallel, maxQueue: capacity?.maxQueue ?? 64)
    }

    /// What keeps this backend from running now (a missing model file or binary), or nil.
    package var problem: String? { prepared.problem() }
}
