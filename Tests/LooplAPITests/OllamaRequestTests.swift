@testable import LooplAPI
import Loopl
import Testing

/// Reading Ollama's `/api/chat` and `/api/generate` bodies, and the objects of its answers.
@Suite struct OllamaRequestTests {
    func chat(_ text: String) throws(APIError) -> OllamaChatRequest { try OllamaChatRequest(body: Array(text.utf8)) }
    func generate(_ text: String) throws(APIError) -> OllamaGenerateRequest { try OllamaGenerateRequest(body: Array(text.utf8)) }

    func refusal(_ read: () throws(APIError) -> Any) -> APIError? {
        do {
            _ = try read()
            return nil
        } catch {
            return error
        }
    }

    @Test func optionsFormatThinkAndKeepAliveAreRead() throws {
        let read = try chat(#"""
            {"model":"m","messages":[{"role":"user","content":"hi"}],"stream":false,"format":{"type":"object"},"think":"max",
             "keep_alive":"1h30m","options":{"temperature":0,"top_p":0.5,"top_k":7,"min_p":0.1,"seed":3,"stop":["x"],
             "num_predict":12,"num_ctx":2048,"repeat_penalty":1.1,"mirostat":2}}
            """#)
        let options = read.settings.options
        #expect(!read.settings.stream && read.settings.keepAlive?.seconds == 5400)
        #expect(options.temperature == 0 && options.topP == 0.5 && options.topK == 7 && options.minP == 0.1 && options.seed == 3)
        #expect(options.stop == ["x"] && options.maxTokens == 12 && options.repeatPenalty == 1.1)
        #expect(options.responseFormat == .jsonSchema(["type": "object"]) && options.reasoning == .effort(.high))
        let defaults = try chat(#"{"model":"m","format":"json","think":false,"options":{"num_predict":-1}}"#)
        #expect(defaults.settings.stream && defaults.messages.isEmpty && defaults.settings.options.maxTokens == nil)
        #expect(defaults.settings.options.responseFormat == .jsonObject && defaults.settings.options.reasoning == .off)
    }

    @Test func keepAliveIsSecondsOrADuration() throws {
        let seconds = { (value: JSONValue) throws(APIError) in try RequestField(value, path: "keep_alive").keepAlive() }
        #expect(try seconds(300) == KeepAlive(seconds: 300) && seconds("5m") == KeepAlive(seconds: 300) && seconds("0") == KeepAlive(seconds: 0))
        #expect(try seconds("250ms") == KeepAlive(seconds: 0.25) && seconds("1h2m3s") == KeepAlive(seconds: 3723))
        #expect(try seconds(-1) == .forever && seconds("-1") == .forever && seconds("1h30m") == KeepAlive(seconds: 5400))
        #expect(refusal { () throws(APIError) in try seconds("soon") }?.param == "keep_alive")
    }

    @Test func messagesCarryThinkingCallsAndResults() throws {
        let read = try chat(#"""
            {"model":"m","messages":[{"role":"System","content":"Be brief."},{"role":"user","content":"Weather?"},
             {"role":"assistant","content":"","thinking":"Look it up.","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Paris"}}}]},
             {"role":"tool","content":"18 C","tool_name":"get_weather"}]}
            """#)
        guard read.messages.count == 4, case .assistant(_, let calls, let reasoning) = read.messages[2],
              case .tool(let result, let callId, let name) = read.messages[3] else {
            Issue.record("read \(read.messages)")
            return
        }
        #expect(read.messages[0] == .system("Be brief.") && reasoning == "Look it up." && calls.first?.arguments == ["city": "Paris"])
        #expect(result == "18 C" && name == "get_weather" && callId == calls.first?.id)
    }

    @Test func whatCannotBeServedIsRefusedNamingTheField() {
        let images = refusal { () throws(APIError) in try chat(#"{"model":"m","messages":[{"role":"user","content":"x","images":["AA=="]}]}"#) }
        #expect(images?.status == 400 && images?.param == "messages[0].images")
        #expect(refusal { () throws(APIError) in try chat(#"{"messages":[]}"#) }?.message == "model is required")
        #expect(refusal { () throws(APIError) in try chat("") }?.message == "missing request body")
        #expect(refusal { () throws(APIError) in try chat(#"{"model":"m","format":"yaml"}"#) }?.param == "format")
        #expect(refusal { () throws(APIError) in try chat(#"{"model":"m","think":"lots"}"#) }?.param == "think")
        #expect(refusal { () throws(APIError) in try chat(#"{"model":"m","options":{"top_p":2}}"#) }?.param == "options.top_p")
        for (field, body) in [("template", #""raw":true,"template":"{{ .Prompt }}""#), ("template", #""template":"{{ range .Messages }}""#),
                              ("template", #""template":"{{ if .System }}x""#), ("suffix", #""suffix":"end""#), ("context", #""context":[1,2]"#),
                              ("system", #""raw":true,"system":"s""#), ("images", #""images":["AA=="]"#)] {
            let error = refusal { () throws(APIError) in try generate(#"{"model":"m","prompt":"p","# + body + "}") }
            #expect(error?.status == 400 && error?.param == field, "\(field): \(String(describing: error))")
        }
        #expect(refusal { () throws(APIError) in try generate(#"{"model":"m","prompt":"p","raw":true,"system":""}"#) } == nil)
    }

    @Test func aLegacyTemplateIsRenderedIntoARawPrompt() throws {
        let template = #"{{ if .Prompt }}{{- if .System }}<s>{{ .System }}</s>\n{{ end -}}\n U: {{ .Prompt }}{{ else }}none{{ end }}\nA:{{ .Response }} cut {{ .Prompt }}"#
        let body = { (system: String) in #"{"model":"m","prompt":"Hi","template":""# + template + "\"" + system + "}" }
        let read = try generate(body(#","system":"Be brief.""#))
        #expect(read.raw && read.prompt == "<s>Be brief.</s>\nU: Hi\nA:")
        #expect(try generate(body("")).prompt == "U: Hi\nA:")
        #expect(try generate(#"{"model":"m","template":"{{ .Prompt }}"}"#).prompt == "")
    }

    @Test func aGeneratedPromptIsTheSystemThenTheUser() throws {
        #expect(try generate(#"{"model":"m","prompt":"Hi","system":"Be brief."}"#).messages == [.system("Be brief."), .user("Hi")])
        #expect(try generate(#"{"model":"m","prompt":"Hi"}"#).messages == [.user("Hi")])
    }

    @Test func theAnswersObjectsFollowOllamasShapes() throws {
        var reply = OllamaAnswer(shape: .chat, model: "m:latest")
        let thinking = reply.chunk(for: .reasoning("Hm."))
        let thought = try #require(thinking)
        #expect(thought["message"]?["thinking"] == "Hm." && thought["message"]?["content"] == "" && thought["done"] == false)
        _ = reply.chunk(for: .text("Hi"))
        let calling = reply.chunk(for: .toolCall(ToolCall(id: "call_1", name: "f", arguments: ["a": 1])))
        let call = try #require(calling)
        #expect(call["message"]?["tool_calls"] == [["id": "call_1", "function": ["index": 0, "name": "f", "arguments": ["a": 1]]]])
        let counted = reply.chunk(for: .metrics(Metrics(promptTokens: 5, generatedTokens: 3, tokensPerSecond: 30, finished: true,
                                                        stopReason: .maxTokens)))
        #expect(counted == nil)
        let whole = reply.final(streamed: false)
        #expect(whole["message"]?["content"] == "Hi" && whole["message"]?["thinking"] == "Hm." && whole["done"] == true)
        #expect(whole["done_reason"] == "length" && whole["prompt_eval_count"] == 5 && whole["eval_count"] == 3)
        #expect(whole["eval_duration"] == 100_000_000 && whole["model"] == "m:latest")
        #expect(reply.final(streamed: true)["message"]?["content"] == "")
        var generated = OllamaAnswer(shape: .generate, model: "m")
        let yes = generated.chunk(for: .text("Yes"))
        #expect(yes?["response"] == "Yes")
        #expect(generated.loaded()["done_reason"] == "load" && generated.final(streamed: false)["done_reason"] == "stop")
    }
}
