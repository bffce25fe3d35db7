@testable import LooplAPI
import Loopl
import Testing

/// The named events of a streamed Messages answer, checked against Anthropic's order.
@Suite struct MessagesStreamTests {
    static let call = ToolCall(id: "call_x1", name: "get_weather", arguments: ["city": "Paris", "days": 2])
    static let turn: [ModelEvent] = [.reasoning("Let me"), .reasoning(" think."), .text("Hello"), .text(" you"),
                                     .toolCall(call), .metrics(Metrics(promptTokens: 12, generatedTokens: 9, finished: true,
                                                                       stopReason: .toolCall))]

    func stream(_ events: [ModelEvent], parallel: Bool = true, stops: [String] = []) -> [MessagesStreamEncoder.Event] {
        var encoder = MessagesStreamEncoder(id: "msg_t", model: "m", parallelToolCalls: parallel, stops: stops)
        return events.flatMap { encoder.events(for: $0) } + encoder.finish(nil)
    }

    /// What breaks Anthropic's event order, and the blocks the events build (as a client's
    /// accumulator does: texts joined, `partial_json` joined and parsed).
    func check(_ events: [MessagesStreamEncoder.Event]) -> (problems: [String], blocks: [JSONValue]) {
        var problems: [String] = []
        var blocks: [JSONValue] = []
        var open: Int?
        var json = ""
        if events.first?.name != "message_start" { problems.append("the first event is not message_start") }
        if events.suffix(2).map(\.name) != ["message_delta", "message_stop"] { problems.append("the stream does not end with message_delta, message_stop") }
        for (number, event) in events.enumerated() {
            if event.data["type"]?.stringValue != event.name { problems.append("event \(number) has type \(event.data["type"] ?? .null)") }
            let index = event.data["index"]?.intValue
            switch event.name {
            case "message_start":
                if number != 0 { problems.append("message_start at \(number)") }
                if event.data["message"]?["content"] != [] { problems.append("message_start has content") }
            case "content_block_start":
                if open != nil { problems.append("block \(index ?? -1) starts while \(open ?? -1) is open") }
                if index != blocks.count { problems.append("block start index \(index ?? -1), expected \(blocks.count)") }
                open = index
                json = ""
                blocks.append(event.data["content_block"] ?? .null)
            case "content_block_delta":
                guard let index, index == open, var block = blocks[index].objectValue, let delta = event.data["delta"] else {
                    problems.append("a delta at \(number) for a block that is not open")
                    continue
                }
                switch delta["type"]?.stringValue {
                case "text_delta": block["text"] = .string((block["text"]?.stringValue ?? "") + (delta["text"]?.stringValue ?? ""))
                case "thinking_delta": block["thinking"] = .string((block["thinking"]?.stringValue ?? "") + (delta["thinking"]?.stringValue ?? ""))
                case "signature_delta": block["signature"] = delta["signature"]
                case "input_json_delta": json += delta["partial_json"]?.stringValue ?? ""
                default: problems.append("unknown delta \(delta)")
                }
                if !json.isEmpty, let input = try? JSONValue(parsing: json) { block["input"] = input }
                blocks[index] = .object(block)
            case "content_block_stop":
                if index == nil || index != open { problems.append("a stop at \(number) for index \(index ?? -1), open \(open ?? -1)") }
                open = nil
            case "message_delta":
                if open != nil { problems.append("message_delta while block \(open ?? -1) is open") }
            case "message_stop": break
            default: problems.append("unknown event \(event.name)")
            }
        }
        return (problems, blocks)
    }

    @Test func aTurnKeepsTheOrderAndRebuildsItsBlocks() {
        let events = stream(Self.turn)
        let result = check(events)
        #expect(result.problems == [])
        #expect(result.blocks == [["type": "thinking", "thinking": "Let me think.", "signature": "loopl"],
                                  ["type": "text", "text": "Hello you"],
                                  ["type": "tool_use", "id": "toolu_x1", "name": "get_weather", "input": ["city": "Paris", "days": 2]]])
        let pieces = events.compactMap { $0.data["delta"]?["partial_json"]?.stringValue }
        #expect(pieces.count == 2)
        #expect(pieces.joined() == OpenAIFields.arguments(Self.call))
        let end = events[events.count - 2].data
        #expect(end["delta"] == ["stop_reason": "tool_use", "stop_sequence": .null])
        #expect(end["usage"]?["output_tokens"] == 9 && end["usage"]?["input_tokens"] == 12)
    }

    @Test func theStartCarriesTheMessageAndAnEmptyTurnStillCloses() {
        let events = stream([.metrics(Metrics(promptTokens: 4))])
        #expect(events.map(\.name) == ["message_start", "message_delta", "message_stop"])
        let message = events[0].data["message"]
        #expect(message?["id"] == "msg_t" && message?["role"] == "assistant" && message?["type"] == "message")
        #expect(message?["stop_reason"] == .null && message?["usage"]?["input_tokens"] == 4)
        #expect(check(events).problems == [])
        let stopped = stream([.text("a"), .metrics(Metrics(finished: true, stopReason: .stop))], stops: ["END"])
        #expect(stopped[stopped.count - 2].data["delta"] == ["stop_reason": "stop_sequence", "stop_sequence": "END"])
    }

    @Test func textAfterACallOpensANewBlockAndOnlyOneCallWithoutParallelUse() {
        let events = stream([.text("a"), .toolCall(Self.call), .text("b"), .toolCall(ToolCall(name: "other"))], parallel: false)
        let result = check(events)
        #expect(result.problems == [])
        #expect(result.blocks.map { $0["type"] } == ["text", "tool_use", "text"])
    }

    @Test func theCheckerSeesBrokenStreams() {
        let events = stream(Self.turn)
        #expect(!check(Array(events.dropFirst())).problems.isEmpty)
        #expect(!check(events.filter { $0.name != "content_block_stop" }).problems.isEmpty)
        #expect(!check(Array(events.dropLast())).problems.isEmpty)
    }

    @Test func eventsAreNamedOnTheWire() {
        let bytes = String(decoding: stream([.text("hi")])[0].bytes, as: UTF8.self)
        #expect(bytes.hasPrefix("event: message_start\ndata: {"))
        #expect(bytes.hasSuffix("}\n\n"))
    }
}
