import Foundation
import Loopl
import Testing

@Suite struct CoreTypesTests {
    @Test func metricsCodableUsesTheStopVocabulary() throws {
        let metrics = Metrics(promptTokens: 10, cachedPromptTokens: 4, generatedTokens: 3, ttftMs: 12.5,
                              tokensPerSecond: 40, contextUsed: 13, contextMax: 4096, finished: true,
                              stopReason: .maxTokens, estimated: false)
        let data = try JSONEncoder().encode(metrics)
        #expect(try JSONDecoder().decode(Metrics.self, from: data) == metrics)
        #expect(String(decoding: data, as: UTF8.self).contains("\"max_tokens\""))
        #expect(Metrics.StopReason.allCases.map(\.rawValue) == ["end_turn", "stop", "max_tokens", "tool_call", "cancelled"])
    }

    @Test func generationOptionsCodable() throws {
        let options = GenerationOptions(maxTokens: 5, temperature: 0, seed: 7, stop: ["\n"],
                                        toolChoice: .tool("get_weather"), backend: .init(ignoreEndOfGeneration: true))
        let data = try JSONEncoder().encode(options)
        #expect(try JSONDecoder().decode(GenerationOptions.self, from: data) == options)
        let json = try JSONValue(parsing: data)
        #expect(json["toolChoice"] == "get_weather")
        #expect(json["ignoreEndOfGeneration"] == true)
    }

    @Test func toolChoiceNames() {
        for choice in [ToolChoice.auto, .none, .required, .tool("x")] {
            #expect(ToolChoice(name: choice.name) == choice)
        }
    }

    @Test func toolSpecOpenAIShape() throws {
        let spec = ToolSpec(name: "f", description: "does f", parameters: ["type": "object", "properties": ["a": ["type": "integer"]]])
        #expect(spec.openAIValue.jsonText() == #"{"type":"function","function":{"name":"f","description":"does f","parameters":{"type":"object","properties":{"a":{"type":"integer"}}}}}"#)
        #expect(try ToolSpec(openAIValue: spec.openAIValue) == spec)
        #expect(try JSONDecoder().decode(ToolSpec.self, from: JSONEncoder().encode(spec)) == spec)
    }

    @Test func toolCallCodable() throws {
        let call = ToolCall(name: "f", arguments: ["q": "ü", "n": [1, 2]])
        #expect(try JSONDecoder().decode(ToolCall.self, from: JSONEncoder().encode(call)) == call)
    }

    @Test func errorsCarryCodeAndSentence() {
        let error = LooplError(.contextOverflow, "The prompt needs 5000 tokens, but the context holds 4096.")
        #expect(error.code.rawValue == "context_overflow")
        #expect("\(error)" == "The prompt needs 5000 tokens, but the context holds 4096.")
    }

    @Test func stopStringFilterHoldsBackPartialStops() {
        var filter = StopStringFilter(stops: ["STOP", "\n\n"])
        var shown = ""
        for piece in ["Hello S", "T", "ill going ST", "O", "P and more"] { shown += filter.feed(piece) }
        shown += filter.flush()
        #expect(shown == "Hello STill going ")
        #expect(filter.stopped)
        var plain = StopStringFilter(stops: ["zz"])
        #expect(plain.feed("abz") == "ab")
        #expect(plain.flush() == "z")
        #expect(!plain.stopped)
    }

    @Test func minimalHermesParser() {
        let result = ToolCallParser(format: .hermes).parse("Sure.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>")
        #expect(result.content == "Sure.")
        #expect(result.toolCalls.map(\.name) == ["f"])
        #expect(result.toolCalls.first?.arguments == ["a": 1])
        let broken = ToolCallParser(format: .hermes).parse("x <tool_call>{not json</tool_call>")
        #expect(broken.toolCalls.isEmpty)
        #expect(broken.content == "x <tool_call>{not json</tool_call>")
    }
}
