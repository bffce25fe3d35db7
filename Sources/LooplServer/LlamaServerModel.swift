import Foundation
import Loopl
import Synchronization

/// A model behind llama-server over local HTTP, or behind any OpenAI-compatible server: the `server` backend.
///
/// In child mode ``start(_:)`` starts the pinned llama-server on a free port with a random API
/// key, with ``Configuration/parallel`` slots that serve as many requests at once (each
/// conversation keeps its slot), and a request starts a new one when the child has died. A child
/// can put the model's layers on `ggml-rpc-server` workers, running ones (``Configuration/rpc``)
/// or local ones it starts and owns (``Configuration/rpcWorkers``); see docs/scale-out.md. In
/// attach mode it talks to a server already running, or spreads the requests over replicas
/// (``Configuration/Target/replicas(urls:apiKey:)``). When Loopl renders the prompt (a child's
/// default) it uses `/completion` and lifts the calls and thinking out of the text in the
/// template's format; when the server renders (`/v1/chat/completions`) it parses them itself.
public final class LlamaServerModel: Model {
    /// How it was started.
    public let configuration: Configuration
    let session: ServerSession
    /// Whether the prompt-injection warning was printed (once, at the first turn with tools).
    private let warnedAboutContent = Mutex(false)

    private init(configuration: Configuration) throws {
        var configuration = configuration
        configuration.renderer = try configuration.resolvedRenderer()
        configuration.parallel = max(configuration.parallel, 1)
        configuration.maxQueue = max(configuration.maxQueue, 0)
        try configuration.speculative.check()
        let remote = try configuration.rpcEndpoints().filter { !$0.isLoopback }
        if !remote.isEmpty {
            let list = remote.map(\.description).joined(separator: ", ")
            Warnings.emit("the model's layers go to RPC workers on the network (\(list)). llama.cpp's RPC protocol has no authentication or encryption: anyone who can reach those ports can use the workers and read what they compute. Keep them behind a firewall that admits only this machine.")
        }
        if configuration.allowSpecialTokensInContent, configuration.renderer != nil {
            Warnings.emit(PromptSpans.switchWarning)
        }
        self.configuration = configuration
        self.session = ServerSession(configuration: configuration)
    }

    /// Starts the child llama-server and waits until it is ready, or checks that the attached
    /// server answers. A child that dies later is started again by the next request.
    public static func start(_ configuration: Configuration = Configuration()) async throws -> LlamaServerModel {
        let model = try LlamaServerModel(configuration: configuration)
        do { _ = try await model.session.connect() } catch {
            await model.close()
            throw error
        }
        return model
    }

    /// How long the current child took from spawning to ready; nil in attach mode or before it started.
    public var loadTime: Duration? { get async { await session.currentChild?.loadTime } }

    /// The current child's process id; nil in attach mode or when no child runs.
    public var serverProcessID: Int32? { get async { await session.currentChild?.process.pid } }

    /// The process ids of the RPC workers that the current child started (``Configuration/rpcWorkers``).
    public var rpcWorkerProcessIDs: [Int32] { get async { await session.currentChild?.workers.map(\.process.pid) ?? [] } }

    /// The current child's base URL; nil in attach mode or when no child runs.
    public var serverURL: URL? { get async { await session.currentChild?.endpoint.baseURL } }

    public var contextSize: Int { get async throws { try await session.contextSize() } }

    public func generate(messages: [Message], tools: [ToolSpec], options: GenerationOptions)
        -> AsyncThrowingStream<ModelEvent, any Error>
    {
        let warned = warnedAboutContent.withLock { warned in
            defer { warned = warned || !tools.isEmpty }
            return warned
        }
        if !tools.isEmpty, !warned, configuration.renderer == nil {
            Warnings.emit("the server renders this backend's prompt (rendering 'server') and tokenizes it with its special tokens parsed, so Loopl cannot keep control-token text in a tool result or message (<|im_start|>, <|eot_id|>) plain: it can forge a turn. Loopl's rendering (a child's default) and the in-process llama backend keep it plain.")
        }
        let session = self.session
        let configuration = self.configuration
        return .generating { continuation in
            try await session.queue.withPlace {
                try await ServerTurn(session: session, configuration: configuration, messages: messages,
                                     tools: tools, options: options, continuation: continuation).run()
            }
        }
    }

    /// Sends `prompt` as it is written to `/completion`; an attached server that renders the
    /// prompt itself (it speaks only `/v1/chat/completions`) fails with `invalid_request`.
    public func complete(prompt: String, options: GenerationOptions) -> AsyncThrowingStream<ModelEvent, any Error> {
        let session = self.session
        let configuration = self.configuration
        return .generating { continuation in
            try await session.queue.withPlace {
                try await ServerTurn(session: session, configuration: configuration, messages: [], tools: [], options: options,
                                     rawPrompt: prompt, continuation: continuation).run()
            }
        }
    }

    public func close() async {
        await session.close()
    }
}
