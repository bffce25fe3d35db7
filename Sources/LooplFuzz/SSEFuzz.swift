import Loopl
import LooplHTTP
import LooplServer

/// The server backend's stream decoding: an HTTP body (chunked when the header says `chunked`)
/// cut into Server-Sent Events, each event's JSON read as a chat (or, with `completion`, a
/// `/completion`) chunk and assembled into a turn. Input: a header line of those words (plus
/// `tools` to lift calls leaked into text, `stop` for a stop string), then the body. The body cut
/// in pieces must decode to the same events as the body whole.
package enum SSEFuzz {
    package static let target = FuzzTarget(name: "sse", dictionary: dictionary.map { Array($0.utf8) }) { run($0) }

    static func run(_ bytes: [UInt8]) -> String? {
        let input = FuzzInput(bytes)
        let chunked = input.header.contains("chunked")
        let completion = input.header.contains("completion")
        var options = GenerationOptions()
        if input.header.contains("stop") { options.stop = ["</s>", "\n\n"] }
        let wire: any ServerWire = completion
            ? CompletionWire(prompt: RenderedPrompt(text: "Hi"), format: .hermes, opened: nil, options: options)
            : ChatWire(messages: [.user("Hi")], tools: input.header.contains("tools") ? [probe] : [], options: options)
        var assembler = TurnAssembler(options: options, contextMax: 4096, start: .now, promptCharacters: wire.promptCharacters,
                                      expectsTimings: wire.expectsTimings(llamaCpp: true))
        // The lifted events are dropped: the fuzzer looks for crashes and hangs in the lifting too.
        let continuation = AsyncThrowingStream<ModelEvent, any Error>.makeStream(bufferingPolicy: .bufferingNewest(0)).continuation
        defer { continuation.finish() }
        let sink = LiftingContinuation(continuation, format: wire.markup, tools: [probe])
        let whole = Self.events(input.body, chunked: chunked, pieces: false)
        guard let events = Self.events(input.body, chunked: chunked, pieces: true) else {
            return whole == nil ? nil : "the body in pieces failed to decode, whole it gave \(whole ?? [])"
        }
        guard events == whole else { return "the body in pieces decoded to \(events), whole to \(whole ?? [])" }
        for data in events {
            if data == "[DONE]" { break }
            guard let chunk = try? JSONValue(parsing: data), chunk.objectValue != nil else { return nil }
            if wire.read(chunk, into: &assembler, events: sink) || assembler.stoppedByFilter { break }
            _ = assembler.interimMetrics()
        }
        for event in (try? assembler.finish()) ?? [] { sink.yield(event) }
        return nil
    }

    /// The events of `body`, fed at once or in pseudo-random pieces; nil when its chunked encoding is broken.
    static func events(_ body: ArraySlice<UInt8>, chunked: Bool, pieces: Bool) -> [String]? {
        var decoder = SSEDecoder()
        var chunkedDecoder = chunked ? ChunkedDecoder() : nil
        var seed = FuzzInput.checksum(body)
        var rest = body
        var events: [String] = []
        while !rest.isEmpty {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let piece = pieces ? rest.prefix(Int(seed >> 58) + 1) : rest
            rest = rest.dropFirst(piece.count)
            if chunkedDecoder != nil {
                guard let payload = try? chunkedDecoder?.feed(piece) else { return nil }
                events += decoder.feed(payload)
            } else {
                events += decoder.feed(piece)
            }
        }
        if let last = decoder.finish() { events.append(last) }
        return events
    }

    /// The tool a `tools` input offers.
    static let probe = ToolSpec(name: "get_weather", description: "Get the weather.")

    static let dictionary = [
        "data: ", "data:", ": keep-alive\n", "\n\n", "\r\n", "event: ", "id: ", "[DONE]", "\"choices\"", "\"delta\"",
        "\"content\"", "\"tool_calls\"", "\"index\"", "\"function\"", "\"name\"", "\"arguments\"", "\"finish_reason\"",
        "\"length\"", "\"tool_calls\"", "\"stop\"", "\"timings\"", "\"usage\"", "\"prompt_tokens\"", "\"completion_tokens\"",
        "\"predicted_per_second\"", "\"prompt_n\"", "\"predicted_n\"", "\"cache_n\"", "\"error\"", "<tool_call>",
        "</tool_call>", "</s>", "0\r\n\r\n", "ffffffffffffff\r\n", "1a\r\n", "null", "1e999", "-1", "{", "}", "[", "]",
    ]
}
