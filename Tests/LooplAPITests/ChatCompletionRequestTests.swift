@testable import LooplAPI
import Loopl
import Testing

@Suite struct ChatCompletionRequestTests {
    @Test func absentFieldsTakeTheDocumentedDefaults() throws {
        let parsed = try request(body())
        #expect(parsed.model == nil)
        #expect(parsed.messages == [.user("hi")])
        #expect(parsed.tools.isEmpty)
        #expect(parsed.stream == false)
        #expect(parsed.includeUsage == false)
        #expect(parsed.parallelToolCalls == true)
        let options = parsed.options
        #expect(options.temperature == 0.8)
        #expect(options.topP == 0.95)
        #expect(options.topK == 40)
        #expect(options.minP == 0.05)
        #expect(options.repeatPenalty == 1)
        #expect(options.maxTokens == nil)
        #expect(options.seed == nil)
        #expect(options.stop.isEmpty)
        #expect(options.toolChoice == .auto)
        #expect(options.responseFormat == .text)
        #expect(options.reasoning == .auto)
    }

    @Test func everySamplingFieldIsRead() throws {
        let parsed = try request(body(#"""
            "model":"qwen","temperature":0.2,"top_p":0.5,"top_k":7,"min_p":0.1,"repeat_penalty":1.1,
            "seed":42,"max_tokens":100,"stop":["END","","STOP"],"stream":true,
            "stream_options":{"include_usage":true,"continuous_usage_stats":true},"parallel_tool_calls":false
            """#))
        #expect(parsed.model == "qwen")
        #expect(parsed.options.temperature == 0.2)
        #expect(parsed.options.topP == 0.5)
        #expect(parsed.options.topK == 7)
        #expect(parsed.options.minP == 0.1)
        #expect(parsed.options.repeatPenalty == 1.1)
        #expect(parsed.options.seed == 42)
        #expect(parsed.options.maxTokens == 100)
        #expect(parsed.options.stop == ["END", "STOP"])
        #expect(parsed.stream)
        #expect(parsed.includeUsage)
        #expect(!parsed.parallelToolCalls)
    }

    @Test func maxCompletionTokensWinsAndStopMayBeOneString() throws {
        let parsed = try request(body(#""max_tokens":100,"max_completion_tokens":30,"stop":"\n\n""#))
        #expect(parsed.options.maxTokens == 30)
        #expect(parsed.options.stop == ["\n\n"])
        #expect(try request(body(#""max_completion_tokens":5"#)).options.maxTokens == 5)
        #expect(try request(body(#""max_tokens":64.0,"top_k":0"#)).options.maxTokens == 64)
        #expect(rejection(body(#""max_tokens":64.5"#))?.message == "`max_tokens` must be an integer, not a number.")
        #expect(try request(body(#""max_tokens":null,"temperature":null"#)).options.temperature == 0.8)
    }

    @Test func seedsMapIntoTheSamplersRange() throws {
        #expect(try request(body(#""seed":-1"#)).options.seed == nil)
        #expect(try request(body(#""seed":0"#)).options.seed == 0)
        #expect(try request(body(#""seed":4294967296"#)).options.seed == 0)
        #expect(try request(body(#""seed":-2"#)).options.seed == UInt32.max - 1)
    }

    @Test func toolsAndToolChoiceAreRead() throws {
        let tools = #""tools":[{"type":"function","function":{"name":"weather","description":"Forecast","#
            + #""parameters":{"type":"object","properties":{"city":{"type":"string"}}}}},"#
            + #"{"type":"function","function":{"name":"time"}}]"#
        let parsed = try request(body(tools + #","tool_choice":{"type":"function","function":{"name":"time"}}"#))
        #expect(parsed.tools.map(\.name) == ["weather", "time"])
        #expect(parsed.tools[0].description == "Forecast")
        #expect(parsed.tools[0].parameters["properties"]?["city"]?["type"] == "string")
        #expect(parsed.tools[1].parameters == ["type": "object", "properties": [:]])
        #expect(parsed.options.toolChoice == .tool("time"))
        #expect(try request(body(tools + #","tool_choice":"none""#)).options.toolChoice == ToolChoice.none)
        #expect(try request(body(tools + #","tool_choice":"required""#)).options.toolChoice == .required)
        #expect(try request(body(tools + #","tool_choice":"auto""#)).options.toolChoice == .auto)
    }

    @Test func responseFormatsAreRead() throws {
        #expect(try request(body(#""response_format":{"type":"text"}"#)).options.responseFormat == .text)
        #expect(try request(body(#""response_format":{"type":"json_object"}"#)).options.responseFormat == .jsonObject)
        let schema = #""response_format":{"type":"json_schema","json_schema":{"name":"r","strict":true,"schema":{"type":"object"}}}"#
        #expect(try request(body(schema)).options.responseFormat == .jsonSchema(["type": "object"]))
    }

    @Test func reasoningComesFromTheEffortOrTheTemplateSwitch() throws {
        #expect(try request(body(#""reasoning_effort":"none""#)).options.reasoning == .off)
        #expect(try request(body(#""reasoning_effort":"minimal""#)).options.reasoning == .off)
        #expect(try request(body(#""reasoning_effort":"low""#)).options.reasoning == .effort(.low))
        #expect(try request(body(#""reasoning_effort":"high""#)).options.reasoning == .effort(.high))
        #expect(try request(body(#""chat_template_kwargs":{"enable_thinking":false}"#)).options.reasoning == .off)
        let both = #""reasoning_effort":"high","chat_template_kwargs":{"enable_thinking":false,"other":1}"#
        #expect(try request(body(both)).options.reasoning == .off)
        #expect(try request(body(#""chat_template_kwargs":{"enable_thinking":true}"#)).options.reasoning == .on)
    }

    @Test func unknownFieldsAreIgnored() throws {
        let parsed = try request(body(#""user":"u1","logit_bias":{"1":2},"metadata":{"a":"b"},"n":1,"frobnicate":[1]"#))
        #expect(parsed.messages == [.user("hi")])
    }

    /// Each wrong field is a 400 whose `param` is its path and whose message names it.
    @Test(arguments: [
        (#"{"model":"m"}"#, "messages"),
        (#"{"messages":[]}"#, "messages"),
        (#"{"messages":"hi"}"#, "messages"),
        (body(#""n":2"#), "n"),
        (body(#""temperature":"hot""#), "temperature"),
        (body(#""temperature":2.5"#), "temperature"),
        (body(#""top_p":1.5"#), "top_p"),
        (body(#""top_k":-1"#), "top_k"),
        (body(#""top_k":1.5"#), "top_k"),
        (body(#""min_p":-0.1"#), "min_p"),
        (body(#""max_tokens":0"#), "max_tokens"),
        (body(#""max_completion_tokens":"10""#), "max_completion_tokens"),
        (body(#""seed":"x""#), "seed"),
        (body(#""stop":[1]"#), "stop[0]"),
        (body(#""stop":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q"]"#), "stop"),
        (body(#""stream":"yes""#), "stream"),
        (body(#""stream_options":{"include_usage":1}"#), "stream_options.include_usage"),
        (body(#""tools":[{"type":"retrieval"}]"#), "tools[0].type"),
        (body(#""tools":[{"type":"function","function":{"description":"x"}}]"#), "tools[0].function.name"),
        (body(#""tool_choice":"sometimes""#), "tool_choice"),
        (body(#""tool_choice":"required""#), "tool_choice"),
        (body(#""tools":[{"type":"function","function":{"name":"a"}}],"tool_choice":{"type":"function","function":{"name":"b"}}"#),
         "tool_choice.function.name"),
        (body(#""response_format":{"type":"xml"}"#), "response_format.type"),
        (body(#""response_format":{"type":"json_schema","json_schema":{"name":"r"}}"#), "response_format.json_schema.schema"),
        (body(#""reasoning_effort":"max""#), "reasoning_effort"),
        (body(#""chat_template_kwargs":{"enable_thinking":"no"}"#), "chat_template_kwargs.enable_thinking"),
        (body(#""parallel_tool_calls":0"#), "parallel_tool_calls"),
    ])
    func wrongFieldsAreNamed(text: String, param: String) {
        let error = rejection(text)
        #expect(error?.status == 400)
        #expect(error?.type == "invalid_request_error")
        #expect(error?.code == "invalid_request")
        #expect(error?.param == param)
        #expect(error?.message.contains("`\(param)`") == true, "\(error?.message ?? "accepted")")
    }

    @Test func nAboveOneSaysOnlyOneChoiceIsServed() {
        #expect(rejection(body(#""n":2"#))?.message.contains("only one choice") == true)
    }

    @Test func aWrongTypeSaysWhatWasExpected() {
        #expect(rejection(body(#""temperature":"hot""#))?.message == "`temperature` must be a number, not a string.")
        #expect(rejection(body(#""temperature":3"#))?.message == "`temperature` must be between 0 and 2; got 3.")
    }

    @Test func badJSONIsInvalidJSON() throws {
        let error = try #require(rejection(#"{"messages": [}"#))
        #expect(error.status == 400)
        #expect(error.code == "invalid_json")
        #expect(error.param == nil)
        #expect(error.message.contains("not valid JSON"))
        #expect(error.message.contains("byte 14"))
        #expect(rejection("")?.code == "invalid_json")
    }

    @Test func badUTF8IsInvalidJSON() throws {
        let bytes = Array(#"{"messages":[{"role":"user","content":"#.utf8) + [0x22, 0xC3, 0x28, 0x22] + Array("}]}".utf8)
        let error = try #require(rejection(bytes: bytes))
        #expect(error.status == 400)
        #expect(error.code == "invalid_json")
        #expect(error.message == "The request body is not valid UTF-8 text; send JSON encoded as UTF-8.")
        #expect(rejection(bytes: Array(body().utf8) + [0xFF])?.message.contains("UTF-8") == true)
    }

    @Test func aBodyThatIsNotAnObjectIsRefused() {
        let error = rejection("[1,2]")
        #expect(error?.status == 400)
        #expect(error?.message.contains("JSON object") == true)
    }
}
