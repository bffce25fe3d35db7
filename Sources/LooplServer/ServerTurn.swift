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
        let prompt = try configuration.renderer?.render(messages: messages, tools: tools, options: options)
        let opened = prompt.flatMap { ThinkingMarkup.opened(byPrompt: $0.text) }
        // What a child's slot is matched on: the prompt, or the messages when the server renders
        // them (attached servers have no slots of Loopl's).
        let key = !configuration.target.urls.isEmpty ? ""
            : prompt?.text ?? JSONValue.array(messages.map(ServerRequest.wireMessage)).jsonText()
        var skipped: Set<Int> = []
        var previous: (any Error)?
        while true {
            let lease = try await session.lease(conversation: options.conversation, prompt: key,
                                                skipping: skipped, previous: previous)
            do {
                try await stream(on: lease, prompt: prompt, opened: opened)
                await session.release(lease)
                return
            } catch let unavailable as Unavailable {
                await session.release(lease, failed: true)
                // Before the first event the request goes to another replica; after it, the
                // caller sees the loss (and an Agent retries the turn).
                guard unavailable.beforeFirstEvent else { throw unavailable.error }
                skipped.insert(lease.upstream)
                previous = unavailable.error
            } catch {
                await session.release(lease)
                throw error
            }
        }
    }

    /// An attached server that refused the connection, answered that it cannot serve, or broke
    /// off the answer.
    private struct Unavailable: Error {
        let error: any Error
        let beforeFirstEvent: Bool
    }

    /// Sends the request to the leased server and streams its answer; `opened` is the thinking
    /// the prompt opened.
    private func stream(on lease: Lease, prompt: RenderedPrompt?, opened: ThinkingMarkup?) async throws {
        let info = lease.info
        let attached = !configuration.target.urls.isEmpty
        let start = ContinuousClock.now
        let path: String
        let body: JSONValue
        let promptCharacters: Int
        if let prompt {
            path = "/completion"
            body = ServerRequest.completion(prompt, openedThinking: opened != nil, options: options)
            promptCharacters = prompt.text.count
        } else {
            path = "/v1/chat/completions"
            body = ServerRequest.chat(messages: messages, tools: tools, options: options, llamaCpp: info.llamaCpp)
            promptCharacters = messages.reduce(0) { $0 + $1.text.count }
        }
        let request = info.endpoint.request(path, method: "POST", body: ServerRequest.pinned(body, slot: lease.slot),
                                            timeout: configuration.idleTimeout)
        let url = request.url ?? info.endpoint.baseURL
        var assembler = TurnAssembler(options: options, contextMax: info.contextSize ?? 0, start: start,
                                      promptCharacters: promptCharacters,
                                      expectsTimings: info.llamaCpp || configuration.renderer != nil)
        let continuation = LiftingContinuation(self.continuation, style: markup, tools: tools, opened: opened)
        let response = HTTPResponseStream.open(request)
        let cancel = response.cancel
        var finish: TurnAssembler.Finish?
        var terminated = false
        var received = false
        do {
            for try await data in EventStream(response: response) {
                received = true
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
            if Task.isCancelled { await session.settleAfterDisconnect(lease); return }
            let explained = await session.explain(error, lease: lease, url: url)
            if attached, Self.isUnavailable(error) { throw Unavailable(error: explained, beforeFirstEvent: !received) }
            throw explained
        }
        cancel()
        if Task.isCancelled {
            await session.settleAfterDisconnect(lease)
            return
        }
        if assembler.stoppedByFilter {
            await session.settleAfterDisconnect(lease)
        } else if !terminated {
            let cut = LooplError(.protocolViolation, "The server at \(url.absoluteString) ended the stream before its end marker: the answer is incomplete. Try again; if it repeats, check the server's log.",
                                 engineLoss: .restarting)
            let explained = await session.explain(cut, lease: lease, url: url)
            let error = (explained as? LooplError)?.code == .connectionFailed ? cut : explained
            if attached { throw Unavailable(error: error, beforeFirstEvent: !received) }
            throw error
        }
        for event in try assembler.finish(finish ?? .stopOrEnd) { continuation.yield(event) }
    }

    /// What the text is lifted from: the format of the prompt Loopl rendered, or `<tool_call>`
    /// markup that a server rendering its own prompt let through into the content.
    private var markup: ToolCallStyle {
        if let renderer = configuration.renderer { return .text(renderer.toolCallFormat) }
        return !tools.isEmpty && options.toolChoice != .none ? .text(.hermes) : .native
    }

    /// True for a failure that says the server is not there to serve: no connection, a
    /// connection lost or silent, or an HTTP 502, 503 or 504.
    private static func isUnavailable(_ error: any Error) -> Bool {
        if let status = error as? HTTPStatusError { return (502...504).contains(status.status) }
        switch error as? HTTPTransportError {
        case .cannotConnect?, .connectionLost?, .timedOut?: return true
        default: return false
        }
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
