import Foundation
import Loopl
import LooplServer
import LooplTestKit
import Synchronization
import Testing

/// The streaming client against a fake server: each wire shape and each error shape.
@Suite(.serialized) struct ServerProtocolTests {
    /// A fake llama-server: /props answers, and generation requests get `answer`.
    static func server(context: Int = 512, answer: @escaping @Sendable (FakeServer.Request) -> String) throws -> FakeServer {
        try FakeServer { request in
            if request.line.hasPrefix("GET /props") { return FakeServer.props(context: context) }
            if request.line.hasPrefix("GET /slots") { return FakeServer.json(200, #"[{"id":0,"is_processing":false}]"#) }
            if request.line.hasPrefix("POST /tokenize") { return FakeServer.tokenize(request) }
            return answer(request)
        }
    }

    static func run(_ server: FakeServer, tools: [ToolSpec] = [], options: GenerationOptions = .greedy(maxTokens: 8)) async throws -> ModelConformance.Turn {
        let model = try await LlamaServerModel.start(.init(target: .attach(url: server.url, apiKey: "secret")))
        do {
            let turn = try await ModelConformance(model: model, requestBound: .seconds(30))
                .run("fake", ModelConformance.greeting, tools: tools, options: options)
            await model.close()
            return turn
        } catch {
            await model.close()
            throw error
        }
    }

    static func error(_ server: FakeServer, options: GenerationOptions = .greedy(maxTokens: 8)) async -> LooplError? {
        do {
            _ = try await run(server, options: options)
            return nil
        } catch {
            return error as? LooplError
        }
    }

    /// `allowSpecialTokensInContent` is read from a `server` section, false by default.
    @Test func readsTheContentSwitch() throws {
        #expect(try !RPCTests.read(["kind": "server"]).allowSpecialTokensInContent)
        #expect(try RPCTests.read(["kind": "server", "allowSpecialTokensInContent": true]).allowSpecialTokensInContent)
    }

    /// Where the server renders, the first turn with tools warns, once, that Loopl cannot keep
    /// control-token text in content plain.
    @Test(.timeLimit(.minutes(1)))
    func serverRenderingWarnsOnceWithTools() async throws {
        let server = try Self.server { _ in FakeServer.events([FakeServer.content("Hi"), "[DONE]"]) }
        defer { server.stop() }
        let model = try await LlamaServerModel.start(.init(target: .attach(url: server.url, apiKey: nil)))
        let tools = [ToolSpec(name: "read_file", description: "Reads a file", parameters: ["type": "object"])]
        var streams: [AsyncThrowingStream<ModelEvent, any Error>] = []
        var warnings: [[String]] = []
        for offered in [[], tools, tools] {
            warnings.append(await captureWarnings {
                streams.append(model.generate(messages: ModelConformance.greeting, tools: offered, options: .greedy(maxTokens: 1)))
            })
        }
        for stream in streams { _ = try? await stream.reduce(0) { count, _ in count + 1 } }
        await model.close()
        #expect(warnings[0].isEmpty)
        #expect(warnings[1].contains { $0.contains("cannot keep control-token text") })
        #expect(warnings[2].isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func streamsTextAndMetricsFromTimings() async throws {
        let server = try Self.server { _ in
            FakeServer.events([
                FakeServer.content("Hel"), ": comment is not an event", FakeServer.content("lo!"),
                #"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
                #"{"choices":[],"usage":{"completion_tokens":3,"prompt_tokens":20,"total_tokens":23},"timings":{"cache_n":12,"prompt_n":8,"prompt_ms":5.0,"predicted_n":3,"predicted_ms":30.0,"predicted_per_second":100.0}}"#,
                "[DONE]",
            ])
        }
        defer { server.stop() }
        let turn = try await Self.run(server)
        #expect(turn.text == "Hello!")
        let metrics = try #require(turn.metrics.last)
        #expect(metrics.finished && metrics.stopReason == .endTurn && !metrics.estimated)
        // llama-server's predicted_n counts the end-of-generation token, which Loopl does not.
        #expect(metrics.promptTokens == 20 && metrics.cachedPromptTokens == 12 && metrics.generatedTokens == 2)
        #expect(metrics.tokensPerSecond == 100 && metrics.contextMax == 512 && metrics.contextUsed == 22)
        let request = try #require(server.requests.last)
        #expect(request.line.hasPrefix("POST /v1/chat/completions"))
        #expect(request.headers.contains("Authorization: Bearer secret"))
        let body = try JSONValue(parsing: request.body)
        #expect(body["stream"] == true && body["max_tokens"] == 8 && body["timings_per_token"] == true)
    }

    @Test(.timeLimit(.minutes(1)))
    func toolCallFragmentsAreAssembled() async throws {
        let server = try Self.server { _ in
            FakeServer.events([
                #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}"#,
                #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": "}}]}}]}"#,
                #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\", \"days\": 1}"}}]}}]}"#,
                #"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
                "[DONE]",
            ])
        }
        defer { server.stop() }
        var options = GenerationOptions.greedy(maxTokens: 32)
        options.toolChoice = .required
        let turn = try await Self.run(server, tools: [ModelConformance.weatherTool], options: options)
        #expect(turn.toolCalls == [ToolCall(id: "call_1", name: "get_weather", arguments: ["city": "Paris", "days": 1])])
        #expect(turn.metrics.last?.stopReason == .toolCall)
        #expect(turn.metrics.last?.estimated == true, "no usage nor timings were sent")
        let body = try JSONValue(parsing: try #require(server.requests.last).body)
        #expect(body["tool_choice"] == "required")
        #expect(body["tools"]?.arrayValue?.first?["function"]?["name"] == "get_weather")
    }

    @Test(.timeLimit(.minutes(1)))
    func toolChoiceShapesTheRequest() async throws {
        let server = try Self.server { _ in FakeServer.events([FakeServer.content("ok"), "[DONE]"]) }
        defer { server.stop() }
        let other = ToolSpec(name: "get_time", description: "Get the time.")
        var options = GenerationOptions.greedy(maxTokens: 4)
        options.toolChoice = .tool("get_weather")
        _ = try await Self.run(server, tools: [other, ModelConformance.weatherTool], options: options)
        let named = try JSONValue(parsing: try #require(server.requests.last).body)
        #expect(named["tool_choice"] == "required")
        #expect(named["tools"]?.arrayValue?.compactMap { $0["function"]?["name"]?.stringValue } == ["get_weather"])
        options.toolChoice = .none
        _ = try await Self.run(server, tools: [other, ModelConformance.weatherTool], options: options)
        let none = try JSONValue(parsing: try #require(server.requests.last).body)
        #expect(none["tools"] == nil && none["tool_choice"] == nil)
        options.toolChoice = .auto
        _ = try await Self.run(server, tools: [other], options: options)
        let auto = try JSONValue(parsing: try #require(server.requests.last).body)
        #expect(auto["tool_choice"] == "auto" && auto["tools"]?.arrayValue?.count == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func callWrittenAsTextIsLifted() async throws {
        let server = try Self.server { _ in
            FakeServer.events([
                FakeServer.content("Let me check. <tool"), FakeServer.content(#"_call>\n{\"name\": \"get_weather\", "#),
                FakeServer.content(#"\"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"#),
                #"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#, "[DONE]",
            ])
        }
        defer { server.stop() }
        let turn = try await Self.run(server, tools: [ModelConformance.weatherTool], options: .greedy(maxTokens: 64))
        #expect(turn.text == "Let me check. ")
        #expect(turn.toolCalls.map(\.name) == ["get_weather"])
        #expect(turn.toolCalls.first?.arguments["city"] == "Paris")
        #expect(turn.metrics.last?.stopReason == .toolCall)
    }

    @Test(.timeLimit(.minutes(1)))
    func wireMessagesCarryArgumentsAsAString() async throws {
        let server = try Self.server { _ in FakeServer.events([FakeServer.content("ok"), "[DONE]"]) }
        defer { server.stop() }
        let model = try await LlamaServerModel.start(.init(target: .attach(url: server.url, apiKey: nil)))
        let call = ToolCall(id: "call_x", name: "get_weather", arguments: ["city": "Paris", "n": 1])
        let messages: [Message] = [.user("weather?"), .assistant(text: "", toolCalls: [call]),
                                   .tool(result: "sunny", callId: "call_x", name: "get_weather")]
        _ = try await ModelConformance(model: model).run("wire", messages, options: .greedy(maxTokens: 4))
        let body = try JSONValue(parsing: try #require(server.requests.last).body)
        let sent = try #require(body["messages"]?.arrayValue)
        #expect(sent[1]["tool_calls"]?.arrayValue?.first?["function"]?["arguments"] == #"{"city":"Paris","n":1}"#)
        #expect(sent[2]["tool_call_id"] == "call_x")
        #expect(server.requests.allSatisfy { !$0.headers.contains("Authorization") }, "no key was given")
        await model.close()
    }

    /// A large body goes out at once: no `Expect: 100-continue` round trip that would delay the first token.
    @Test(.timeLimit(.minutes(1)))
    func largeRequestsAreSentAtOnce() async throws {
        let server = try Self.server { _ in FakeServer.events([FakeServer.content("ok"), "[DONE]"]) }
        defer { server.stop() }
        let model = try await LlamaServerModel.start(.init(target: .attach(url: server.url, apiKey: nil)))
        _ = try await ModelConformance(model: model).run("large", [.user(String(repeating: "word ", count: 20000))], options: .greedy(maxTokens: 1))
        let request = try #require(server.requests.last)
        #expect(!request.headers.lowercased().contains("100-continue"))
        #expect(request.body.count > 100_000)
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func streamCutBeforeItsEndIsAnError() async throws {
        let server = try Self.server { _ in FakeServer.events([FakeServer.content("Hello"), FakeServer.content(" wor")]) }
        defer { server.stop() }
        let error = await Self.error(server)
        #expect(error?.code == .protocolViolation, "\(String(describing: error))")
    }

    @Test(.timeLimit(.minutes(1)))
    func httpErrorsAreTyped() async throws {
        let overflow = try Self.server { _ in
            FakeServer.json(400, #"{"error":{"code":400,"message":"request (4100 tokens) exceeds the available context size (512 tokens)","type":"exceed_context_size_error","n_prompt_tokens":4100,"n_ctx":512}}"#)
        }
        let error = await Self.error(overflow)
        overflow.stop()
        #expect(error?.code == .contextOverflow)
        #expect(error?.message.contains("4100") == true && error?.message.contains("512") == true, "\(String(describing: error))")

        let refused = try Self.server { _ in FakeServer.json(401, #"{"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}}"#) }
        let unauthorized = await Self.error(refused)
        refused.stop()
        #expect(unauthorized?.code == .unauthorized, "\(String(describing: unauthorized))")

        let broken = try Self.server { _ in FakeServer.json(500, #"{"error":{"code":500,"message":"out of memory","type":"server_error"}}"#) }
        let serverError = await Self.error(broken)
        broken.stop()
        #expect(serverError?.code == .httpError)
        #expect(serverError?.message.contains("500") == true && serverError?.message.contains("out of memory") == true)

        let midStream = try Self.server { _ in
            FakeServer.events([FakeServer.content("Hi"), #"{"error":{"code":500,"message":"context shift is disabled","type":"server_error"}}"#])
        }
        let streamError = await Self.error(midStream)
        midStream.stop()
        #expect(streamError?.code == .httpError && streamError?.message.contains("context shift") == true)
    }

    @Test(.timeLimit(.minutes(1)))
    func somethingThatIsNotAnOpenAIServerIsAClearError() async throws {
        let web = try FakeServer { _ in "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\nConnection: close\r\n\r\n<html" }
        defer { web.stop() }
        await #expect { _ = try await LlamaServerModel.start(.init(target: .attach(url: web.url, apiKey: nil))) } throws: {
            ($0 as? LooplError)?.code == .protocolViolation
        }

        let port = web.port
        web.stop()
        let nothing = try #require(URL(string: "http://127.0.0.1:\(port)"))
        await #expect { _ = try await LlamaServerModel.start(.init(target: .attach(url: nothing, apiKey: nil))) } throws: {
            ($0 as? LooplError)?.code == .connectionFailed
        }
    }

    /// Attaching to a llama-server that is still loading waits for it instead of taking it for another server.
    @Test(.timeLimit(.minutes(1)))
    func attachWaitsForALoadingServer() async throws {
        let healthChecks = Atomic<Int>(0)
        let loading = #"{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#
        let server = try FakeServer { request in
            if request.line.hasPrefix("GET /health") {
                return healthChecks.add(1, ordering: .relaxed).newValue <= 3 ? FakeServer.json(503, loading) : FakeServer.json(200, #"{"status":"ok"}"#)
            }
            if request.line.hasPrefix("GET /props") { return FakeServer.props(context: 777) }
            return FakeServer.json(503, loading)
        }
        defer { server.stop() }
        let model = try await LlamaServerModel.start(.init(target: .attach(url: server.url, apiKey: nil)))
        #expect(try await model.contextSize == 777)
        #expect(healthChecks.load(ordering: .relaxed) == 4)
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func genericServerGetsOnlyOpenAIFields() async throws {
        let server = try FakeServer { request in
            if request.line.hasPrefix("GET /v1/models") { return FakeServer.json(200, #"{"object":"list","data":[{"id":"m","max_model_len":8192}]}"#) }
            if request.line.hasPrefix("GET ") { return FakeServer.json(404, #"{"detail":"Not Found"}"#) }
            return FakeServer.events([FakeServer.content("Hi"),
                                      #"{"choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":{"prompt_tokens":9,"completion_tokens":1}}"#,
                                      "[DONE]"])
        }
        defer { server.stop() }
        let model = try await LlamaServerModel.start(.init(target: .attach(url: server.url, apiKey: nil)))
        #expect(try await model.contextSize == 8192)
        let turn = try await ModelConformance(model: model).run("generic", ModelConformance.greeting, options: .greedy(maxTokens: 1))
        let body = try JSONValue(parsing: try #require(server.requests.last).body)
        #expect(body["top_k"] == nil && body["timings_per_token"] == nil && body["ignore_eos"] == nil)
        #expect(turn.metrics.last?.stopReason == .maxTokens)
        #expect(turn.metrics.last?.promptTokens == 9 && turn.metrics.last?.estimated == false)
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func closedModelRefusesRequests() async throws {
        let server = try Self.server { _ in FakeServer.events(["[DONE]"]) }
        defer { server.stop() }
        let model = try await LlamaServerModel.start(.init(target: .attach(url: server.url, apiKey: nil)))
        await model.close()
        await model.close()
        await #expect { _ = try await ModelConformance(model: model).run("closed", ModelConformance.greeting, options: .greedy(maxTokens: 1)) }
            throws: { ($0 as? LooplError)?.code == .closed }
    }
}
