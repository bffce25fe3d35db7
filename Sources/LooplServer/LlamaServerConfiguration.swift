import Foundation
import Loopl

/// How ``LlamaServerModel`` reaches its server: a child llama-server it starts, or a server already running.
public struct LlamaServerConfiguration: Sendable {
    /// Where the server comes from.
    public enum Target: Sendable {
        /// Start the pinned llama-server on the GGUF model at this path.
        case child(model: String)
        /// Use an OpenAI-compatible server already running at this base URL (without `/v1`).
        case attach(url: URL, apiKey: String?)
    }

    public var target: Target
    /// The llama-server binary for a child.
    public var serverPath: String
    /// Context length in tokens for a child (nil is ``defaultChildContext``); in attach mode, the
    /// size to report when the server does not say.
    public var contextLength: Int?
    /// A child's context when none is given, as the in-process backend's default.
    public static let defaultChildContext = 4096
    /// CPU threads for a child; nil is the machine's core count.
    public var threads: Int?
    /// More arguments for a child's command line.
    public var extraArguments: [String]
    /// A child that shows no progress (no new log line, no change of health) for this long while loading has failed.
    public var readinessStallTimeout: Duration
    /// How long a cancelled generation may keep a child's slot busy before the child is restarted.
    public var cancellationGrace: Duration
    /// Seconds without any byte from the server before a request fails.
    public var idleTimeout: TimeInterval
    /// When set, Loopl renders the prompt itself and uses llama-server's native `/completion`
    /// endpoint (with the renderer's grammar); otherwise the server renders through `/v1/chat/completions`.
    public var renderer: (any PromptRenderer)?

    public init(target: Target, serverPath: String = LooplHome.llamaServer, contextLength: Int? = nil,
                threads: Int? = nil, extraArguments: [String] = [], readinessStallTimeout: Duration = .seconds(60),
                cancellationGrace: Duration = .seconds(2), idleTimeout: TimeInterval = 600,
                renderer: (any PromptRenderer)? = nil) {
        self.target = target
        self.serverPath = serverPath
        self.contextLength = contextLength
        self.threads = threads
        self.extraArguments = extraArguments
        self.readinessStallTimeout = readinessStallTimeout
        self.cancellationGrace = cancellationGrace
        self.idleTimeout = idleTimeout
        self.renderer = renderer
    }

    /// A child llama-server on the model at `path`.
    public static func child(model path: String = LooplHome.defaultModel, contextLength: Int? = nil,
                             threads: Int? = nil) -> LlamaServerConfiguration {
        LlamaServerConfiguration(target: .child(model: path), contextLength: contextLength, threads: threads)
    }

    /// An OpenAI-compatible server already running at `url`.
    public static func attach(url: URL, apiKey: String? = nil) -> LlamaServerConfiguration {
        LlamaServerConfiguration(target: .attach(url: url, apiKey: apiKey))
    }

    var resolvedThreads: Int { threads ?? ProcessInfo.processInfo.activeProcessorCount }
}
