/// A kind of backend that a configuration can name (`"kind": "llama"`): how to read its section
/// and how to start a model from it.
///
/// The core knows no backend: each backend module offers its kind (`LlamaModel.kind`,
/// `LlamaServerModel.kind`, `StdioModel.kind(...)`), and a program hands the kinds it links to
/// ``LooplConfig``. A new backend is a new kind; nothing in the core changes.
public struct BackendKind: Sendable {
    /// The name in a config's `kind` key.
    public let name: String
    /// The section that the built-in configuration holds for this kind, under the kind's name;
    /// nil when the kind has no built-in backend.
    public let builtIn: JSONObject?
    /// More names under which the built-in configuration holds ``builtIn`` (a name that says
    /// what the backend is for, as `isolated` for a `stdio` worker around the in-process engine).
    public let alsoBuiltInAs: [String]
    let prepare: @Sendable (_ section: inout ConfigSection) throws -> Prepared
    let override: @Sendable (_ section: inout JSONObject, _ overrides: BackendOverrides) -> Void

    /// A section that was read: how to start it, and what keeps it from running now.
    struct Prepared: Sendable {
        let start: @Sendable () async throws -> any Model
        let problem: @Sendable () -> String?
        /// Its `parallel` and `maxQueue`; nil for a kind that has none.
        let capacity: BackendCapacity?
    }

    /// A kind that reads its section into a `Configuration` (every key it reads, with the
    /// defaults of that type) and starts a model from it. `problem` says what keeps a configured
    /// backend from running now (a missing file or binary), or nil. Command-line overrides write
    /// the section's `model`, `threads`, `contextLength` and `gpuLayers` keys.
    public init<Configuration: Sendable>(
        name: String, builtIn: JSONObject? = nil, alsoBuiltInAs: [String] = [],
        read: @escaping @Sendable (inout ConfigSection) throws -> Configuration,
        problem: @escaping @Sendable (Configuration) -> String? = { _ in nil },
        start: @escaping @Sendable (Configuration) async throws -> any Model
    ) {
        self.init(name: name, builtIn: builtIn, alsoBuiltInAs: alsoBuiltInAs, read: read, problem: problem, capacity: { _ in nil },
                  start: start)
    }

    /// A kind as above whose `override` writes command-line ``BackendOverrides`` into a section
    /// (default: its `model`, `threads`, `contextLength` and `gpuLayers` keys), and whose
    /// `capacity` gives the configuration's `parallel` and `maxQueue`, which bound the backend's
    /// `maxConcurrent`.
    package init<Configuration: Sendable>(
        name: String, builtIn: JSONObject? = nil, alsoBuiltInAs: [String] = [],
        read: @escaping @Sendable (inout ConfigSection) throws -> Configuration,
        problem: @escaping @Sendable (Configuration) -> String? = { _ in nil },
        capacity: @escaping @Sendable (Configuration) -> BackendCapacity?,
        override: @escaping @Sendable (inout JSONObject, BackendOverrides) -> Void = { section, overrides in
            for (key, value) in overrides.keys { section[key] = value }
        },
        start: @escaping @Sendable (Configuration) async throws -> any Model
    ) {
        self.name = name
        self.builtIn = builtIn
        self.alsoBuiltInAs = builtIn == nil ? [] : alsoBuiltInAs
        self.override = override
        self.prepare = { section in
            let configuration = try read(&section)
            return Prepared(start: { try await start(configuration) }, problem: { problem(configuration) },
                            capacity: capacity(configuration))
        }
    }

    /// The keys this kind reads from `section`, for checking the documented list against the reader.
    package func keys(reading section: JSONObject) throws -> Set<String> {
        var reader = ConfigSection(section, context: "backend '\(name)'")
        _ = try prepare(&reader)
        return reader.readKeys
    }

    /// Reads `section` as this kind does, for checking what it reads (its keys, its paths).
    package func read(_ section: inout ConfigSection) throws { _ = try prepare(&section) }
}
