@testable import LooplAPI
import Loopl
import Testing

@Suite struct ResponsesRequestTests {
    func read(_ text: String) throws(APIError) -> ResponsesRequest {
        try ResponsesRequest(body: Array(text.utf8))
    }

    func refusal(_ text: String) -> APIError? {
        do {
            _ = try read(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func aStringInputIsOneUserMessage() throws {
        let request = try read(#"{"model":"m","input":"Hello","instructions":"Be brief."}"#)
        #expect(request.input == [.user("Hello")])
        #expect(request.model == "m")
        #expect(try request.conversation(after: []).all == [.system("Be brief."), .user("Hello")])
        #expect(request.store && !request.stream && request.previousResponseId == nil)
    }

    @Test func messagesWithAndWithoutTypeAndTheirParts() throws {
        let request = try read(#"""
            {"input":[{"role":"developer","content":"Use tools."},
                      {"type":"message","role":"user","content":[{"type":"input_text","text":"Hi, "},{"type":"input_text","text":"you"}]},
                      {"role":"assistant","content":[{"type":"output_text","text":"Hello."}]},
                      {"role":"system","content":"Sys."},
                      {"type":"reasoning","id":"rs_1","summary":[]}]}
            """#)
        #expect(request.input == [.system("Use tools."), .user("Hi, you"), .assistant("Hello."), .system("Sys.")])
    }

    @Test func callItemsJoinTheAssistantTurnAndOutputsFindTheirNames() throws {
        let request = try read(#"""
            {"input":[{"role":"user","content":"Weather in Paris and Rome?"},
                      {"role":"assistant","content":"Let me look."},
                      {"type":"function_call","call_id":"c1","name":"weather","arguments":"{\"city\":\"Paris\"}"},
                      {"type":"function_call","call_id":"c2","name":"weather","arguments":"{\"city\":\"Rome\"}"},
                      {"type":"function_call_output","call_id":"c1","output":"Sunny"},
                      {"type":"function_call_output","call_id":"c2","output":[{"type":"input_text","text":"Rain"}]}]}
            """#)
        #expect(request.input.count == 4)
        #expect(request.input[1].text == "Let me look.")
        #expect(request.input[1].toolCalls.map(\.id) == ["c1", "c2"])
        #expect(request.input[1].toolCalls[0].arguments == ["city": "Paris"])
        #expect(request.input[2] == .tool(result: "Sunny", callId: "c1", name: "weather"))
        #expect(request.input[3] == .tool(result: "Rain", callId: "c2", name: "weather"))
    }

    @Test func aContinuationsOutputsFindTheStoredCalls() throws {
        let request = try read(#"{"previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"c9","output":"42"}]}"#)
        #expect(request.input.isEmpty)
        let stored: [Message] = [.user("Q"), .assistant(text: "", toolCalls: [ToolCall(id: "c9", name: "answer")])]
        let (all, input) = try request.conversation(after: stored)
        #expect(input == [.tool(result: "42", callId: "c9", name: "answer")])
        #expect(all == stored + input)
    }

    @Test func flatFunctionToolsAreReadAndOtherTypesIgnored() throws {
        let request = try read(#"""
            {"input":"x","tools":[{"type":"web_search"},
              {"type":"function","name":"weather","description":"The weather.","strict":true,
               "parameters":{"type":"object","properties":{"city":{"type":"string"}}}},
              {"type":"file_search","vector_store_ids":[]},{"type":"web_search"},{"type":"computer_use_preview"}],
             "tool_choice":{"type":"function","name":"weather"},"parallel_tool_calls":false}
            """#)
        #expect(request.tools.map(\.name) == ["weather"])
        #expect(request.tools[0].description == "The weather.")
        #expect(request.ignoredToolTypes == ["web_search", "file_search", "computer_use_preview"])
        #expect(request.options.toolChoice == .tool("weather"))
        #expect(!request.parallelToolCalls)
        #expect(request.echo["tools"]?.arrayValue?.first?["strict"] == true)
    }

    @Test func optionsAndFormatsAreRead() throws {
        let request = try read(#"""
            {"input":"x","max_output_tokens":12,"temperature":0,"top_p":0.5,"reasoning":{"effort":"low"},
             "text":{"format":{"type":"json_schema","name":"w","strict":true,"schema":{"type":"object"}}},
             "stream":true,"store":false,"tool_choice":"none","metadata":{"k":"v"}}
            """#)
        #expect(request.options.maxTokens == 12)
        #expect(request.options.temperature == 0 && request.options.topP == 0.5)
        #expect(request.options.reasoning == .effort(.low))
        #expect(request.options.responseFormat == .jsonSchema(["type": "object"]))
        #expect(request.options.toolChoice == .none)
        #expect(request.stream && !request.store)
        #expect(request.echo["metadata"] == ["k": "v"])
        #expect(try read(#"{"input":"x","text":{"format":{"type":"json_object"}}}"#).options.responseFormat == .jsonObject)
        #expect(try read(#"{"input":"x","reasoning":{"effort":"minimal"}}"#).options.reasoning == .off)
    }

    @Test func errorsNameTheirFields() {
        let cases: [(String, String)] = [
            (#"{"model":"m"}"#, "input"),
            (#"{"input":5}"#, "input"),
            (#"{"input":[]}"#, "input"),
            (#"{"input":[{"role":"user","content":[{"type":"input_image","image_url":"x"}]}]}"#, "input[0].content[0].type"),
            (#"{"input":[{"role":"robot","content":"x"}]}"#, "input[0].role"),
            (#"{"input":[{"type":"function_call","name":"f","arguments":"{}"}]}"#, "input[0].call_id"),
            (#"{"input":[{"type":"function_call","call_id":"c","name":"f","arguments":"[1]"}]}"#, "input[0].arguments"),
            (#"{"input":[{"type":"function_call_output","call_id":"nope","output":"x"}]}"#, "input[0].call_id"),
            (#"{"input":"x","tools":[{"type":"function"}]}"#, "tools[0].name"),
            (#"{"input":"x","tools":[{"name":"f"}]}"#, "tools[0].type"),
            (#"{"input":"x","tool_choice":"required"}"#, "tool_choice"),
            (#"{"input":"x","tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"function","name":"g"}}"#, "tool_choice.name"),
            (#"{"input":"x","max_output_tokens":0}"#, "max_output_tokens"),
            (#"{"input":"x","temperature":3}"#, "temperature"),
            (#"{"input":"x","text":{"format":{"type":"yaml"}}}"#, "text.format.type"),
            (#"{"input":"x","text":{"format":{"type":"json_schema","name":"w"}}}"#, "text.format.schema"),
            (#"{"input":"x","reasoning":{"effort":"max"}}"#, "reasoning.effort"),
            (#"{"input":"x","store":"yes"}"#, "store"),
        ]
        for (text, param) in cases {
            let error = refusal(text)
            #expect(error?.status == 400, "\(text)")
            #expect(error?.param == param, "\(text): \(String(describing: error))")
            #expect(error?.message.contains("`\(param)`") == true, "\(text): \(String(describing: error?.message))")
        }
        #expect(refusal("[1]")?.status == 400)
        #expect(refusal("{")?.code == "invalid_json")
    }

    @Test func unknownFieldsAreIgnored() throws {
        let request = try read(#"{"input":"x","truncation":"auto","service_tier":"flex","include":["reasoning.encrypted_content"]}"#)
        #expect(request.input == [.user("x")])
    }
}
