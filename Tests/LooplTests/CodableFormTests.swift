import Loopl
import Testing

/// JSONValue(encoding:) and JSONValue.decode(_:): the one JSON form of the core's Codable types.
@Suite struct CodableFormTests {
    @Test func metricsKeepDeclarationOrderAndLeaveOutAbsentTimings() throws {
        let full = Metrics(promptTokens: 1, cachedPromptTokens: 2, generatedTokens: 3, ttftMs: 4, promptEvalMs: 5.5,
                           tokensPerSecond: 6, contextUsed: 7, contextMax: 8, finished: true, stopReason: .maxTokens, estimated: true)
        #expect(try JSONValue(encoding: full).jsonText() == #"{"promptTokens":1,"cachedPromptTokens":2,"generatedTokens":3,"ttftMs":4.0,"promptEvalMs":5.5,"tokensPerSecond":6.0,"contextUsed":7,"contextMax":8,"finished":true,"stopReason":"max_tokens","estimated":true}"#)
        #expect(try JSONValue(encoding: full).decode(Metrics.self) == full)
        #expect(try JSONValue(encoding: Metrics()).jsonText() == #"{"promptTokens":0,"cachedPromptTokens":0,"generatedTokens":0,"contextUsed":0,"contextMax":0,"finished":false,"estimated":false}"#)
    }

    @Test func metricsDraftCountsRoundTripAndAreLeftOutWhenZero() throws {
        let drafted = Metrics(generatedTokens: 3, reasoningTokens: 1, draftTokens: 8, acceptedDraftTokens: 5)
        let value = try JSONValue(encoding: drafted)
        #expect(value["draftTokens"] == 8 && value["acceptedDraftTokens"] == 5 && value["reasoningTokens"] == 1)
        #expect(try value.decode(Metrics.self) == drafted)
        #expect(try JSONValue(encoding: Metrics(draftTokens: 0)).objectValue?.keys.contains("acceptedDraftTokens") == false)
    }

    @Test func metricsFromAPeerThatSendsLittle() throws {
        let sparse = try JSONValue(parsing: #"{"generatedTokens": 5, "ttftMs": 12, "tokensPerSecond": null, "stopReason": "stop"}"#)
        #expect(try sparse.decode(Metrics.self) == Metrics(generatedTokens: 5, ttftMs: 12, stopReason: .stop))
        #expect(throws: LooplError(.invalidJSON, "Metrics 'stopReason' is \"length\", not one of end_turn, stop, max_tokens, tool_call, cancelled.")) {
            try JSONValue.object(["stopReason": "length"]).decode(Metrics.self)
        }
        #expect(throws: LooplError(.invalidJSON, "Metrics must be an object.")) { try JSONValue.array([]).decode(Metrics.self) }
    }

    @Test func generationOptionsRoundTripEveryField() throws {
        var options = GenerationOptions(maxTokens: 9, temperature: 0.2, topP: 0.5, topK: 3, minP: 0.1, repeatPenalty: 1.1,
                                        seed: 42, stop: ["END", "\n"], toolChoice: .required,
                                        responseFormat: .jsonSchema(["type": "object", "properties": ["n": ["type": "integer", "minimum": 1]]]),
                                        reasoning: .effort(.high), reasoningBudget: 128, conversation: "c1",
                                        backend: .init(ignoreEndOfGeneration: true, truncateHistory: true))
        options.parallelToolCalls = true
        let value = try JSONValue(encoding: options)
        #expect(value.objectValue?.keys == ["maxTokens", "temperature", "topP", "topK", "minP", "repeatPenalty", "seed", "stop",
                                            "toolChoice", "parallelToolCalls", "ignoreEndOfGeneration", "responseFormat", "truncateHistory",
                                            "reasoning", "reasoningBudget", "conversation"])
        #expect(value["reasoning"] == "high")
        #expect(value["responseFormat"]?["json_schema"]?["schema"]?["properties"]?["n"]?["minimum"] == .integer(1))
        #expect(try value.decode(GenerationOptions.self) == options)
        #expect(try JSONValue(parsing: value.jsonText()).decode(GenerationOptions.self) == options)
        #expect(try JSONValue(encoding: GenerationOptions()).objectValue?.keys.contains("seed") == false)
    }

    @Test func generationOptionsNameTheBadField() {
        #expect(throws: LooplError(.invalidJSON, "GenerationOptions 'topK' must be a whole number.")) {
            try JSONValue.object(["topK": 1.5]).decode(GenerationOptions.self)
        }
        #expect(throws: LooplError(.invalidJSON, "GenerationOptions 'seed' must be from 0 to 4294967295.")) {
            try JSONValue.object(["seed": -1]).decode(GenerationOptions.self)
        }
        #expect(throws: LooplError(.invalidJSON, "GenerationOptions 'stop[1]' must be a string.")) {
            try JSONValue.object(["stop": ["a", 2]]).decode(GenerationOptions.self)
        }
        #expect(throws: LooplError(.invalidJSON, "GenerationOptions 'ignoreEndOfGeneration' must be true or false.")) {
            try JSONValue.object(["ignoreEndOfGeneration": 1]).decode(GenerationOptions.self)
        }
    }

    @Test func toolResultRoundTrips() throws {
        let result = ToolResult(callId: "call_9", name: "read_file", isError: true, durationMs: 2, content: "No such file.")
        let value = try JSONValue(encoding: result)
        #expect(value.jsonText() == #"{"callId":"call_9","name":"read_file","isError":true,"durationMs":2.0,"content":"No such file."}"#)
        #expect(try value.decode(ToolResult.self) == result)
    }

    @Test func nestedContainersAndListsKeepTheirShape() throws {
        struct Point: Codable, Equatable {
            var x: Int
            var tags: [String?]
            var weights: [String: Double]
            var nested: [[UInt8]]
        }
        let point = Point(x: -3, tags: ["a", nil], weights: ["w": 1], nested: [[1, 2], []])
        let value = try JSONValue(encoding: point)
        #expect(value.jsonText() == #"{"x":-3,"tags":["a",null],"weights":{"w":1.0},"nested":[[1,2],[]]}"#)
        #expect(try value.decode(Point.self) == point)
        #expect(throws: LooplError(.invalidJSON, "Point 'nested[0][1]' must be from 0 to 255.")) {
            try JSONValue.object(["x": 1, "tags": [], "weights": [:], "nested": [[1, 256]]]).decode(Point.self)
        }
    }

    @Test func anIntegerTooLargeForJSONValueIsAnError() {
        #expect(throws: LooplError.self) { try JSONValue(encoding: [UInt64.max]) }
    }
}
