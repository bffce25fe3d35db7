import Foundation
import Loopl
import LooplHTTP

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
            /// Spread the requests over several such servers, replicas of one model, all taking
            /// `apiKey`: see docs/scale-out.md.
            case replicas(urls: [URL], apiKey: String?)

            /// The attached servers' URLs; none for a child.
            var urls: [URL] {
                switch self {
                case .child: []
                case .attach(let url, _): [url]
                case .replicas(let urls, _): urls
                }
            }

            /// The attached servers' key.
            var apiKey: String? {
                switch self {
                case .child: nil
                case .attach(_, let key), .replicas(_, let key): key
                }
            }
        }

        /// Who turns a conversation into the prompt.
        public enum Rendering: Sendable {
            /// Loopl, with the model's own template and Loopl's grammars, through llama-server's
            /// `/completion`: the in-process backend's prompt, token for token. A child's default.
            case loopl
            /// The server, with its own template, through `/v1/chat/completions`; it parses the
            /// calls and thinking itself. The default when attaching.
            case server
            /// A renderer of your own, through `/completion`.
            case custom(any PromptRenderer)
        }

        /// Default: a child on the default model (`$LOOPL_MODEL`, else the one `scripts/bootstrap` fetched).
        public var target: Target
        /// Who renders the prompt; nil (the default) is `.loopl` for a child and `.server` when attaching.
        public var rendering: Rendering?
        /// The llama-server binary for a child; default the pinned one (``LlamaCppInstall/server``).
        public var serverPath: String
        /// A child's context length in tokens for each request, default 4096 (the child holds
        /// ``parallel`` times as many); when attaching, the size to report when the server does not say.
        public var contextLength: Int?
        /// How many requests a child serves at once (its slots, `-np`), and how many go to each
        /// attached server at once; default 4.
        public var parallel: Int
        /// How many requests may wait beyond those, in arrival order; one more fails with `busy`
        /// at once. Default 64.
        public var maxQueue: Int
        /// How long an attached server that refused a connection, failed its health check or broke
        /// off an answer is skipped, doubled for each failure in a row; default 1 s.
        public var replicaBackoff: Duration
        /// CPU threads for a child; nil (the default) is the machine's core count.
        public var threads: Int?
        /// The most tokens a child evaluates in one step (its `--batch-size` and `--ubatch-size`):
        /// while slots generate, a prompt that arrives is evaluated in chunks of about this many
        /// tokens; nil (the default) keeps llama-server's own (2048 and 512).
        public var batchSize: Int?
        /// More arguments for a child's command line; default none.
        public var extraArguments: [String]
        /// A child that shows no progress (no new log line, no change of health) for this long
        /// while loading has failed; default 60 s.
        public var readinessStallTimeout: Duration
        /// How long a cancelled generation may keep a child's slot busy before the child is
        /// restarted; default 2 s.
        public var cancellationGrace: Duration
        /// How long without any byte from the server before a request fails; default 600 s.
        public var idleTimeout: Duration
        /// Running `ggml-rpc-server` workers (`host:port`) that a child puts the model's layers on;
        /// default none. An address off this machine needs ``allowRemoteRPC``.
        public var rpc: [String]
        /// Local `ggml-rpc-server` workers a child starts on free 127.0.0.1 ports (beside those in
        /// ``rpc``) and owns; default 0.
        public var rpcWorkers: Int
        /// CPU threads of each worker in ``rpcWorkers``; default 1.
        public var rpcThreads: Int
        /// Allows addresses in ``rpc`` off this machine, whose port anyone on the network can use:
        /// llama.cpp's RPC protocol has no authentication. Default false.
        public var allowRemoteRPC: Bool
        /// Drafting for a child (`--spec-type ngram-simple` or `draft-simple` and its sizes); default ``Speculation/none``.
        public var speculative: Speculation
        /// Whether control-token text in message content (`<|im_start|>` in a tool result) reaches
        /// the model as its control tokens when Loopl renders; default false: it stays plain text.
        public var allowSpecialTokensInContent: Bool
        /// A chat template (its Jinja text) Loopl renders a child's prompts with instead of the
        /// model's own; nil (the default) is the model's.
        public var chatTemplate: String?
        /// The whitespace Loopl's grammars allow inside JSON when it renders; default ``GrammarSpacing/separated``.
        public var grammarSpacing: GrammarSpacing = .separated
        /// Whether the backend computes embeddings: a child starts with `--embeddings --pooling P`
        /// (which changes llama-server's batching and turns drafting off, so it is opt-in), an
        /// attached server gets `/v1/embeddings`. Default false: embeddings fail with a 400.
        public var embeddings = false
        /// A child's embeddings pooling; nil (the default) is what the GGUF declares, else mean.
        public var pooling: EmbeddingPooling?

        /// The renderer in use, resolved by ``LlamaServerModel/start(_:)``.
        var renderer: (any PromptRenderer)?

        public init(target: Target = .child(model: LooplHome.defaultModel), rendering: Rendering? = nil,
                    serverPath: String = LlamaCppInstall.server, contextLength: Int? = nil, parallel: Int = 4,
                    maxQueue: Int = 64, threads: Int? = nil, batchSize: Int? = nil, extraArguments: [String] = [],
                    readinessStallTimeout: Duration = .seconds(60), cancellationGrace: Duration = .seconds(2),
                    idleTimeout: Duration = .seconds(600), replicaBackoff: Duration = .seconds(1),
                    rpc: [String] = [], rpcWorkers: Int = 0, rpcThreads: Int = 1, allowRemoteRPC: Bool = false,
                    speculative: Speculation = .none, allowSpecialTokensInContent: Bool = false, chatTemplate: String? = nil) {
            self.target = target
            self.chatTemplate = chatTemplate
            self.rendering = rendering
            self.serverPath = serverPath
            self.contextLength = contextLength
            self.parallel = parallel
            self.maxQueue = maxQueue
            self.replicaBackoff = replicaBackoff
            self.threads = threads
            self.batchSize = batchSize
            self.extraArguments = extraArguments
            self.readinessStallTimeout = readinessStallTimeout
            self.cancellationGrace = cancellationGrace
            self.idleTimeout = idleTimeout
            self.rpc = rpc
            self.rpcWorkers = rpcWorkers
            self.rpcThreads = rpcThreads
            self.speculative = speculative
            self.allowRemoteRPC = allowRemoteRPC
            self.allowSpecialTokensInContent = allowSpecialTokensInContent
        }

        /// A child's context when none is given, as the in-process backend's default.
        static let defaultChildContext = 4096

        var resolvedThreads: Int { threads ?? ProcessInfo.processInfo.activeProcessorCount }

        /// A child's context for one request.
        var resolvedContext: Int { contextLength ?? Self.defaultChildContext }

        /// True when a child places its layers on RPC workers.
        var usesRPC: Bool { !rpc.isEmpty || rpcWorkers > 0 }

        /// The ``rpc`` addresses, checked: each is `host:port`, one off this machine needs
        /// ``allowRemoteRPC``, and only a child uses workers.
        func rpcEndpoints() throws -> [RPCEndpoint] {
            if !target.urls.isEmpty, usesRPC {
                throw LooplError(.invalidConfiguration, "RPC workers (rpc, rpcWorkers) are for a child llama-server that Loopl starts; an attached server is given its workers by whoever started it.")
            }
            guard rpc.count + rpcWorkers <= 16 else {
                throw LooplError(.invalidConfiguration, "llama.cpp takes at most 16 RPC workers, and rpc and rpcWorkers give \(rpc.count + rpcWorkers); use fewer.")
            }
            return try rpc.map { text in
                guard let endpoint = RPCEndpoint(parsing: text) else {
                    throw LooplError(.invalidConfiguration, "The RPC worker address '\(text)' is not host:port (for example 192.168.1.20:50052).")
                }
                guard endpoint.isLoopback || allowRemoteRPC else {
                    throw LooplError(.invalidConfiguration, "The RPC worker \(endpoint) is not on this machine, and llama.cpp's RPC protocol has no authentication: anyone who can reach its port can use the worker and read what it computes. Set \"allowRemoteRPC\": true only for workers on a network you trust, behind a firewall.")
                }
                return endpoint
            }
        }

        /// The renderer that ``rendering`` names, made from the model file for `.loopl`.
        func resolvedRenderer() throws -> (any PromptRenderer)? {
            switch (rendering, target) {
            case (.server?, _), (nil, .attach), (nil, .replicas): return nil
            case (.custom(let renderer)?, _): return renderer
            case (.loopl?, .child(let model)), (nil, .child(let model)):
                var prompt = try ChatPrompt(modelFile: model, template: chatTemplate)
                prompt.grammarSpacing = grammarSpacing
                return ChatPromptRenderer(prompt: prompt)
            case (.loopl?, .attach), (.loopl?, .replicas):
                throw LooplError(.invalidConfiguration, "Loopl renders only for a child llama-server, whose model file it can read; attach with rendering .server or .custom.")
            }
        }
    }

    /// The `server` kind of a configuration file: `{"kind": "server", "model": ..., "serverPath": ...,
    /// "contextLength": ..., "threads": ..., "batchSize": ..., "extraArguments": [...]}` for a child (every key optional),
    /// or `{"kind": "server", "url": ..., "apiKey": ..., "contextLength": ...}` to attach, or
    /// `"urls": [...]` instead of `url` to spread the requests over replicas. `"parallel": N` and
    /// `"maxQueue": N` bound the requests at once and those waiting. A child can put its layers on
    /// RPC workers: `"rpc": ["host:port", ...]`, `"rpcWorkers": N`, `"rpcThreads": N`, `"allowRemoteRPC": true`;
    /// `"speculative": {"type": "ngram", "draftMax": N}` turns on its n-gram drafting (`"draftModel": FILE`, a draft model's);
    /// `"allowSpecialTokensInContent": true` parses control-token text in content as control tokens;
    /// `"chatTemplate": NAME` (built-in) or `"chatTemplateFile": FILE` replaces the model's template where Loopl renders.
    /// `"grammarSpacing": "spacious"` lets Loopl's grammars write llama.cpp's whitespace inside JSON.
    /// `"embeddings": true` serves embeddings (a child's `"pooling": "mean" | "cls" | "last"`).
    public static let kind = BackendKind(name: "server", builtIn: [:], read: configuration(from:), problem: { configuration in
        guard case .child(let model) = configuration.target else { return nil }
        let files = FileManager.default
        if !files.fileExists(atPath: model) { return "no model file at \(model)" }
        if let draft = configuration.speculative.draftModel, !files.fileExists(atPath: draft) { return "no draft model file at \(draft)" }
        if configuration.rpcWorkers > 0, !files.isExecutableFile(atPath: LlamaCppInstall.rpcServer) {
            return "no ggml-rpc-server at \(LlamaCppInstall.rpcServer)"
        }
        return files.isExecutableFile(atPath: configuration.serverPath) ? nil : "no llama-server at \(configuration.serverPath)"
    }, capacity: { configuration in
        BackendCapacity(parallel: configuration.parallel * max(configuration.target.urls.count, 1), maxQueue: configuration.maxQueue)
    }, override: { section, overrides in
        guard section["url"] == nil, section["urls"] == nil else { return }  // an attached server is configured where it runs
        for (key, value) in overrides.keys where key != "gpuLayers" { section[key] = value }
        if let layers = overrides.gpuLayers {
            let key = section["extraArgs"] != nil ? "extraArgs" : "extraArguments"  // the old name, until it goes
            section[key] = .array((section[key]?.arrayValue ?? []) + ["-ngl", .string(String(layers))])
        }
    }, start: { configuration in
        try await LlamaServerModel.start(configuration)
    })

    /// Reads a `server` section, every key optional.
    package static func configuration(from section: inout ConfigSection) throws -> Configuration {
        var configuration = Configuration()
        let model = try section.optionalPath("model")
        let url = try section.optionalString("url")
        let urls = try section.optionalStrings("urls")
        if url != nil || urls != nil {
            guard model == nil, url == nil || urls == nil else {
                throw section.error("give one of 'model' (to start llama-server), 'url' (to attach) or 'urls' (to attach to replicas)")
            }
            let parsed = try (urls ?? url.map { [$0] } ?? []).map { text in
                guard let parsed = URL(string: text), parsed.host != nil else { throw section.error("'\(URL.redacting(text))' is not a URL") }
                return parsed
            }
            let key = try section.optionalString("apiKey")
            if urls == nil, let first = parsed.first {
                configuration.target = .attach(url: first, apiKey: key)
            } else {
                guard !parsed.isEmpty else { throw section.error("'urls' lists no server") }
                configuration.target = .replicas(urls: parsed, apiKey: key)
            }
        } else {
            if let model { configuration.target = .child(model: model) }
            section.accept("apiKey")
        }
        try section.renamed("binary", to: "serverPath")
        try section.renamed("extraArgs", to: "extraArguments")
        configuration.serverPath = try section.optionalPath("serverPath") ?? configuration.serverPath
        try section.read("contextLength", into: &configuration.contextLength)
        let capacity = try BackendCapacity.read(from: &section)
        (configuration.parallel, configuration.maxQueue) = (capacity.parallel, capacity.maxQueue)
        try section.read("threads", into: &configuration.threads)
        try section.read("batchSize", into: &configuration.batchSize)
        if let batchSize = configuration.batchSize {
            guard batchSize >= 1 else { throw section.error("'batchSize' must be 1 or more, the most tokens llama-server evaluates in one step") }
            guard configuration.target.urls.isEmpty else {
                throw section.error("'batchSize' is for a child llama-server that Loopl starts; give an attached server its --batch-size where it runs")
            }
        }
        try section.read("extraArguments", into: &configuration.extraArguments)
        try section.read("rpc", into: &configuration.rpc)
        try section.read("rpcWorkers", into: &configuration.rpcWorkers)
        try section.read("rpcThreads", into: &configuration.rpcThreads)
        try section.read("allowRemoteRPC", into: &configuration.allowRemoteRPC)
        try section.read("allowSpecialTokensInContent", into: &configuration.allowSpecialTokensInContent)
        configuration.chatTemplate = try section.chatTemplate()
        if configuration.chatTemplate != nil, !configuration.target.urls.isEmpty {
            throw section.error("'chatTemplate' and 'chatTemplateFile' are for a child llama-server, whose prompts Loopl renders; an attached server renders with its own template")
        }
        configuration.grammarSpacing = try section.optionalChoice("grammarSpacing") ?? configuration.grammarSpacing
        try section.read("embeddings", into: &configuration.embeddings)
        configuration.pooling = try section.optionalChoice("pooling")
        if configuration.pooling != nil, !configuration.target.urls.isEmpty {
            throw section.error("'pooling' is for a child llama-server that Loopl starts; give an attached server its --pooling where it runs")
        }
        if let speculative = try Speculation.read(from: &section) { configuration.speculative = speculative }
        do { _ = try configuration.rpcEndpoints() } catch let error as LooplError {
            throw section.error(String(error.message.dropLast()))
        }
        return configuration
    }
}
