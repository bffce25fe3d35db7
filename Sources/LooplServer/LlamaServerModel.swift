import Foundation
import Loopl

/// A model behind llama-server over local HTTP, or behind any OpenAI-compatible server: the `server` backend.
///
/// In child mode it starts the pinned llama-server on a free port with a random API key, lazily on
/// the first request (or with ``start()``), and starts a new one when the child dies. In attach
/// mode it talks to a server already running. Without a ``PromptRenderer`` the server renders the
/// prompt (`/v1/chat/completions`) and parses tool calls itself: the style is `.native`. With one,
/// Loopl renders the prompt and uses `/completion`: the style is `.text(renderer.toolCallFormat)`.
public final class LlamaServerModel: Model {
    public let configuration: LlamaServerConfiguration
    public let toolCallStyle: ToolCallStyle
    let session: ServerSession

    public init(configuration: LlamaServerConfiguration) {
        self.configuration = configuration
        self.toolCallStyle = configuration.renderer.map { .text($0.toolCallFormat) } ?? .native
        self.session = ServerSession(configuration: configuration)
    }

    /// A child llama-server on the GGUF model at `path`.
    public convenience init(path: String = LooplHome.defaultModel, contextLength: Int? = nil, threads: Int? = nil) {
        self.init(configuration: .child(model: path, contextLength: contextLength, threads: threads))
    }

    /// An OpenAI-compatible server already running at `url`.
    public convenience init(url: URL, apiKey: String? = nil) {
        self.init(configuration: .attach(url: url, apiKey: apiKey))
    }

    /// Starts the child (or checks the attached server) now rather than on the first request.
    public func start() async throws {
        _ = try await session.connect()
    }

    /// How long the current child took from spawning to ready; nil in attach mode or before it started.
    public var loadTime: Duration? { get async { await session.currentChild?.loadTime } }

    /// The current child's process id; nil in attach mode or when no child runs.
    public var serverProcessID: Int32? { get async { await session.currentChild?.process.pid } }

    /// The current child's base URL; nil in attach mode or when no child runs.
    public var serverURL: URL? { get async { await session.currentChild?.endpoint.baseURL } }

    public var contextSize: Int { get async throws { try await session.contextSize() } }

    public func generate(messages: [Message], tools: [ToolSpec], options: GenerationOptions)
        -> AsyncThrowingStream<ModelEvent, any Error>
    {
        let session = self.session
        let configuration = self.configuration
        return AsyncThrowingStream { continuation in
            let task = Task {
                await session.acquire()
                do {
                    try await ServerTurn(session: session, configuration: configuration, messages: messages,
                                         tools: tools, options: options, continuation: continuation).run()
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
                await session.release()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    public func close() async {
        await session.close()
    }
}
