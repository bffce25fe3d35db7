import Foundation
import Loopl
#if canImport(LooplLlama)
import LooplLlama
#endif
@testable import LooplServer
import LooplTestKit
import Testing

/// Thinking on the server backend: the switch, effort and budget in the request fields llama-server
/// reads, `reasoning_content` deltas as reasoning, and the budget on a real llama-server child.
@Suite(.serialized) struct ReasoningServerTests {
    @Test(.timeLimit(.minutes(1)))
    func chatRequestsCarryTheSettingAndReadReasoningContent() async throws {
        let server = try ServerProtocolTests.server { _ in
            FakeServer.events([#"{"choices":[{"index":0,"delta":{"reasoning_content":"Hmm, "},"finish_reason":null}]}"#,
                               #"{"choices":[{"index":0,"delta":{"reasoning_content":"greet."},"finish_reason":null}]}"#,
                               FakeServer.content("Hello!"),
                               #"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":7,"completion_tokens_details":{"reasoning_tokens":4}}}"#,
                               "[DONE]"])
        }
        defer { server.stop() }
        let model = try await LlamaServerModel.start(.init(target: .attach(url: server.url, apiKey: nil)))
        var options = GenerationOptions.greedy(maxTokens: 16)
        options.reasoning = .effort(.high)
        options.reasoningBudget = 100
        let turn = try await ModelConformance(model: model).run("thinking", ModelConformance.greeting, options: options)
        #expect(turn.reasoning == "Hmm, greet.")
        #expect(turn.text == "Hello!")
        #expect(turn.metrics.last?.reasoningTokens == 4)
        let body = try JSONValue(parsing: try #require(server.requests.last).body)
        #expect(body["chat_template_kwargs"] == ["enable_thinking": true])
        #expect(body["reasoning_effort"] == "high")
        #expect(body["reasoning_budget_tokens"] == 100)

        options.reasoning = .off
        options.reasoningBudget = nil
        _ = try await ModelConformance(model: model).run("off", ModelConformance.greeting, options: options)
        let off = try JSONValue(parsing: try #require(server.requests.last).body)
        #expect(off["chat_template_kwargs"] == ["enable_thinking": false])
        #expect(off["reasoning_effort"] == nil && off["reasoning_budget_tokens"] == nil)

        options.reasoning = .auto
        _ = try await ModelConformance(model: model).run("auto", ModelConformance.greeting, options: options)
        let auto = try JSONValue(parsing: try #require(server.requests.last).body)
        #expect(auto["chat_template_kwargs"] == nil, "auto leaves the server its own default")
        await model.close()
    }

    /// Past thinking goes to the server as `reasoning_content`, where its template reads it.
    @Test(.timeLimit(.minutes(1)))
    func pastReasoningIsSentAsReasoningContent() async throws {
        let server = try ServerProtocolTests.server { _ in FakeServer.events([FakeServer.content("ok"), "[DONE]"]) }
        defer { server.stop() }
        let model = try await LlamaServerModel.start(.init(target: .attach(url: server.url, apiKey: nil)))
        let messages: [Message] = [.user("Is 17 prime?"), .assistant(text: "Yes.", toolCalls: [], reasoning: "No divisor up to 4."),
                                   .user("And 21?")]
        _ = try await ModelConformance(model: model).run("history", messages, options: .greedy(maxTokens: 4))
        let body = try JSONValue(parsing: try #require(server.requests.last).body)
        #expect(body["messages"]?.arrayValue?[1] == ["role": "assistant", "content": "Yes.", "reasoning_content": "No divisor up to 4."])
        await model.close()
    }

    /// The `/completion` body of a prompt that opened thinking carries llama-server's budget fields.
    @Test(.timeLimit(.minutes(1)))
    func completionRequestsCarryTheBudget() async throws {
        let server = try ServerProtocolTests.server { _ in
            FakeServer.events([#"{"content":"Hmm.</think>Hi","stop":false}"#,
                               #"{"content":"","stop":true,"stop_type":"eos","tokens_predicted":5,"tokens_evaluated":20,"tokens_cached":0}"#])
        }
        defer { server.stop() }
        let prompt = try ChatPrompt(modelFile: LooplHome.defaultModel, template: ModelConformance.reasoningTemplate)
        let model = try await LlamaServerModel.start(.init(target: .attach(url: server.url, apiKey: nil),
                                                           rendering: .custom(ChatPromptRenderer(prompt: prompt))))
        var options = GenerationOptions.greedy(maxTokens: 16)
        options.reasoningBudget = 8
        _ = try await ModelConformance(model: model).run("budget", [.user("Hi")], options: options)
        let body = try JSONValue(parsing: try #require(server.requests.last).body)
        #expect(body["prompt"]?.stringValue?.hasSuffix("<|im_start|>assistant\n<think>\n") == true)
        #expect(body["reasoning_budget_tokens"] == 8)
        #expect(body["reasoning_budget_start_tag"] == "<think>")
        #expect(body["reasoning_budget_end_tags"] == ["</think>"])
        #expect(body["reasoning_budget_message"] == "")
        #expect(body["generation_prompt"] == "<think>", "the budget starts counting at once")
        await model.close()
    }

    #if canImport(LooplLlama)
    /// On a real llama-server: after 8 tokens of thinking the server writes `</think>` and the model goes on.
    @Test(.timeLimit(.minutes(10)))
    func aBudgetOfEightOnARealServer() async throws {
        let prompt = try ChatPrompt(modelFile: LooplHome.defaultModel, template: ModelConformance.reasoningTemplate)
        let model = try await LlamaServerModel.start(.init(rendering: .custom(ChatPromptRenderer(prompt: prompt)),
                                                           contextLength: 1024, threads: 2))
        do {
            var options = GenerationOptions.greedy(maxTokens: 32)
            options.backend.ignoreEndOfGeneration = true
            options.reasoningBudget = 8
            let turn = try await ModelConformance(model: model).run("real budget", [.user("Tell me a long story about a fox.")], options: options)
            #expect(!turn.reasoning.isEmpty, "the thinking the prompt opened did not stream as reasoning")
            let tokens = try LlamaWeights(path: LooplHome.defaultModel).tokenize(turn.reasoning, addSpecial: false).count
            #expect(tokens >= 7 && tokens <= 9, "\(turn.reasoning.debugDescription)")
            #expect(!turn.text.isEmpty, "the model went on after the thinking")
            try await ModelConformance(model: model).checkReasoningThePromptOpened()
        } catch {
            await model.close()
            throw error
        }
        await model.close()
    }
    #endif
}
