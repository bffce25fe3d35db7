import Loopl
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
        var assembler = TurnAssembler(options: options, contextMax: 4096, start: .now, promptCharacters: 10,
                                      liftsLeakedCalls: input.header.contains("tools"), expectsTimings: completion)
        var finish: TurnAssembler.Finish?
        let whole = Self.events(input.body, chunked: chunked, pieces: false)
        guard let events = Self.events(input.body, chunked: chunked, pieces: true) else {
            return whole == nil ? nil : "the body in pieces failed to decode, whole it gave \(whole ?? [])"
        }
        guard events == whole else { return "the body in pieces decoded to \(events), whole to \(whole ?? [])" }
        for data in events {
            if data == "[DONE]" { break }
            guard let chunk = try? JSONValue(parsing: data), chunk.objectValue != nil else { return nil }
            if completion {
                _ = assembler.text(chunk["content"]?.stringValue ?? "")
                if chunk["stop"]?.boolValue == true { finish = .endOfGeneration }
            } else if let choice = chunk["choices"]?.arrayValue?.first {
                _ = assembler.text(choice["delta"]?["content"]?.stringValue ?? "")
                for call in choice["delta"]?["tool_calls"]?.arrayValue ?? [] { assembler.toolCallDelta(call) }
                if let reason = choice["finish_reason"]?.stringValue { finish = reason == "length" ? .length : .stopOrEnd }
            }
            assembler.record(timings: chunk["timings"], usage: chunk["usage"])
            if assembler.stoppedByFilter { break }
            _ = assembler.interimMetrics()
        }
        _ = try? assembler.finish(finish ?? .stopOrEnd)
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

    static let dictionary = [
        "data: ", "data:", ": keep-alive\n", "\n\n", "\r\n", "event: ", "id: ", "[DONE]", "\"choices\"", "\"delta\"",
        "\"content\"", "\"tool_calls\"", "\"index\"", "\"function\"", "\"name\"", "\"arguments\"", "\"finish_reason\"",
        "\"length\"", "\"tool_calls\"", "\"stop\"", "\"timings\"", "\"usage\"", "\"prompt_tokens\"", "\"completion_tokens\"",
        "\"predicted_per_second\"", "\"prompt_n\"", "\"predicted_n\"", "\"cache_n\"", "\"error\"", "<tool_call>",
        "</tool_call>", "</s>", "0\r\n\r\n", "ffffffffffffff\r\n", "1a\r\n", "null", "1e999", "-1", "{", "}", "[", "]",
    ]
}
