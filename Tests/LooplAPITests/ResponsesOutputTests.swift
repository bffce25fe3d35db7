@testable import LooplAPI
import Foundation
import Loopl
import Testing

@Suite struct ResponsesOutputTests {
    static let answer = ResponsesAnswer(id: "resp_test", model: "m", echo: ["store": true, "metadata": [:]], createdAt: 7)

    /// The events of `events` as a stream frames them, parsed back: each `(name, data)`.
    static func stream(_ events: [ModelEvent], parallel: Bool = true) throws -> (frames: [(String, JSONValue)], output: ResponsesOutput) {
        var output = ResponsesOutput(parallelToolCalls: parallel)
        var objects = [ResponsesStreamEncoder.lifecycle("response.created", answer.inProgress),
                       ResponsesStreamEncoder.lifecycle("response.in_progress", answer.inProgress)]
        for event in events { objects += output.add(event) }
        objects += output.finish()
        objects.append(ResponsesStreamEncoder.lifecycle("response.completed", answer.finished(output)))
        var framer = ResponsesStreamEncoder()
        let text = String(decoding: objects.flatMap { framer.frame($0) }, as: UTF8.self)
        var frames: [(String, JSONValue)] = []
        for block in text.components(separatedBy: "\n\n") where !block.isEmpty {
            let lines = block.split(separator: "\n")
            try #require(lines.count == 2 && lines[0].hasPrefix("event: ") && lines[1].hasPrefix("data: "), "\(block)")
            frames.append((String(lines[0].dropFirst(7)), try JSONValue(parsing: String(lines[1].dropFirst(6)))))
        }
        return (frames, output)
    }

    /// Checks the invariants every stream keeps; returns the failures.
    static func violations(_ frames: [(String, JSONValue)]) -> [String] {
        var problems: [String] = []
        var open: Set<String> = [], deltas: [String: String] = [:]
        for (index, (name, data)) in frames.enumerated() {
            if data["type"]?.stringValue != name { problems.append("event \(index) is named \(name) but typed \(String(describing: data["type"]))") }
            if data["sequence_number"]?.intValue != index { problems.append("event \(index) has sequence_number \(String(describing: data["sequence_number"]))") }
            let key = "\(data["output_index"]?.intValue ?? -1)"
            switch name {
            case "response.output_item.added":
                if !open.insert(key).inserted { problems.append("item \(key) added twice") }
            case "response.output_item.done":
                if open.remove(key) == nil { problems.append("item \(key) done but not open") }
            case "response.output_text.delta", "response.reasoning_summary_text.delta", "response.function_call_arguments.delta":
                if !open.contains(key) { problems.append("a delta of closed item \(key)") }
                deltas[key, default: ""] += data["delta"]?.stringValue ?? ""
            case "response.output_text.done", "response.reasoning_summary_text.done":
                if deltas[key, default: ""] != data["text"]?.stringValue { problems.append("item \(key)'s deltas differ from its text") }
            case "response.function_call_arguments.done":
                if deltas[key, default: ""] != data["arguments"]?.stringValue { problems.append("item \(key)'s deltas differ from its arguments") }
            default: break
            }
        }
        if !open.isEmpty { problems.append("items \(open.sorted()) never done") }
        if frames.first?.0 != "response.created" { problems.append("the first event is not response.created") }
        if frames.last?.0 != "response.completed" { problems.append("the last event is not response.completed") }
        return problems
    }

    @Test func reasoningTextAndCallsBecomeItemsInOrder() throws {
        let call = ToolCall(id: "call_1", name: "weather", arguments: ["city": "Paris"])
        let (frames, output) = try Self.stream([.reasoning("Hmm, "), .reasoning("weather."), .text("Let me "), .text("look."),
                                                .toolCall(call), .metrics(Metrics(promptTokens: 9, generatedTokens: 4))])
        #expect(Self.violations(frames) == [])
        let response = try #require(frames.last?.1["response"])
        let items = try #require(response["output"]?.arrayValue)
        #expect(items.map { $0["type"]?.stringValue } == ["reasoning", "message", "function_call"])
        #expect(items[0]["summary"] == [["type": "summary_text", "text": "Hmm, weather."]])
        #expect(items[1]["content"]?.arrayValue?.first?["text"] == "Let me look.")
        #expect(items[1]["content"]?.arrayValue?.first?["annotations"] == [])
        #expect(items[2]["call_id"] == "call_1" && items[2]["arguments"] == #"{"city":"Paris"}"#)
        #expect(items.allSatisfy { $0["id"]?.stringValue?.isEmpty == false })
        #expect(response["status"] == "completed" && response["id"] == "resp_test" && response["object"] == "response")
        #expect(response["usage"]?["input_tokens"] == 9 && response["usage"]?["total_tokens"] == 13)
        #expect(response["usage"]?["output_tokens_details"]?["reasoning_tokens"] == 0)
        #expect(output.message == .assistant(text: "Let me look.", toolCalls: [call], reasoning: "Hmm, weather."))
        let names = frames.map(\.0)
        #expect(names.filter { $0.hasSuffix("part.added") }.count == 2 && names.filter { $0.hasSuffix("part.done") }.count == 2)
    }

    @Test func anAnnouncedItemIsEmptyAndTheLifecycleIsInProgress() throws {
        let (frames, _) = try Self.stream([.text("Hi")])
        #expect(frames.map(\.0) == ["response.created", "response.in_progress", "response.output_item.added",
                                    "response.content_part.added", "response.output_text.delta", "response.output_text.done",
                                    "response.content_part.done", "response.output_item.done", "response.completed"])
        #expect(frames[0].1["response"]?["status"] == "in_progress")
        #expect(frames[0].1["response"]?["output"] == [])
        #expect(frames[2].1["item"]?["content"] == [])
        #expect(frames[4].1["item_id"] == frames[2].1["item"]?["id"])
    }

    @Test func aTokenLimitIsIncompleteAndSilenceAnEmptyMessage() throws {
        var output = ResponsesOutput()
        _ = output.add(.text("Once upon"))
        _ = output.add(.metrics(Metrics(promptTokens: 3, generatedTokens: 2, finished: true, stopReason: .maxTokens)))
        _ = output.finish()
        let response = Self.answer.finished(output)
        #expect(response["status"] == "incomplete")
        #expect(response["incomplete_details"] == ["reason": "max_output_tokens"])
        #expect(response["output"]?.arrayValue?.last?["status"] == "incomplete")
        var silent = ResponsesOutput()
        let events = silent.finish()
        #expect(events.count == 5)
        #expect(silent.json.arrayValue?.first?["type"] == "message")
    }

    @Test func oneCallOnlyWithoutParallelCalls() throws {
        let (frames, output) = try Self.stream([.toolCall(ToolCall(name: "a")), .toolCall(ToolCall(name: "b"))], parallel: false)
        #expect(Self.violations(frames) == [])
        #expect(output.toolCalls.map(\.name) == ["a"])
        #expect(output.isSatisfied)
    }

    @Test func theInvariantCheckCatchesBrokenStreams() throws {
        var (frames, _) = try Self.stream([.text("Hi")])
        frames.remove(at: 5)
        #expect(!Self.violations(frames).isEmpty)
    }

    @Test func theFailedObjectCarriesTheError() {
        let failed = Self.answer.failed(.internalError("boom"), ResponsesOutput())
        #expect(failed["status"] == "failed")
        #expect(failed["error"]?["message"] == "boom")
        #expect(ResponsesAnswer.deleted("resp_x") == ["id": "resp_x", "object": "response", "deleted": true])
    }
}
