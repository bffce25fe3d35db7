import Foundation
import Loopl
import LooplHTTP

/// One streamed request: picks the wire format, leases a server (a child's slot, or a replica,
/// moving to the next replica when one is unavailable before the first event), streams the
/// answer, and settles the server afterwards.
struct ServerTurn {
    let session: ServerSession
    let configuration: LlamaServerModel.Configuration
    let messages: [Message]
    let tools: [ToolSpec]
    let options: GenerationOptions
    /// A prompt sent as it is written, without a template (``Model/complete(prompt:options:)``).
    var rawPrompt: String?
    let continuation: AsyncThrowingStream<ModelEvent, any Error>.Continuation

    private var attached: Bool { !configuration.target.urls.isEmpty }

    func run() async throws {
        guard !Task.isCancelled else { return }
        let (wire, key) = try prepare()
        var skipped: Set<Int> = []
        var previous: (any Error)?
        while true {
            let lease = try await session.lease(conversation: options.conversation, prompt: key,
                                                skipping: skipped, previous: previous)
            do {
                try await stream(wire, on: lease)
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

    /// The wire format, and what a child's slot is matched on:
    /// the prompt Loopl rendered, or the messages when the server renders them (attached
    /// servers have no slots of Loopl's).
    private func prepare() throws -> (any ServerWire, String) {
        if let rawPrompt {
            // A child is llama-server, which takes raw prompts; an attached server may speak only chat.
            guard configuration.renderer != nil || !attached else {
                throw LooplError.messagesOnly("The attached server (rendering 'server', through /v1/chat/completions)")
            }
            let wire = CompletionWire(prompt: RenderedPrompt(text: rawPrompt), format: nil, opened: nil, options: options)
            return (wire, attached ? "" : rawPrompt)
        }
        guard let renderer = configuration.renderer else {
            let key = attached ? "" : JSONValue.array(messages.map(ServerRequest.wireMessage)).jsonText()
            return (ChatWire(messages: messages, tools: tools, options: options), key)
        }
        let prompt = try renderer.render(messages: messages, tools: tools, options: options)
        let wire = CompletionWire(prompt: prompt, format: renderer.toolCallFormat,
                                  opened: ReasoningMarkup.opened(byPrompt: prompt.text), options: options)
        return (wire, attached ? "" : prompt.text)
    }

    /// An attached server that refused the connection, answered that it cannot serve, or broke
    /// off the answer.
    private struct Unavailable: Error {
        let error: any Error
        let beforeFirstEvent: Bool
    }

    /// Sends the request to the leased server and streams its answer.
    private func stream(_ wire: any ServerWire, on lease: Lease) async throws {
        let info = lease.info
        var assembler = TurnAssembler(options: options, contextMax: info.contextSize ?? 0, start: .now,
                                      promptCharacters: wire.promptCharacters, expectsTimings: wire.expectsTimings(llamaCpp: info.llamaCpp))
        let events = LiftingContinuation(continuation, format: wire.markup, tools: tools, opened: wire.opened)
        let request = info.endpoint.request(wire.path, method: "POST", body: ServerRequest.pinned(try await body(wire, info), slot: lease.slot),
                                            timeout: configuration.idleTimeout.seconds)
        let url = request.url ?? info.endpoint.baseURL
        let response = HTTPResponseStream.open(request)
        var reading = Reading()
        do {
            try await read(response, wire, url: url, into: &assembler, events: events, reading: &reading)
        } catch let error as LooplError {
            response.cancel()
            throw error
        } catch {
            response.cancel()
            if Task.isCancelled { return await session.settleAfterDisconnect(lease) }
            let explained = await session.explain(error, lease: lease, url: url)
            if attached, Self.isUnavailable(error) { throw Unavailable(error: explained, beforeFirstEvent: !reading.received) }
            throw explained
        }
        response.cancel()
        if Task.isCancelled { return await session.settleAfterDisconnect(lease) }
        if assembler.stoppedByFilter || events.repeatedCall {
            await session.settleAfterDisconnect(lease)
        } else if !reading.terminated {
            try await cutShort(lease, url: url, received: reading.received)
        }
        for event in try assembler.finish() { events.yield(event) }
    }

    /// The request body; a prompt Loopl rendered keeps control-token text in its content plain
    /// (``PlainContentPrompt``) unless ``LlamaServerModel/Configuration/allowSpecialTokensInContent``.
    private func body(_ wire: any ServerWire, _ info: ServerInfo) async throws -> JSONValue {
        let body = wire.body(llamaCpp: info.llamaCpp)
        guard rawPrompt == nil, let renderer = configuration.renderer, !configuration.allowSpecialTokensInContent,
              case .object(var object) = body else { return body }
        let prompt = try await PlainContentPrompt.prompt(messages: messages, tools: tools, endpoint: info.endpoint) { marked, markedTools in
            try renderer.render(messages: marked, tools: markedTools, options: options).text
        }
        guard let prompt else { return body }
        object["prompt"] = prompt
        return .object(object)
    }

    /// How far the reading of an answer got.
    private struct Reading {
        var received = false
        var terminated = false
    }

    /// Reads the answer's events until the server ends it, a stop string or a repeated call does,
    /// or it breaks off.
    private func read(_ response: HTTPResponseStream, _ wire: any ServerWire, url: URL, into assembler: inout TurnAssembler,
                      events: LiftingContinuation, reading: inout Reading) async throws {
        for try await data in EventStream(response: response, advice: ServerEndpoint.advice) {
            reading.received = true
            if data == "[DONE]" { reading.terminated = true; return }
            guard let chunk = try? JSONValue(parsing: data), chunk.objectValue != nil else {
                throw LooplError(.protocolViolation, "The server at \(url.redacted) sent an event that is not a JSON object: \(data.prefix(200)).")
            }
            if let error = chunk["error"] {
                throw ServerFailure.http(status: error["code"]?.intValue ?? 500, body: Data(chunk.jsonText().utf8), url: url)
            }
            if wire.read(chunk, into: &assembler, events: events) { reading.terminated = true; return }
            if assembler.stoppedByFilter || events.repeatedCall { return }
            if let event = assembler.interimMetrics() { events.yield(event) }
        }
    }

    /// Throws for a stream that ended before its end marker.
    private func cutShort(_ lease: Lease, url: URL, received: Bool) async throws {
        let cut = LooplError(.protocolViolation, "The server at \(url.redacted) ended the stream before its end marker: the answer is incomplete. Try again; if it repeats, check the server's log.",
                             engineLoss: .restarting)
        let explained = await session.explain(cut, lease: lease, url: url)
        let error = (explained as? LooplError)?.code == .connectionFailed ? cut : explained
        if attached { throw Unavailable(error: error, beforeFirstEvent: !received) }
        throw error
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
}
