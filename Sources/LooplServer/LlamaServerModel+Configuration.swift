import Foundation
import Loopl

extension LlamaServerModel {
    /// How a ``LlamaServerModel`` reaches its server: a child llama-server it starts, or a server
    /// already running. Every default is written here once; the config file's keys are named in
    /// ``LlamaServerModel/kind``.
    public struct Configuration: Sendable {
        /// Where the server comes from.
        public enum Target: Sendable, Hashable {
            /// Start the pinned llama-server on the GGUF model at this path.
            case child(model: String)
            /// Use an OpenAI-compatible server already running at this base URL (without `/v1`).
            case attach(url: URL, apiKey: String?)
        }

        /// Who turns a conversation into the prompt.
        public enum Rendering: Sendable {
            /// Loopl, with the model's own template and Loopl's grammars, through llama-server's
            /// `/completion`: the in-process backend's prompt, token for token. A child's default.
            case loopl
            /// The server, with its own template, through `/v1/chat/completions`; it parses the
            /// calls itself (the style is `.native`). The default when attaching.
            case server
            /// A renderer of your own, through `/completion`.
            case custom(any PromptRenderer)
        }

        /// Default: a child on ``LooplHome/defaultModel``.
        public var target: Target
        /// Who renders the prompt; nil (the default) is `.loopl` for a child and `.server` when attaching.
        public var rendering: Rendering?
        /// The llama-server binary for a child; default the pinned one (``LlamaCppInstall/server``).
        public var serverPath: String
        /// A child's context length in tokens, default 4096; when attaching, the size to report
        /// when the server does not say.
        public var contextLength: Int?
        /// CPU threads for a child; nil (the default) is the machine's core count.
        public var threads: Int?
        /// More arguments for a child's command line; default none.
        public var extraArguments: [String]
        /// A child that shows no progress (no new log line, no change of health) for this long
        /// while loading has failed; default 60 s.
        public var readinessStallTimeout: Duration
        /// How long a cancelled generation may keep a child's slot busy before the child is
        /// restarted; default 2 s.
        public var cancellationGrace: Duration
        /// Seconds without any byte from the server before a request fails; default 600.
        public var idleTimeout: TimeInterval

        /// The renderer in use, resolved by ``LlamaServerModel/start(_:)``.
        var renderer: (any PromptRenderer)?

        public init(target: Target = .child(model: LooplHome.defaultModel), rendering: Rendering? = nil,
                    serverPath: String = LlamaCppInstall.server, contextLength: Int? = nil, threads: Int? = nil,
                    extraArguments: [String] = [], readinessStallTimeout: Duration = .seconds(60),
                    cancellationGrace: Duration = .seconds(2), idleTimeout: TimeInterval = 600) {
            self.target = target
            self.rendering = rendering
            self.serverPath = serverPath
            self.contextLength = contextLength
            self.threads = threads
            self.extraArguments = extraArguments
            self.readinessStallTimeout = readinessStallTimeout
            self.cancellationGrace = cancellationGrace
            self.idleTimeout = idleTimeout
        }

        /// A child's context when none is given, as the in-process backend's default.
        static let defaultChildContext = 4096

        var resolvedThreads: Int { threads ?? ProcessInfo.processInfo.activeProcessorCount }

        /// The renderer that ``rendering`` names, made from the model file for `.loopl`.
        func resolvedRenderer() throws -> (any PromptRenderer)? {
            switch (rendering, target) {
            case (.server?, _), (nil, .attach): return nil
            case (.custom(let renderer)?, _): return renderer
            case (.loopl?, .child(let model)), (nil, .child(let model)): return try ChatPromptRenderer(modelPath: model)
            case (.loopl?, .attach):
                throw LooplError(.invalidConfiguration, "Loopl renders only for a child llama-server, whose model file it can read; attach with rendering .server or .custom.")
            }
        }
    }

    /// The `server` kind of a configuration file: `{"kind": "server", "model": ..., "binary": ...,
    /// "contextLength": ..., "threads": ..., "extraArgs": [...]}` for a child (every key optional),
    /// or `{"kind": "server", "url": ..., "apiKey": ..., "contextLength": ...}` to attach.
    public static let kind = BackendKind(name: "server", builtIn: [:], read: { section in
        var configuration = Configuration()
        let model = try section.optionalString("model")
        if let url = try section.optionalString("url") {
            guard model == nil else {
                throw section.error("give either 'model' (to start llama-server) or 'url' (to attach), not both")
            }
            guard let parsed = URL(string: url), parsed.host != nil else { throw section.error("'\(url)' is not a URL") }
            configuration.target = .attach(url: parsed, apiKey: try section.optionalString("apiKey"))
        } else {
            if let model { configuration.target = .child(model: model) }
            section.accept("apiKey")
        }
        try section.read("binary", into: &configuration.serverPath)
        try section.read("contextLength", into: &configuration.contextLength)
        try section.read("threads", into: &configuration.threads)
        try section.read("extraArgs", into: &configuration.extraArguments)
        return configuration
    }, problem: { configuration in
        guard case .child(let model) = configuration.target else { return nil }
        let files = FileManager.default
        if !files.fileExists(atPath: model) { return "no model file at \(model)" }
        return files.isExecutableFile(atPath: configuration.serverPath) ? nil : "no llama-server at \(configuration.serverPath)"
    }, override: { section, overrides in
        guard section["url"] == nil else { return }  // an attached server is configured where it runs
        for (key, value) in overrides.keys where key != "gpuLayers" { section[key] = value }
        if let layers = overrides.gpuLayers {
            section["extraArgs"] = .array((section["extraArgs"]?.arrayValue ?? []) + ["-ngl", .string(String(layers))])
        }
    }, start: { configuration in
        try await LlamaServerModel.start(configuration)
    })
}
