import Foundation
import Loopl
import Synchronization

/// Serves a ``Model`` over the stdio protocol: requests on one file descriptor (standard input),
/// responses and events on another (standard output). The worker side of ``StdioModel``.
///
/// It speaks versions 1 to 3. In version 3 it answers `embed` when its model is an
/// ``EmbeddingModel``. In version 2 it serves up to `concurrentRequests` generate
/// requests at once and declares native calls and `reasoning`, since a ``Model``'s events are
/// parsed; in version 1 it serves one at a time and sends no reasoning events.
public final class StdioWorker: Sendable {
    private let model: any Model
    private let name: String
    private let version: String
    private let concurrentRequests: Int
    private let input: Int32
    private let output: Mutex<Int32>

    private struct State {
        /// The version agreed in `initialize`.
        var protocolVersion = 1
        /// The generations in flight, by request id.
        var running: [JSONValue: Task<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// A worker for `model` that serves up to `concurrentRequests` requests at once (version 2).
    public init(model: any Model, name: String, version: String, concurrentRequests: Int = 1, input: Int32 = 0, output: Int32 = 1) {
        self.model = model
        self.name = name
        self.version = version
        self.concurrentRequests = max(concurrentRequests, 1)
        self.input = input
        self.output = Mutex(output)
    }

    /// Serves requests until the input ends, then closes the model.
    public func run() async {
        signal(SIGPIPE, SIG_IGN)
        var shutDown = false
        for await piece in lines() {
            switch piece {
            case .tooLong:
                send(.response(id: .null, result: .failure(RPCError(code: StdioProtocol.ErrorCode.parseError, message: "The line is longer than 16 MiB."))))
            case .line(let bytes):
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                guard let value = try? JSONValue(parsing: bytes) else {
                    send(.response(id: .null, result: .failure(RPCError(code: StdioProtocol.ErrorCode.parseError, message: "The line is not JSON."))))
                    continue
                }
                switch RPCMessage.read(value) {
                case .failure(let problem):
                    send(.response(id: value["id"] ?? .null, result: .failure(RPCError(code: StdioProtocol.ErrorCode.invalidRequest, message: "Not a JSON-RPC 2.0 message: \(problem.reason)."))))
                case .success(.request(let id, let method, let params)):
                    if shutDown {
                        send(.response(id: id, result: .failure(RPCError(code: StdioProtocol.ErrorCode.invalidRequest, message: "The worker is shutting down."))))
                    } else {
                        if method == "shutdown" { shutDown = true }
                        await handle(id: id, method: method, params: params)
                    }
                case .success(.notification(method: "$/cancelRequest", let params)):
                    let task = state.withLock { state in params["id"].flatMap { state.running[$0] } }
                    task?.cancel()
                case .success:
                    continue
                }
            }
        }
        await stopAll()
        await model.close()
    }

    private func handle(id: JSONValue, method: String, params: JSONValue) async {
        switch method {
        case "initialize":
            // The highest version both speak: a host of a later version gets this one's.
            guard let offered = params["protocolVersion"]?.intValue, offered >= 1 else {
                send(.response(id: id, result: .failure(RPCError(code: StdioProtocol.ErrorCode.invalidParams, message: "initialize needs an integer protocolVersion of 1 or more; this worker speaks versions 1 to \(StdioProtocol.version)."))))
                return
            }
            let agreed = min(offered, StdioProtocol.version)
            do {
                // A Model's events are parsed: its calls and thinking go out as events of their own.
                let info = WorkerInfo(protocolVersion: agreed, name: name, version: version, nativeToolCalls: true, toolCallFormat: nil,
                                      cancellation: true, reasoning: true, concurrentRequests: concurrentRequests,
                                      rawPrompt: true, embeddings: model is any EmbeddingModel, contextMax: try await model.contextSize)
                state.withLock { $0.protocolVersion = agreed }
                send(.response(id: id, result: .success(info.wireValue)))
            } catch {
                send(.response(id: id, result: .failure(RPCError(error))))
            }
        case "generate":
            let stream: @Sendable () -> AsyncThrowingStream<ModelEvent, any Error>
            do {
                stream = try Self.stream(of: params, on: model)
            } catch {
                let rpc = error as? RPCError ?? RPCError(code: StdioProtocol.ErrorCode.invalidParams, message: "\(error)")
                send(.response(id: id, result: .failure(rpc)))
                return
            }
            let refusal = state.withLock { state -> String? in
                let capacity = state.protocolVersion >= 2 ? concurrentRequests : 1
                if state.running[id] != nil { return "Request \(id.jsonText()) is already running." }
                guard state.running.count < capacity else {
                    return capacity == 1 ? "A request is already running: send one at a time."
                        : "\(capacity) requests are already running, as many as this worker declared (concurrentRequests)."
                }
                let reasoning = state.protocolVersion >= 2
                state.running[id] = Task { await self.generate(id: id, stream, reasoning: reasoning) }
                return nil
            }
            if let refusal {
                send(.response(id: id, result: .failure(RPCError(code: StdioProtocol.ErrorCode.invalidRequest, message: refusal))))
            }
        case "embed" where state.withLock({ $0.protocolVersion >= 3 }):
            embed(id: id, params: params)
        case "shutdown":
            await stopAll()
            send(.response(id: id, result: .success(.null)))
        default:
            send(.response(id: id, result: .failure(RPCError(code: StdioProtocol.ErrorCode.methodNotFound, message: "Unknown method '\(method)'."))))
        }
    }

    /// An `embed` request (version 3): runs beside generations, recorded as they are.
    private func embed(id: JSONValue, params: JSONValue) {
        guard let inputs = params["inputs"]?.arrayValue?.compactMap(\.stringValue), inputs.count == params["inputs"]?.arrayValue?.count else {
            send(.response(id: id, result: .failure(RPCError(code: StdioProtocol.ErrorCode.invalidParams, message: "embed needs an 'inputs' list of strings."))))
            return
        }
        let truncate = params["truncate"]?.boolValue ?? false
        let model = self.model
        // Recorded under the lock that the task takes to remove itself, as a generation is.
        state.withLock { state in state.running[id] = Task {
            let outcome: Result<JSONValue, RPCError>
            do {
                let embeddings = try await model.embeddings(inputs, truncate: truncate)
                outcome = .success(["vectors": .array(embeddings.vectors.map { .array($0.map { .double(Double($0)) }) }),
                                    "tokens": .integer(embeddings.tokens)])
            } catch {
                outcome = .failure(RPCError(error))
            }
            _ = self.state.withLock { $0.running.removeValue(forKey: id) }
            self.send(.response(id: id, result: outcome))
        } }
    }

    /// What a `generate` request's params ask of `model`: a raw `prompt`, or `messages` and `tools`.
    private static func stream(of params: JSONValue, on model: any Model) throws
        -> @Sendable () -> AsyncThrowingStream<ModelEvent, any Error> {
        let options = try (params["options"].flatMap { $0.isNull ? nil : $0 } ?? [:]).decode(GenerationOptions.self)
        if let prompt = params["prompt"], !prompt.isNull {
            guard let prompt = prompt.stringValue else {
                throw RPCError(code: StdioProtocol.ErrorCode.invalidParams, message: "generate's 'prompt' must be a string.")
            }
            return { model.complete(prompt: prompt, options: options) }
        } else {
            guard let messages = params["messages"]?.arrayValue else {
                throw RPCError(code: StdioProtocol.ErrorCode.invalidParams, message: "generate needs a 'messages' list (or a 'prompt' string).")
            }
            let conversation = try messages.map(Message.init(templateValue:))
            let tools = try (params["tools"]?.arrayValue ?? []).map(ToolSpec.init(openAIValue:))
            return { model.generate(messages: conversation, tools: tools, options: options) }
        }
    }

    /// Cancels every generation in flight and waits for their answers.
    private func stopAll() async {
        let tasks = state.withLock { Array($0.running.values) }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    private func generate(id: JSONValue, _ stream: @Sendable () -> AsyncThrowingStream<ModelEvent, any Error>,
                          reasoning: Bool) async {
        var final: Metrics?
        var outcome: Result<JSONValue, RPCError>
        do {
            for try await event in stream() {
                switch event {
                case .metrics(let metrics) where metrics.finished:
                    final = metrics
                case .reasoning where !reasoning:
                    continue
                default:
                    send(.notification(method: "event", params: try event.wireParams(id: id)))
                }
            }
            if Task.isCancelled { throw CancellationError() }
            outcome = .success(["metrics": try JSONValue(encoding: final ?? Metrics(finished: true, stopReason: .endTurn))])
        } catch {
            if Task.isCancelled || error is CancellationError || (error as? LooplError)?.code == .cancelled {
                outcome = .failure(RPCError(code: StdioProtocol.ErrorCode.requestCancelled, message: "The request was cancelled."))
            } else {
                outcome = .failure(RPCError(error))
            }
        }
        // Clear first, so that a host that sends its next request as soon as it reads the result finds a place free.
        _ = state.withLock { $0.running.removeValue(forKey: id) }
        send(.response(id: id, result: outcome))
    }

    private func send(_ message: RPCMessage) {
        let bytes = message.line
        output.withLock { fd in
            var rest = bytes[...]
            while !rest.isEmpty {
                let written = rest.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                rest = rest.dropFirst(written)
            }
        }
    }

    /// The input's lines, read on a thread of their own.
    private func lines() -> AsyncStream<LineSplitter.Piece> {
        let (stream, continuation) = AsyncStream<LineSplitter.Piece>.makeStream()
        let fd = input
        Thread.start(named: "loopl input") {
            var splitter = LineSplitter()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                for piece in splitter.feed(Array(buffer[..<count])) { continuation.yield(piece) }
            }
            continuation.finish()
        }
        return stream
    }
}
