@testable import LooplAPI
import Loopl
import Testing

/// Reading Anthropic Messages bodies into Loopl's conversation, tools and options.
@Suite struct MessagesRequestTests {
    func read(_ text: String, counting: Bool = false) throws(APIError) -> MessagesRequest {
        try MessagesRequest(body: Array(text.utf8), countingTokens: counting)
    }

    func refusal(_ text: String, counting: Bool = false) -> APIError? {
        do {
            _ = try read(text, counting: counting)
            return nil
        } catch {
            return error
        }
    }

    /// A body with `max_tokens` 16, the messages given (JSON text) and `extra` top-level members.
    func body(_ messages: String = #"[{"role":"user","content":"hi"}]"#, _ extra: String = "") -> String {
        "{\"max_tokens\":16,\"messages\":\(messages)\(extra.isEmpty ? "" : "," + extra)}"
    }

    /// A one-message body with `extra` top-level members.
    func body(extra: String) -> String { body(#"[{"role":"user","content":"hi"}]"#, extra) }

    @Test func systemIsAStringOrTextBlocks() throws {
        #expect(try read(body(extra: #""system":"Be brief.""#)).messages == [.system("Be brief."), .user("hi")])
        let blocks = #""system":[{"type":"text","text":"One.","cache_control":{"type":"ephemeral"}},{"type":"text","text":"Two."}]"#
        #expect(try read(body(extra: blocks)).messages == [.system("One.\nTwo."), .user("hi")])
        let bad = refusal(body(extra: #""system":[{"type":"image","source":{}}]"#))
        #expect(bad?.param == "system[0].type")
        #expect(bad?.message.contains("images are not supported") == true)
    }

    @Test func assistantBlocksBecomeTextCallsAndReasoning() throws {
        let messages = #"""
        [{"role":"user","content":[{"type":"text","text":"Weather?","cache_control":{"type":"ephemeral"}}]},
         {"role":"assistant","content":[{"type":"thinking","thinking":"Call it.","signature":"opaque-sig"},
                                        {"type":"redacted_thinking","data":"xyz"},
                                        {"type":"text","text":"Let me look.","citations":[]},
                                        {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},
         {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"18 C"},
                                   {"type":"text","text":"Thanks."}]}]
        """#
        let request = try read(body(messages))
        let call = ToolCall(id: "toolu_1", name: "get_weather", arguments: ["city": "Paris"])
        #expect(request.messages == [.user("Weather?"),
                                     .assistant(text: "Let me look.", toolCalls: [call], reasoning: "Call it."),
                                     .tool(result: "18 C", callId: "toolu_1", name: "get_weather"),
                                     .user("Thanks.")])
        #expect(!request.messages.contains { $0.text.contains("opaque-sig") || ($0.reasoning ?? "").contains("opaque-sig") })
    }

    @Test func aFailedToolResultIsMarked() throws {
        let messages = #"""
        [{"role":"user","content":"go"},
         {"role":"assistant","content":[{"type":"tool_use","id":"toolu_9","name":"run","input":{}}]},
         {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","is_error":true,
                                    "content":[{"type":"text","text":"no such file"}]}]}]
        """#
        let request = try read(body(messages))
        #expect(request.messages.last == .tool(result: MessagesConversation.errorMarker + "no such file", callId: "toolu_9", name: "run"))
        let orphan = refusal(body(#"[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"1"}]}]"#))
        #expect(orphan?.param == "messages[0].content[0].tool_use_id")
    }

    @Test func imagesAndDocumentsAreRefusedByBlock() {
        let image = refusal(body(#"[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64"}}]}]"#))
        #expect(image?.status == 400)
        #expect(image?.param == "messages[0].content[1].type")
        #expect(image?.anthropicJSON == ["type": "error", "error": ["type": "invalid_request_error", "message": .string(image?.message ?? "")]])
        let document = refusal(body(#"[{"role":"user","content":[{"type":"document","source":{}}]}]"#))
        #expect(document?.message.contains("documents are not supported") == true)
        let nested = #"[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{}}]},"#
            + #"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{}}]}]}]"#
        #expect(refusal(body(nested))?.param == "messages[1].content[0].content[0].type")
        #expect(refusal(body(#"[{"role":"system","content":"x"}]"#))?.param == "messages[0].role")
    }

    @Test func maxTokensIsRequiredExceptForCounting() throws {
        let missing = refusal(#"{"messages":[{"role":"user","content":"hi"}]}"#)
        #expect(missing?.status == 400)
        #expect(missing?.param == "max_tokens")
        #expect(missing?.anthropicJSON["type"] == "error")
        #expect(missing?.anthropicJSON["error"]?["type"] == "invalid_request_error")
        #expect(missing?.anthropicJSON["error"]?["message"]?.stringValue?.contains("max_tokens") == true)
        #expect(try read(#"{"messages":[{"role":"user","content":"hi"}]}"#, counting: true).options.maxTokens == nil)
        #expect(try read(body()).options.maxTokens == 16)
        #expect(refusal(#"{"max_tokens":0,"messages":[{"role":"user","content":"hi"}]}"#)?.param == "max_tokens")
    }

    @Test func samplingStopsAndReasoningAreRead() throws {
        let options = try read(body(#"[{"role":"user","content":"hi"}]"#, #"""
        "temperature":0.5,"top_p":0.9,"top_k":7,"stop_sequences":["END",""],"seed":3,
        "thinking":{"type":"enabled","budget_tokens":2048},"metadata":{"user_id":"u"},"service_tier":"auto"
        """#)).options
        #expect(options.temperature == 0.5 && options.topP == 0.9 && options.topK == 7 && options.seed == 3)
        #expect(options.stop == ["END"])
        #expect(options.reasoning == .on && options.reasoningBudget == 2048)
        #expect(try read(body(#"[{"role":"user","content":"hi"}]"#, #""thinking":{"type":"disabled"}"#)).options.reasoning == .off)
        #expect(refusal(body(#"[{"role":"user","content":"hi"}]"#, #""temperature":1.5"#))?.param == "temperature")
        #expect(refusal(body(#"[{"role":"user","content":"hi"}]"#, #""thinking":{"type":"enabled"}"#))?.param == "thinking.budget_tokens")
    }

    @Test func toolsAndToolChoice() throws {
        let tools = #""tools":[{"name":"get_weather","description":"Weather.","input_schema":{"type":"object"},"cache_control":{}},"#
            + #"{"type":"web_search_20250305","name":"web_search","max_uses":3},{"type":"bash_20250124","name":"bash"}]"#
        let plain = try read(body(#"[{"role":"user","content":"hi"}]"#, tools))
        #expect(plain.tools == [ToolSpec(name: "get_weather", description: "Weather.", parameters: ["type": "object"])])
        #expect(plain.ignoredTools == ["web_search (web_search_20250305)", "bash (bash_20250124)"])
        #expect(MessagesEndpoint.warnings(plain).first?.0 == "Loopl-Warning")
        #expect(plain.options.toolChoice == .auto && plain.parallelToolCalls)
        func choice(_ text: String) throws(APIError) -> MessagesRequest {
            try read(body(#"[{"role":"user","content":"hi"}]"#, tools + ",\"tool_choice\":" + text))
        }
        #expect(try choice(#"{"type":"any"}"#).options.toolChoice == .required)
        #expect(try choice(#"{"type":"none"}"#).options.toolChoice == ToolChoice.none)
        let named = try choice(#"{"type":"tool","name":"get_weather","disable_parallel_tool_use":true}"#)
        #expect(named.options.toolChoice == .tool("get_weather") && !named.parallelToolCalls)
        #expect(refusal(body(#"[{"role":"user","content":"hi"}]"#, tools + #","tool_choice":{"type":"tool","name":"web_search"}"#))?.param
                == "tool_choice.name")
        #expect(refusal(body(#"[{"role":"user","content":"hi"}]"#, #""tool_choice":{"type":"any"}"#))?.param == "tool_choice.type")
        #expect(refusal(body(#"[{"role":"user","content":"hi"}]"#, #""tools":[{"name":"x"}]"#))?.param == "tools[0].input_schema")
    }
}
