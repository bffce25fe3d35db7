import Foundation
import Loopl

/// One streamed request: builds the body, reads the events, and settles the server afterwards.
struct ServerTurn {
    let session: ServerSession
    let configuration: LlamaServerModel.Configuration
    let messages: [Message]
    let tools: [ToolSpec]
    let options: GenerationOptions
    let continuation: AsyncThrowingStream<ModelEvent, any Error>.Continuation

    func run() async throws {
        guard !Task.isCancelled else { return }
        let info = try await session.connect()
        let start = ContinuousClock.now
        let path: String
        let body: JSONValue
        let promptCharacters: Int
        if let renderer = configuration.renderer {
            let prompt = try renderer.render(messages: messages, tools: tools, options: options)
            path = "/completion"
            body = ServerRequest.completion(prompt, options: options)
            promptCharacters = prompt.text.count
        } else {
            path = "/v1/chat/completions"
            body = ServerRequest.chat(messages: messages, tools: tools, options: options, llamaCpp: info.llamaCpp)
            promptCharacters = messages.reduce(0) { $0 + $1.text.count }
        }
        let request = info.endpoint.request(path, method: "POST", body: body, timeout: configuration.idleTimeout)
        let url = request.url ?? info.endpoint.baseURL
        var assembler = TurnAssembler(options: options, contextMax: info.contextSize ?? 0, start: start,
                                      promptCharacters: promptCharacters,
                                      liftsLeakedCalls: configuration.renderer == nil && !tools.isEmpty && options.toolChoice != .none,
                                      expectsTimings: info.llamaCpp || configuration.renderer != nil)
        let response = HTTPResponseStream.open(request)
        let cancel = response.cancel
        var finish: TurnAssembler.Finish?
        var terminated = false
        do {
            for try await data in EventStream(response: response) {
                if data == "[DONE]" { terminated = true; break }
                guard let chunk = try? JSONValue(parsing: data), chunk.objectValue != nil else {
                    cancel()
                    throw LooplError(.protocolViolation, "The server at \(url.absoluteString) sent an event that is not a JSON object: \(data.prefix(200)).")
                }
                if let error = chunk["error"] {
                    cancel()
                    let status = error["code"]?.intValue ?? 500
                    throw ServerFailure.http(status: status, body: Data(chunk.jsonText().utf8), url: url)
                }
                if configuration.renderer != nil {
                    if let event = assembler.text(chunk["content"]?.stringValue ?? "") { continuation.yield(event) }
                    if chunk["stop"]?.boolValue == true {
                        finish = Self.finish(stopType: chunk["stop_type"]?.stringValue)
                        assembler.record(timings: chunk["timings"], usage: Self.usage(completion: chunk))
                        terminated = true
                        break
                    }
                } else if let choice = chunk["choices"]?.arrayValue?.first {
                    let delta = choice["delta"]
                    let thinking = delta?["reasoning_content"]?.stringValue ?? delta?["reasoning"]?.stringValue
                    if let thinking, let event = assembler.reasoning(thinking) { continuation.yield(event) }
                    if let content = delta?["content"]?.stringValue, let event = assembler.text(content) {
                        continuation.yield(event)
                    }
                    for call in delta?["tool_calls"]?.arrayValue ?? [] { assembler.toolCallDelta(call) }
                    if let reason = choice["finish_reason"]?.stringValue { finish = Self.finish(reason: reason) }
                }
                assembler.record(timings: chunk["timings"], usage: chunk["usage"])
                if assembler.stoppedByFilter { break }
                if let event = assembler.interimMetrics() { continuation.yield(event) }
            }
        } catch let error as LooplError {
            cancel()
            throw error
        } catch {
            cancel()
            if Task.isCancelled { await session.settleAfterDisconnect(); return }
            throw await session.explain(error, url: url)
        }
        cancel()
        if Task.isCancelled {
            await session.settleAfterDisconnect()
            return
        }
        if assembler.stoppedByFilter {
            await session.settleAfterDisconnect()
        } else if !terminated {
            let cut = LooplError(.protocolViolation, "The server at \(url.absoluteString) ended the stream before its end marker: the answer is incomplete. Try again; if it repeats, check the server's log.",
                                 engineLoss: .restarting)
            let explained = await session.explain(cut, url: url)
            throw (explained as? LooplError)?.code == .connectionFailed ? cut : explained
        }
        for event in try assembler.finish(finish ?? .stopOrEnd) { continuation.yield(event) }
    }

    private static func finish(reason: String) -> TurnAssembler.Finish {
        switch reason {
        case "length": .length
        case "tool_calls", "function_call": .toolCalls
        default: .stopOrEnd
        }
    }

    private static func finish(stopType: String?) -> TurnAssembler.Finish {
        switch stopType {
        case "word": .stopString
        case "limit": .length
        default: .endOfGeneration
        }
    }

    /// OpenAI-style usage from a `/completion` final chunk.
    private static func usage(completion chunk: JSONValue) -> JSONValue? {
        guard let predicted = chunk["tokens_predicted"]?.intValue, let evaluated = chunk["tokens_evaluated"]?.intValue else { return nil }
        return ["prompt_tokens": .integer(evaluated), "completion_tokens": .integer(predicted),
                "prompt_tokens_details": ["cached_tokens": .integer(chunk["tokens_cached"]?.intValue ?? 0)]]
    }
}
